#!/usr/bin/env python3
"""The figures of bench/gpu/python_benchmarks.sh, read from what it wrote into OUT_DIR, set against
the targets of the Python benchmarks (docs/python.md). Prints Markdown; writes OUT_DIR/summary.json.
Parts that did not run are left out. Standard library only.

    python_summary.py OUT_DIR

cost      per forked worker (fork to the exit the orchestrator saw, and the run's wall time per
          worker): at most 0.5 s; at least 8x cheaper than a fresh interpreter importing torch;
          within 1.5x of the C++ worker on the built-in GEMM of the same shape
fidelity  isobench's medians against do_bench (cold L2) and do_bench_cudagraph: within 2%, on the
          defaults (fidelity.json) and on triton.testing's method and duty cycle
          (fidelity-matched.json: --cold-launches true --min-sample-time-ms 100, and the graph
          timer with --min-sample-time-ms 200)
probes    the worker's stream is torch's; a launch that synchronises falls back to events, marked
validity  calibrate --modes process,ab: A/A flagged at alpha 0.001 (the C++ sweeps: 0 of 252 in
          process mode, 0 of 72 in ab, README); a real slowdown (one extra elementwise pass) SLOWER
"""

import json
import os
import statistics
import sys


def journal(run_dir):
    records = [json.loads(line) for line in open(os.path.join(run_dir, "samples.jsonl"))]
    return [r for r in records if r.get("type", "sample") == "sample"], records


def worker_costs(run_dir):
    """Measuring workers' lives (started to the exit the orchestrator saw), and the run's wall
    time per worker started."""
    samples, records = journal(run_dir)
    started = {r["serial"]: r for r in records if r.get("type") == "worker"}
    exited = {r["serial"]: r["exited_ns"] for r in records if r.get("type") == "worker_exit"}
    measuring = {s: w for s, w in started.items() if s in exited and w["what"] == "measure"}
    lives = [(exited[s] - w["spawned_ns"]) / 1e9 for s, w in measuring.items()]
    # Where a worker's life goes, median seconds per phase (the worker record's timestamps).
    phases = {"start": ("spawned_ns", "context_begin_ns"), "context": ("context_begin_ns", "device_ready_ns"),
              "set-up": ("released_ns", "prepared_ns"), "measure": ("measure_begin_ns", "measure_end_ns")}
    phase_s = {name: statistics.median((w[b] - w[a]) / 1e9 for w in measuring.values())
               for name, (a, b) in phases.items() if measuring and all(a in w and b in w for w in measuring.values())}
    if measuring:
        phase_s["exit"] = statistics.median((exited[s] - w["measure_end_ns"]) / 1e9 for s, w in measuring.items())
    run = json.load(open(os.path.join(run_dir, "run.json")))
    return {"samples": len(samples), "workers": run.get("workers_started", 0), "wall_s": run.get("wall_seconds", 0),
            "wall_per_worker_s": run.get("wall_seconds", 0) / max(1, run.get("workers_started", 1)),
            "worker_life_median_s": statistics.median(lives) if lives else None,
            "worker_life_max_s": max(lives) if lives else None, "phases_s": phase_s,
            "sample_median_ms": statistics.median(s["value"] for s in samples) * 1e3 if samples else None}


def part_cost(out):
    runs = {name: os.path.join(out, name) for name in ("python-matmul-sample", "python-ops-batch", "cpp-gemm-sample")}
    if not all(os.path.isdir(d) for d in runs.values()):
        return None
    batch = os.path.join(out, "python-matmul-batch")  # from 2026-12-02 on
    if os.path.isdir(batch):
        runs["python-matmul-batch"] = batch
    costs = {name: worker_costs(d) for name, d in runs.items()}
    fresh = json.load(open(os.path.join(out, "fresh-interpreter.json")))["wall_s"]
    python = costs["python-matmul-sample"]
    per_worker = python["worker_life_median_s"]
    result = {"runs": costs, "fresh_interpreter_s": fresh,
              "fresh_over_forked": statistics.median(fresh) / per_worker,
              "forked_over_cpp": per_worker / costs["cpp-gemm-sample"]["worker_life_median_s"]}
    print("## Cost\n")
    print("| run | samples | workers | worker life, median (max) | run wall / worker | sample median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, c in costs.items():
        print("| %s | %d | %d | %.3f s (%.3f) | %.3f s | %.3f ms |" % (
            name, c["samples"], c["workers"], c["worker_life_median_s"], c["worker_life_max_s"],
            c["wall_per_worker_s"], c["sample_median_ms"]))
    print("| fresh interpreter: import torch, one matmul | | %d | %s | | |\n" % (
        len(fresh), ", ".join("%.2f s" % w for w in fresh)))
    print("Where a worker's life goes (medians): " + "; ".join(
        "%s: %s" % (name, ", ".join("%s %.3f s" % kv for kv in c["phases_s"].items())) for name, c in costs.items()) + "\n")
    print("- forked Python worker per sample, median: %.3f s (target: at most 0.5 s)" % per_worker)
    if "python-matmul-batch" in costs:
        result["per_batch_s"] = costs["python-matmul-batch"]["worker_life_median_s"]
        print("- forked Python worker per batch (the matmul sweep), median: %.3f s (target: at most 0.5 s)"
              % result["per_batch_s"])
    ops = costs["python-ops-batch"]["worker_life_median_s"]
    print("- forked Python worker per batch of three torch ops, median: %.3f s (%.3f s per instance)" % (ops, ops / 3))
    print("- fresh interpreter / forked worker: %.1fx (target: at least 8x)" % result["fresh_over_forked"])
    print("- forked Python worker / C++ worker, built-in gemm 4096^3 bf16: %.2fx (target: within 1.5x)\n"
          % result["forked_over_cpp"])
    return result


def spread(row, key):
    """do_bench's spread over its calls; rows written before 2026-12-02 had one call."""
    return "%.1f%%" % row[key] if key in row else "one call"


def fidelity_table(rows):
    """The Markdown table of python_do_bench.py's rows (which prints it too)."""
    lines = ["| instance | isobench cold | do_bench (spread) | diff | isobench graph | do_bench_cudagraph (spread) | diff |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append("| %s | %.2f us | %.2f us (%s) | %+.2f%% | %.2f us | %.2f us (%s) | %+.2f%% |" % (
            r["instance"], r["isobench_cold_ms"] * 1e3, r["do_bench_ms"] * 1e3, spread(r, "do_bench_spread_pct"),
            r["cold_vs_do_bench_pct"], r["isobench_graph_ms"] * 1e3, r["do_bench_cudagraph_ms"] * 1e3,
            spread(r, "do_bench_cudagraph_spread_pct"), r["graph_vs_cudagraph_pct"]))
    return "\n".join(lines)


