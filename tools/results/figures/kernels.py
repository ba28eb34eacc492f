"""Figures of the kernels against independent references: PyTorch's own kernels
(bench/gpu/reference_timings.py), the same kernels timed by triton.testing
(bench/gpu/same_kernel_timings.py), and the all-gather + GEMM family's overlap."""
import statistics

from .. import fmt
from ..shape import shape_text
from ..stats import HodgesLehmann
from . import FigureError, _gpus, _instance, _params, kind

@kind("references")
def references(ctx, args, opts):
    """isobench's medians with three timers against bench/gpu/reference_timings.py's JSON (PyTorch's
    own kernels timed with events, do_bench_cudagraph, do_bench): `references EVENTS_RUN GRAPH_RUN
    COLD_RUN REFERENCE_JSON`. A second table sets each isobench (events) median against the
    reference's throughput: the device copy's bandwidth for memory-bound kernels, the reference
    matmul's FLOP rate for GEMMs."""
    events, graph, cold = (ctx.run(p).medians() for p in args[:3])
    ref = ctx.json(args[3])
    by_id = {r["instance"].replace("scale=1.0", "scale=1"): r for r in ref["results"]}
    rows, shares = [], []
    copy = ref["copy_bandwidth"]["events_median_GBps"]
    for i in events:
        r = by_id[i]
        rows.append([f"`{fmt.short_instance(i)}`", fmt.time(events[i]), fmt.time(graph[i]), fmt.time(cold[i]),
                     f"{fmt.time(r['events_median_us'] * 1e-6)} ({r['implementation']})",
                     fmt.time(r["do_bench_cudagraph_median_us"] * 1e-6), fmt.time(r["do_bench_median_us"] * 1e-6)])
        if r["flops_per_launch"] and i.startswith("gemm"):
            ours, theirs = r["flops_per_launch"] / events[i] / 1e12, r["flops_per_launch"] / (r["events_median_us"] * 1e-6) / 1e12
            shares.append([f"`{fmt.short_instance(i)}`", f"{ours:.0f} TFLOP/s", f"{theirs:.0f} TFLOP/s ({r['implementation']})",
                           fmt.pct(ours / theirs)])
        else:
            ours = r["bytes_per_launch"] / events[i] / 1e9
            shares.append([f"`{fmt.short_instance(i)}`", f"{ours:.0f} GB/s", f"{copy:.0f} GB/s (device copy)", fmt.pct(ours / copy)])
    first = fmt.table(["instance", "isobench events", "isobench graph", "isobench cold L2", "torch events",
                       "do_bench_cudagraph", "do_bench (cold L2)"], rows)
    second = fmt.table(["instance", "isobench (events)", "reference in the same call", "share"], shares)
    return (f"{first}\n\n{second}\n\ntorch {ref['torch']}, triton {ref['triton']}, {ref['device']}; isobench runs "
            f"on GPU {_gpus([ctx.run(p) for p in args[:3]])}.")

@kind("reference_tflops")
def reference_tflops(ctx, args, opts):
    """bench/gpu/reference_timings.py's FLOP rate for one instance (its flops per launch over its
    events median): `reference_tflops JSON INSTANCE` -> "698 TFLOP/s"."""
    data = ctx.json(args[0])
    by_id = {r["instance"].replace("scale=1.0", "scale=1"): r for r in data["results"]}
    r = by_id[_instance(list(by_id), " ".join(args[1:]))]
    return f"{r['flops_per_launch'] / (r['events_median_us'] * 1e-6) / 1e12:.0f} TFLOP/s"

@kind("triton")
def triton(ctx, args, opts):
    """isobench against triton.testing on the same kernels (bench/gpu/same_kernel_timings.py's
    JSON): `triton JSON GRAPH_RUN COLD_RUN`. isobench's medians come from the runs' samples (and
    must equal the JSON's); the graph-timed samples' shape is shown, since a median of a
    bimodal sample says little."""
    data = ctx.json(args[0])
    graph, cold = ctx.run(args[1]), ctx.run(args[2])
    gv, cv = graph.values(), cold.values()
    rows = []
    for r in data["rows"]:
        i = r["instance"]
        g, c = statistics.median(gv[i]), statistics.median(cv[i])
        for mine, theirs in ((g, r["isobench_graph_ms"]), (c, r["isobench_cold_ms"])):
            if abs(mine * 1e3 / theirs - 1) > 1e-6:
                raise FigureError(f"{args[0]}: {i}: isobench median {theirs} ms, the runs give {mine * 1e3} ms")
        tg, tc = r["do_bench_cudagraph_ms"] * 1e-3, r["do_bench_ms"] * 1e-3
        rows.append([f"`{fmt.short_instance(i)}`", fmt.time(g), fmt.time(tg), fmt.change(g / tg, 2), shape_text(gv[i]),
                     fmt.time(c), fmt.time(tc), fmt.change(c / tc, 2)])
    return fmt.table(["instance", "isobench graph", "do_bench_cudagraph", "diff", "isobench graph samples",
                      "isobench cold", "do_bench", "diff"], rows) + \
        f"\n\ntriton {data['triton']}, torch {data['torch']}; GPU {_gpus([graph, cold])}."

@kind("triton_diff")
def triton_diff(ctx, args, opts):
    """One instance's isobench-graph against do_bench_cudagraph difference: `triton_diff JSON
    INSTANCE` -> "+11.6%"."""
    data = ctx.json(args[0])
    ids = [r["instance"] for r in data["rows"]]
    r = data["rows"][ids.index(_instance(ids, " ".join(args[1:])))]
    key = "isobench_cold_ms" if opts.get("timer") == "cold" else "isobench_graph_ms"
    theirs = "do_bench_ms" if opts.get("timer") == "cold" else "do_bench_cudagraph_ms"
    return fmt.change(r[key] / r[theirs], 2)

