#!/usr/bin/env python3
"""The table of bench/gpu/model_step.sh: per instance of a model-step run, the ms per
iteration (median of the timed samples), and from the untimed record pass (kernels.json's
"iteration", docs/model-workloads.md) the kernel launches per iteration, GPU time, host enqueue
and its share of GPU time, synchronisations, the flags, and the top five kernels; then whether
graph mode's host enqueue is below eager's, and whether every trace holds exactly one iteration
(tools/check_trace.py).

    model_step_summary.py RUN_DIR... [--json OUT.json]
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def read_jsonl(path):
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass  # a torn last line
    return rows


def ms(ns):
    return "%.3f" % (ns / 1e6) if isinstance(ns, (int, float)) else "-"


def summarise(run):
    plan = json.loads((run / "plan.json").read_text())
    samples = read_jsonl(run / "samples.jsonl")
    kernels = json.loads((run / "kernels.json").read_text())["instances"] if (run / "kernels.json").exists() else {}
    rows = []
    for instance in plan["instances"]:
        iid = instance["id"]
        values = [s["value"] for s in samples if s.get("instance") == iid and s.get("side", 0) == 0
                  and isinstance(s.get("value"), (int, float))]
        record = (kernels.get(iid) or [{}])[0]
        it = record.get("iteration") or {}
        inner = record.get("inner") or 1
        top = [{"name": k.get("name", "")[:90], "ms_per_iteration": k.get("total_gpu_ns", 0) / inner / 1e6,
                "share": k.get("share"), "grid": k.get("grid"), "block": k.get("block")}
               for k in (record.get("kernels") or [])[:5]]
        rows.append({"instance": iid, "samples": len(values),
                     "ms_per_iteration": statistics.median(values) * 1e3 if values else None,
                     "kernel_launches": it.get("kernel_launches"), "gpu_ns": it.get("gpu_ns"),
                     "host_enqueue_ns": it.get("host_enqueue_ns"), "host_enqueue_share": it.get("host_enqueue_share"),
                     "synchronizations": it.get("synchronizations"), "memcpys": it.get("memcpys"),
                     "flags": it.get("flags", []), "reason": it.get("reason") or record.get("reason"),
                     "truncated_kernels": record.get("truncated_kernels"), "top_kernels": top})
    return rows


def mode_of(iid):
    for mode in ("eager", "graph", "compile"):
        if "mode=" + mode in iid:
            return mode
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    rows = [row for run in args.runs if (run / "plan.json").exists() for row in summarise(run)]
    print("| instance | samples | ms per iteration | launches per iteration | GPU ms | host enqueue ms | "
          "enqueue / GPU | syncs | flags |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        share = "%.2f" % r["host_enqueue_share"] if isinstance(r["host_enqueue_share"], (int, float)) else "-"
        launches = "%.0f" % r["kernel_launches"] if isinstance(r["kernel_launches"], (int, float)) else "-"
        per = "%.3f" % r["ms_per_iteration"] if r["ms_per_iteration"] is not None else "-"
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            r["instance"], r["samples"], per, launches, ms(r["gpu_ns"]), ms(r["host_enqueue_ns"]), share,
            r["synchronizations"] if r["synchronizations"] is not None else "-",
            "; ".join(r["flags"]) or (r["reason"] or "")))
    for r in rows:
        print("\n%s, top kernels (ms per iteration, share of kernel time):" % r["instance"])
        for k in r["top_kernels"]:
            print("  %8.3f ms  %5.1f%%  grid %s block %s  %s" % (k["ms_per_iteration"], 100 * (k["share"] or 0),
                                                               k["grid"], k["block"], k["name"]))
    # Graph mode's host enqueue against eager's, shape by shape.
    checks = []
    by_shape = {}
    for r in rows:
        shape = r["instance"].replace("mode=" + (mode_of(r["instance"]) or ""), "mode=*")
        by_shape.setdefault(shape, {})[mode_of(r["instance"])] = r
    for shape, modes in sorted(by_shape.items()):
        e, g = modes.get("eager"), modes.get("graph")
        if e and g and e["host_enqueue_ns"] and g["host_enqueue_ns"] is not None:
            ratio = g["host_enqueue_ns"] / e["host_enqueue_ns"]
            checks.append({"shape": shape, "graph_over_eager_host_enqueue": ratio})
            print("\n%s: graph mode's host enqueue is %.3f of eager's (%s ms against %s ms)" % (
                shape, ratio, ms(g["host_enqueue_ns"]), ms(e["host_enqueue_ns"])))
    traces = sorted(t for run in args.runs for t in (run / "artifacts").glob("side-*/*/isobench-iteration-trace.json"))
    trace_check = subprocess.run([sys.executable, str(ROOT / "tools" / "check_trace.py")] + [str(t) for t in traces],
                                 capture_output=True, text=True) if traces else None
    print("\ntraces (%d):" % len(traces))
    if trace_check:
        print(trace_check.stdout.rstrip())
    if args.json:
        args.json.write_text(json.dumps({"instances": rows, "graph_vs_eager": checks, "traces": len(traces),
                                         "traces_ok": trace_check is not None and trace_check.returncode == 0,
                                         "trace_check": trace_check.stdout if trace_check else ""}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