def part_fidelity(out):
    result = {}
    for name, what in (("fidelity", "the defaults: --cold-cache true, --timer graph"),
                       ("fidelity-matched", "triton.testing's method and duty cycle: --cold-launches true "
                                            "--min-sample-time-ms 100, --timer graph --min-sample-time-ms 200")):
        path = os.path.join(out, name + ".json")
        if not os.path.exists(path):
            continue
        fidelity = json.load(open(path))
        print("## Fidelity, %s (%s, torch %s, triton %s)\n" % (what, fidelity["device"], fidelity["torch"],
                                                              fidelity["triton"]))
        print(fidelity_table(fidelity["rows"]))
        worst = max(max(abs(r["cold_vs_do_bench_pct"]), abs(r["graph_vs_cudagraph_pct"])) for r in fidelity["rows"])
        print("\n- %s: largest difference %.2f%% (target: within 2%%)\n" % (name, worst))
        result[name] = {"rows": fidelity["rows"], "largest_difference_pct": worst}
    return result or None


def part_probes(out):
    run_dir = os.path.join(out, "python-probes")
    if not os.path.isdir(run_dir):
        return None
    samples, records = journal(run_dir)
    by = {}
    for s in samples:
        by.setdefault(s["instance"].split("[")[0], []).append(s)
    failures = [r["reason"] for r in records if r.get("type") == "worker_failure"]
    stream_ok = len(by.get("stream_probe", [])) == 3 and not any("stream_probe" in f for f in failures)
    syncing = by.get("syncing_launch", [])
    fallback_ok = len(syncing) == 3 and all("graph_fallback" in s["flags"] for s in syncing)
    print("## Probes\n")
    print("- the worker's stream and device are torch's current ones: %s" % ("yes" if stream_ok else "NO"))
    print("- a launch that synchronises: %d samples, %d marked graph_fallback: %s" % (
        len(syncing), sum("graph_fallback" in s["flags"] for s in syncing), "yes" if fallback_ok else "NO"))
    for f in failures:
        print("- worker failure: %s" % f)
    print()
    return {"stream": stream_ok, "graph_fallback": fallback_ok, "failures": failures}


def part_validity(out):
    path = os.path.join(out, "calibrate", "calibration.json")
    if not os.path.exists(path):
        return None
    calibration = json.load(open(path))
    result = {"modes": {}}
    print("## Validity\n")
    print("| mode | A/A flagged at alpha 0.001 | 95% interval | seconds per sample |")
    print("| --- | --- | --- | --- |")
    for mode in calibration["modes"]:
        cell = next(c for c in mode["fpr"] if abs(c["alpha"] - 0.001) < 1e-12)
        result["modes"][mode["mode"]] = {"hits": cell["hits"], "trials": cell["trials"], "ci95": cell["ci95"],
                                         "seconds_per_sample": mode["cost"]["seconds_per_sample"]}
        print("| %s | %d of %d | [%.1f%%, %.1f%%] | %.3f |" % (mode["mode"], cell["hits"], cell["trials"],
                                                            cell["ci95"][0] * 100, cell["ci95"][1] * 100,
                                                            mode["cost"]["seconds_per_sample"]))
    total = sum(m["trials"] for m in result["modes"].values())
    print("\n- A/A comparisons in all: %d (target: at least 200); the C++ sweeps: 0 of 252 (process), 0 of 72 (ab)"
          % total)
    print()
    return result


def part_slowdown(out):
    path = os.path.join(out, "slowdown.out")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    verdicts = {r["instance"]: r["verdict"] for r in json.load(open(path))["instances"]}
    print("## A real slowdown\n")
    print("- candidate: one extra elementwise pass after the Triton softmax: " +
          ", ".join("%s %s" % (k, v) for k, v in verdicts.items()) + " (target: SLOWER)\n")
    return {"extra_pass_verdicts": verdicts}


def main():
    out = sys.argv[1]
    summary = {}
    for name, part in (("cost", part_cost), ("fidelity", part_fidelity), ("probes", part_probes),
                       ("slowdown", part_slowdown), ("validity", part_validity)):
        # A step cut short by the script's deadline leaves a part's files missing or incomplete:
        # the part is then named as such, and the others are still summarised.
        try:
            result = part(out)
        except (OSError, ValueError, KeyError, TypeError, StopIteration, ZeroDivisionError) as e:
            print("## %s: incomplete (%s: %s)\n" % (name, type(e).__name__, e))
            summary[name] = {"incomplete": "%s: %s" % (type(e).__name__, e)}
            continue
        if result is None:
            print("## %s: not run\n" % name)
        else:
            summary[name] = result
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
