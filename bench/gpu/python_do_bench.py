#!/usr/bin/env python3
"""isobench against triton.testing on the same Python benchmarks (bench/gpu/python_benchmarks.sh,
part fidelity). Every Python instance of the isobench run with --cold-cache true is set up again
here exactly as its workers set it up (its module, function, parameters and input seed from the
run's plan.json, through isobench's own contract code), and timed by

  do_bench            median of single launches, 256 MB zeroed before each one (cold L2), for
                      100 ms: against the isobench run with --cold-cache true (inner 1 after an
                      L2 flush) or --cold-launches true (a flush before every launch)
  do_bench_cudagraph  median, the launches replayed from a CUDA graph (L2 warm; 10 replays of
                      about 20 ms): against the isobench run with --timer graph

Each is called --repeats times (alternating, default 5): the row gives the median of those calls
and their spread (largest / smallest - 1), since one call of do_bench is itself a sample. Before
each call the card rests --rest-s seconds (default 1; synchronised, nothing queued), as it rests
between isobench's samples while the next worker starts: on 2026-12-01-h200-d, called back to
back, do_bench's matmul went from 186.6 us (first call) to 195-200 us (the card at its power limit
after the calls before), which is the card's state and not the method.

The benchmarks launch on torch's current stream, which both tools set (do_bench_cudagraph
captures on a side stream of its own). Prints a Markdown table; writes the rows to --out.

    PYTHONPATH=BIN/../python python_do_bench.py --cold-run RUN_C --graph-run RUN_G --out fidelity.json [--repeats 5]
"""

import argparse
import json
import statistics
import time

import torch
import triton
import triton.testing

from isobench import benchmark as contract
from python_summary import fidelity_table  # beside this script


def median_ms(bench, fn):
    try:
        return bench(fn, return_mode="median")
    except TypeError:  # older triton
        return bench(fn, quantiles=[0.5])


def medians(run_dir):
    values = {}
    for line in open("%s/samples.jsonl" % run_dir):
        record = json.loads(line)
        if record.get("type", "sample") == "sample":
            values.setdefault(record["instance"], []).append(record["value"])
    return {k: statistics.median(v) for k, v in values.items()}, {k: len(v) for k, v in values.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cold-run", required=True)
    ap.add_argument("--graph-run", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rest-s", type=float, default=1.0)
    a = ap.parse_args()
    plan = json.load(open("%s/plan.json" % a.cold_run))
    cold, cold_n = medians(a.cold_run)
    graph, graph_n = medians(a.graph_run)
    rows = []
    for instance in plan["instances"]:
        if not instance.get("python_module"):
            continue
        module = contract.load_module(instance["python_module"])
        function = contract.resolve_function(module, instance["python_module"], instance["python_function"])
        timed = contract.set_up(function, instance["params"], instance["seed"], "cuda:0",
                                torch.cuda.current_stream().cuda_stream)
        timed.launch()
        torch.cuda.synchronize()
        iid = instance["id"]
        calls = {"do_bench": [], "do_bench_cudagraph": []}
        for _ in range(a.repeats):
            for name, bench in (("do_bench", triton.testing.do_bench),
                                ("do_bench_cudagraph", triton.testing.do_bench_cudagraph)):
                torch.cuda.synchronize()
                time.sleep(a.rest_s)
                calls[name].append(median_ms(bench, timed.launch))
        row = {"instance": iid, "do_bench_ms": statistics.median(calls["do_bench"]),
               "do_bench_cudagraph_ms": statistics.median(calls["do_bench_cudagraph"]),
               "do_bench_calls_ms": calls["do_bench"], "do_bench_cudagraph_calls_ms": calls["do_bench_cudagraph"],
               "do_bench_spread_pct": (max(calls["do_bench"]) / min(calls["do_bench"]) - 1) * 100,
               "do_bench_cudagraph_spread_pct":
                   (max(calls["do_bench_cudagraph"]) / min(calls["do_bench_cudagraph"]) - 1) * 100,
               "cold_run": a.cold_run, "graph_run": a.graph_run, "rest_s": a.rest_s,
               "isobench_cold_ms": cold.get(iid, float("nan")) * 1e3,
               "isobench_graph_ms": graph.get(iid, float("nan")) * 1e3,
               "samples_cold": cold_n.get(iid, 0), "samples_graph": graph_n.get(iid, 0)}
        row["cold_vs_do_bench_pct"] = (row["isobench_cold_ms"] / row["do_bench_ms"] - 1) * 100
        row["graph_vs_cudagraph_pct"] = (row["isobench_graph_ms"] / row["do_bench_cudagraph_ms"] - 1) * 100
        rows.append(row)
        if timed.teardown is not None:
            timed.teardown()
        del timed
        torch.cuda.synchronize()
    json.dump({"torch": torch.__version__, "triton": triton.__version__, "device": torch.cuda.get_device_name(),
               "rows": rows}, open(a.out, "w"), indent=1)
    print(fidelity_table(rows))


if __name__ == "__main__":
    main()