def _allgather_groups(run):
    """{(k, dtype, ranks): {"sequence" or "overlap C": values}} of an all-gather + GEMM run."""
    groups = {}
    for i, v in run.values().items():
        p = _params(i)
        key = (int(p["k"]), p["dtype"], int(p["ranks"]))
        name = "sequence" if p["impl"] == "sequence" else f"overlap {p['chunks']}"
        groups.setdefault(key, {})[name] = v
    return groups

def _best_overlap(g):
    """(name, HL ratio sequence/overlap) of the overlap with the best median speed-up."""
    seq = statistics.median(g["sequence"])
    best = max((n for n in g if n != "sequence"), key=lambda n: seq / statistics.median(g[n]))
    return best, HodgesLehmann(g[best], g["sequence"])

@kind("allgather")
def allgather(ctx, args, opts):
    """The all-gather + GEMM family of one run: per shape and dtype, the sequence's median and each
    overlap's median with its speed-up (sequence median / overlap median), and the best overlap's
    speed-up as a Hodges-Lehmann ratio with its 95% interval (sequence samples against the
    overlap's, both from this run)."""
    r = ctx.run(args[0])
    values = r.values()
    groups = _allgather_groups(r)
    chunk_names = sorted({n for g in groups.values() for n in g if n != "sequence"}, key=lambda n: int(n.split()[1]))
    rows = []
    for (k, dtype, ranks), g in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "bf16", kv[0][2])):
        seq = statistics.median(g["sequence"])
        cells = []
        for n in chunk_names:
            cells.append(f"{fmt.time(statistics.median(g[n]))} ({fmt.speedup(seq / statistics.median(g[n]))})"
                         if n in g else "—")
        best, hl = _best_overlap(g)
        rows.append([k, dtype, ranks, fmt.time(seq)] + cells +
                    [f"{best}: {fmt.speedup(hl.ratio)} [{hl.lo:.2f}, {hl.hi:.2f}]"])
    n = sorted({len(v) for v in values.values()})
    return fmt.table(["k", "dtype", "ranks", "sequence"] + chunk_names + ["best speed-up, HL [95%]"], rows) + \
        f"\n\nMedians of {'-'.join(map(str, n))} samples per instance; GPU {_gpus([r])}."

@kind("allgather_best")
def allgather_best(ctx, args, opts):
    """The best overlap's speed-up of one shape: `allgather_best RUN k=65536 dtype=bf16` ->
    "overlap 4: 1.31x [1.20, 1.32]"."""
    g = next(g for (k, dtype, _), g in _allgather_groups(ctx.run(args[0])).items()
             if k == int(opts["k"]) and dtype == opts["dtype"])
    best, hl = _best_overlap(g)
    return f"{best}: {fmt.speedup(hl.ratio)} [{hl.lo:.2f}, {hl.hi:.2f}]"

@kind("rank_values")
def rank_values(ctx, args, opts):
    """Samples of multi-rank instances: how many carry each rank's own time (rank_values) and
    equal the largest of them: "36 of 36 samples carry rank_values, each the largest"."""
    samples = [s for s in ctx.run(args[0]).samples() if int(_params(s["instance"]).get("ranks", 1)) > 1]
    carrying = [s for s in samples if s.get("rank_values")]
    largest = sum(1 for s in carrying if s["value"] == max(s["rank_values"]))
    return f"{len(carrying)} of {len(samples)} samples carry `rank_values`, {largest} of them equal to the largest"

@kind("python_fidelity")
def python_fidelity(ctx, args, opts):
    """Python benchmarks against triton.testing (bench/gpu/python_do_bench.py's JSON): `python_fidelity
    COLD_RUN GRAPH_RUN FIDELITY_JSON`; isobench's medians re-derived from the two runs (cold L2 with
    events, and the graph timer), set against do_bench and do_bench_cudagraph, with the goal of 2%."""
    cold, graph = ctx.run(args[0]).medians(), ctx.run(args[1]).medians()
    ref = ctx.json(args[2])
    rows = []
    for r in ref["rows"]:
        i = r["instance"]
        for ours, recorded in ((cold[i], r["isobench_cold_ms"]), (graph[i], r["isobench_graph_ms"])):
            if abs(ours * 1e3 - recorded) > 1e-9 * recorded:
                raise FigureError(f"{args[2]}: {i}: isobench median {recorded} ms, the run's samples give {ours * 1e3} ms")
        rows.append([f"`{i}`", fmt.time(cold[i]), fmt.time(r["do_bench_ms"] * 1e-3),
                     fmt.change(cold[i] / (r["do_bench_ms"] * 1e-3)), fmt.time(graph[i]),
                     fmt.time(r["do_bench_cudagraph_ms"] * 1e-3), fmt.change(graph[i] / (r["do_bench_cudagraph_ms"] * 1e-3))])
    header = ["instance", "isobench cold (events)", "do_bench", "difference", "isobench graph", "do_bench_cudagraph",
              "difference"]
    return (fmt.table(header, rows) + f"\n\n{ref['device']}, torch {ref['torch']}, triton {ref['triton']}; medians of "
            f"{ref['rows'][0]['samples_cold']} isobench samples per timer; GPU {_gpus([ctx.run(args[0]), ctx.run(args[1])])}.")
