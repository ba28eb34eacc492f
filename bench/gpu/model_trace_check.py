#!/usr/bin/env python3
"""Does each iteration trace of a model-step run hold exactly one training step?

tools/check_trace.py checks the schema and that a trace has one iteration slice; this counts what
one step must contain, independently of the slice: the optimizer's fused AdamW kernels (AdamW
splits its tensor lists over a fixed number of launches per step), the graph launches (one per
step in graph mode), and the kernels against the accounting's launches per iteration in the
run's kernels.json.

    python3 bench/gpu/model_trace_check.py RUN_DIR...

Prints a Markdown table, one row per instance's trace.
"""

import glob
import json
import os
import sys


def main():
    print("| instance | iteration slices | kernels in the trace | kernel launches per iteration (kernels.json) "
          "| fused AdamW kernels | cudaGraphLaunch calls |")
    print("| --- | --- | --- | --- | --- | --- |")
    for run in sys.argv[1:]:
        with open(os.path.join(run, "artifacts.json")) as f:
            artifacts = json.load(f)
        folders = {v["folder"]: k for side in artifacts["sides"] for k, v in side["instances"].items()}
        try:
            with open(os.path.join(run, "kernels.json")) as f:
                kernels = json.load(f)
        except OSError:
            kernels = {}
        per_iteration = {}  # kernels.json: instance -> [one record per side]
        for instance, records in (kernels.get("instances") or {}).items():
            iteration = (records[0] if records else {}).get("iteration") or {}
            if iteration.get("kernel_launches") is not None:
                per_iteration[instance] = "%d" % iteration["kernel_launches"]
        for trace in sorted(glob.glob(os.path.join(run, "artifacts", "side-*", "*", "isobench-iteration-trace.json"))):
            folder = os.path.relpath(os.path.dirname(trace), run)
            instance = folders.get(folder, folder)
            with open(trace) as f:
                events = json.load(f)["traceEvents"]
            slices = sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "iteration")
            launched = [e for e in events if e.get("cat") == "kernel"]
            adamw = sum(1 for e in launched if "FusedOptimizerTensorListMetadata" in e.get("name", ""))
            graphs = sum(1 for e in events if e.get("name") == "cudaGraphLaunch")
            print("| %s | %d | %d | %s | %d | %d |" % (instance, slices, len(launched), per_iteration.get(instance, "-"),
                                                     adamw, graphs))


if __name__ == "__main__":
    main()
