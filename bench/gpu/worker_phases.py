#!/usr/bin/env python3
"""Where a fresh worker's time goes, from a run directory's journal (samples.jsonl "worker" events).

For each run directory given: samples per minute over the measuring span, and the median (p10,
p90) of each phase of a measure worker's life:
  start     spawned -> attached      process start, dynamic loading, main() up to the segment
  context   attached -> device_ready CUDA context (and NVML) creation
  waiting   device_ready -> released pre-started, waiting on the barrier
  setup     released -> measure_begin allocations, inputs, handles, warm-up (after release)
  measure   measure_begin -> measure_end
  handoff   one worker's measure_end -> the next worker's release
and the measuring share: the sum of measure over the span.
Usage: worker_phases.py RUN_DIR... [--json OUT]
"""
import json
import statistics
import sys


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def phases(run):
    events = [json.loads(line) for line in open(f"{run}/samples.jsonl")]
    samples = [e for e in events if e.get("type") == "sample"]
    workers = sorted((e for e in events if e.get("type") == "worker" and e.get("what") == "measure"),
                     key=lambda e: e["serial"])
    def span(a, b):
        return [(w[b] - w[a]) / 1e6 for w in workers if w.get(a) and w.get(b) and w[b] >= w[a]]
    out = {"run": run, "workers": len(workers), "samples": len(samples)}
    for name, a, b in [("start", "spawned_ns", "attached_ns"), ("context", "attached_ns", "device_ready_ns"),
                       ("waiting", "device_ready_ns", "released_ns"), ("setup", "released_ns", "measure_begin_ns"),
                       ("measure", "measure_begin_ns", "measure_end_ns")]:
        v = span(a, b)
        out[name + "_ms"] = {"median": statistics.median(v) if v else None, "p10": pct(v, 0.1), "p90": pct(v, 0.9)}
    handoff = [(b["released_ns"] - a["measure_end_ns"]) / 1e6 for a, b in zip(workers, workers[1:])
               if b.get("released_ns") and a.get("measure_end_ns")]
    out["handoff_ms"] = {"median": statistics.median(handoff) if handoff else None, "p10": pct(handoff, 0.1),
                         "p90": pct(handoff, 0.9)}
    first = min((w["released_ns"] or w["measure_begin_ns"]) for w in workers)
    last = max(w["measure_end_ns"] for w in workers)
    wall_s = (last - first) / 1e9
    out["span_s"] = wall_s
    out["samples_per_minute"] = len(samples) / wall_s * 60
    out["wall_ms_per_worker"] = wall_s * 1e3 / len(workers)
    out["measure_share"] = sum(span("measure_begin_ns", "measure_end_ns")) / 1e3 / wall_s
    return out


def main():
    args = sys.argv[1:]
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        json_out = args[i + 1]
        del args[i:i + 2]
    rows = [phases(r) for r in args]
    print("| run | samples/min | ms per worker | start | context | waiting | setup | measure | handoff | measuring share |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        cell = lambda k: "—" if r[k]["median"] is None else f"{r[k]['median']:.1f}"
        print(f"| {r['run'].rstrip('/').split('/')[-1]} | {r['samples_per_minute']:.0f} | {r['wall_ms_per_worker']:.1f} | "
              f"{cell('start_ms')} | {cell('context_ms')} | {cell('waiting_ms')} | {cell('setup_ms')} | "
              f"{cell('measure_ms')} | {cell('handoff_ms')} | {r['measure_share']*100:.1f}% |")
    if json_out:
        json.dump(rows, open(json_out, "w"), indent=1)


if __name__ == "__main__":
    main()
