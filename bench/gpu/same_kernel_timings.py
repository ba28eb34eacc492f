#!/usr/bin/env python3
"""isobench against triton.testing on the same kernels: the like-for-like check of the H200 run.

isobench's built-in kernels are loaded from libisobench_kernel_capi.so (bench/gpu/kernel_capi.cpp)
and set up exactly as an isobench run set them up: the instance's parameters and input seed from
the run's plan.json, and its cuBLASLt algorithm from the run's instance_reports.json. Then
triton.testing times one launch of that kernel:

  do_bench            median; triton zeroes a 256 MB buffer before every repetition (cold L2),
                      to compare with the isobench run taken with cold_cache: true
  do_bench_cudagraph  median; launches replayed from a CUDA graph, L2 warm, to compare with the
                      isobench run taken with timer: graph

Both run on one side stream that the kernels were set up on (do_bench_cudagraph refuses the
default stream, and the kernels launch on the stream given at setup), so the graph captures
them. The isobench medians come from the runs' samples.jsonl. Prints a Markdown table and
writes the JSON to --out.

Usage: same_kernel_timings.py --lib build-device/lib/libisobench_kernel_capi.so \
         --graph-run RUN_G --cold-run RUN_C [--events-run RUN_E] --out agreement.json
"""

import argparse
import ctypes
import json
import statistics
import sys

import torch
import triton
import triton.testing


def median_ms(bench, fn, **kwargs):
    try:
        return bench(fn, return_mode="median", **kwargs)
    except TypeError:  # older triton
        return bench(fn, quantiles=[0.5], **kwargs)


def load_run(run_dir):
    plan = json.load(open(f"{run_dir}/plan.json"))
    reports = {}
    try:
        reports = json.load(open(f"{run_dir}/instance_reports.json")).get("instances", {})
    except FileNotFoundError:
        pass
    values = {}
    for line in open(f"{run_dir}/samples.jsonl"):
        r = json.loads(line)
        if r.get("type") == "sample":
            values.setdefault(r["instance"], []).append(r["value"])
    return plan, reports, {k: statistics.median(v) for k, v in values.items()}, \
        {k: len(v) for k, v in values.items()}


class Kernel:
    def __init__(self, lib, name, params, stream, seed, replay):
        err = ctypes.create_string_buffer(512)
        self.lib = lib
        self.handle = lib.isobench_capi_create(name.encode(), json.dumps(params).encode(),
                                               ctypes.c_void_p(stream.cuda_stream), seed,
                                               json.dumps(replay).encode() if replay else None,
                                               err, 512)
        if not self.handle:
            raise RuntimeError(f"{name}: {err.value.decode()}")

    def launch(self):
        if self.lib.isobench_capi_launch(self.handle) != 0:
            raise RuntimeError("launch failed")

    def describe(self):
        return json.loads(self.lib.isobench_capi_describe(self.handle).decode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--graph-run", required=True, help="isobench run with timer: graph (L2 warm)")
    ap.add_argument("--cold-run", required=True, help="isobench run with cold_cache: true")
    ap.add_argument("--events-run", help="isobench run with timer: events (L2 warm), for the table")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rep-ms", type=float, default=None,
                    help="triton's rep (time budget of the timed loop, ms); default: triton's own (100 and 20)")
    a = ap.parse_args()
    rep = {} if a.rep_ms is None else {"rep": a.rep_ms}

    lib = ctypes.CDLL(a.lib)
    lib.isobench_capi_create.restype = ctypes.c_void_p
    lib.isobench_capi_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint64,
                                         ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.isobench_capi_launch.argtypes = [ctypes.c_void_p]
    lib.isobench_capi_describe.restype = ctypes.c_char_p
    lib.isobench_capi_describe.argtypes = [ctypes.c_void_p]
    lib.isobench_capi_destroy.argtypes = [ctypes.c_void_p]

    graph_plan, graph_reports, graph_medians, graph_n = load_run(a.graph_run)
    _, cold_reports, cold_medians, cold_n = load_run(a.cold_run)
    events_medians = load_run(a.events_run)[2] if a.events_run else {}

    stream = torch.cuda.Stream()
    # do_bench_cudagraph captures on torch.cuda.graph's capture stream (and, in some triton
    # versions, on a torch.cuda.Stream() it makes itself): both must be the kernels' stream.
    torch.cuda.graph.default_capture_stream = stream
    real_stream_class = torch.cuda.Stream
    rows = []
    for inst in graph_plan["instances"]:
        if inst["backend"] != "cuda":
            continue
        iid = inst["id"]
        replay = inst.get("replay") or graph_reports.get(iid, {}).get("describe")
        k = Kernel(lib, inst["kernel"], inst["params"], stream, inst["seed"], replay)
        row = {"instance": iid, "describe": k.describe()}
        with torch.cuda.stream(stream):
            k.launch()
            torch.cuda.synchronize()
            row["do_bench_ms"] = median_ms(triton.testing.do_bench, k.launch, **rep)
            torch.cuda.Stream = lambda *args, **kwargs: stream
            try:
                row["do_bench_cudagraph_ms"] = median_ms(triton.testing.do_bench_cudagraph, k.launch, **rep)
            finally:
                torch.cuda.Stream = real_stream_class
        torch.cuda.synchronize()
        lib.isobench_capi_destroy(k.handle)
        row["isobench_graph_ms"] = graph_medians.get(iid, float("nan")) * 1e3
        row["isobench_cold_ms"] = cold_medians.get(iid, float("nan")) * 1e3
        row["isobench_events_ms"] = events_medians.get(iid, float("nan")) * 1e3
        row["samples_graph"], row["samples_cold"] = graph_n.get(iid, 0), cold_n.get(iid, 0)
        row["graph_vs_cudagraph_pct"] = (row["isobench_graph_ms"] / row["do_bench_cudagraph_ms"] - 1) * 100
        row["cold_vs_do_bench_pct"] = (row["isobench_cold_ms"] / row["do_bench_ms"] - 1) * 100
        rows.append(row)

    json.dump({"torch": torch.__version__, "triton": triton.__version__, "rep_ms": a.rep_ms,
               "device": torch.cuda.get_device_name(), "rows": rows}, open(a.out, "w"), indent=1)
    print("| instance | isobench graph | do_bench_cudagraph | diff | isobench cold | do_bench | diff | isobench events |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['instance']} | {r['isobench_graph_ms']*1e3:.2f} us | {r['do_bench_cudagraph_ms']*1e3:.2f} us | "
              f"{r['graph_vs_cudagraph_pct']:+.2f}% | {r['isobench_cold_ms']*1e3:.2f} us | {r['do_bench_ms']*1e3:.2f} us | "
              f"{r['cold_vs_do_bench_pct']:+.2f}% | {r['isobench_events_ms']*1e3:.2f} us |")


if __name__ == "__main__":
    sys.exit(main())
