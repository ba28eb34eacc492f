#!/usr/bin/env python3
"""Where a fresh worker's time goes, from a run directory's journal (samples.jsonl "worker" events).

For each run directory given: samples per minute over the measuring span, and the median (p10,
p90) of each phase of a measure worker's life:
  start     spawned -> attached      process start, dynamic loading, main() up to the segment
  permit    attached -> context_begin waiting for the context gate's permit (0 without the gate)
  context   context_begin -> device_ready CUDA context (and NVML) creation
  waiting   device_ready -> released pre-started, waiting on the barrier
  setup     released -> prepared     allocations, inputs, handles, warm-up (after release)
  held      prepared -> measure_begin waiting for the measure permit (another worker creating its
                                     context or exiting; 0 without the gate)
  measure   measure_begin -> measure_end
  untimed in measure   the measuring phase less the worker's samples (begin_ns to end_ns)
  handoff   one worker's measure_end -> the next worker's measure_begin (nobody measuring)
  hold      measure_end -> exit permit: a worker of a set-up batch (--setup-batch) keeping its
                                     buffers and context while its batch-mates measure (0 without)
  exit      exit permit (measure_end without one) -> the orchestrator saw the process gone
                                     ("worker_exit" events)
the measuring share (the sum of measure over the span, per GPU), the workers per set-up batch
(median; 1 without batches), how many samples' timed regions overlapped another worker's context
creation or exit on their own GPU (what the context gate prevents; workers started for a look that
dropped them included) and, in a run over several
GPUs (--gpus), on another GPU (which it does not), and how many overlapped another worker's
set-up (released -> prepared) on their GPU (what releasing one worker, or one batch, only after
the last has measured prevents).
Usage: worker_phases.py RUN_DIR... [--json OUT]
"""
import json
import statistics
import sys


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def phases(run):
    with open(f"{run}/samples.jsonl") as journal:
        return phases_of([json.loads(line) for line in journal], run)


def phases_of(events, run):
    """The phases of one run's journal events (tools/results reads them from an archive)."""
    samples = [e for e in events if e.get("type") == "sample"]
    workers = sorted((e for e in events if e.get("type") == "worker" and e.get("what") == "measure"),
                     key=lambda e: e["serial"])
    def span(a, b):
        return [(w[b] - w[a]) / 1e6 for w in workers if w.get(a) and w.get(b) and w[b] >= w[a]]
    out = {"run": run, "workers": len(workers), "samples": len(samples)}
    for w in workers:
        w.setdefault("context_begin_ns", w.get("attached_ns"))  # runs from before the gate
        w.setdefault("prepared_ns", w.get("measure_begin_ns"))
    add_exits(events, workers)
    for name, a, b in [("start", "spawned_ns", "attached_ns"), ("permit", "attached_ns", "context_begin_ns"),
                       ("context", "context_begin_ns", "device_ready_ns"), ("hold", "measure_end_ns", "exit_from_ns"),
                       ("exit", "exit_from_ns", "exited_ns"),
                       ("waiting", "device_ready_ns", "released_ns"), ("setup", "released_ns", "prepared_ns"),
                       ("held", "prepared_ns", "measure_begin_ns"),
                       ("measure", "measure_begin_ns", "measure_end_ns")]:
        v = span(a, b)
        out[name + "_ms"] = {"median": statistics.median(v) if v else None, "p10": pct(v, 0.1), "p90": pct(v, 0.9)}
    gpus = sorted({w.get("gpu", 0) for w in workers})
    handoff = []
    for g in gpus:  # each GPU's workers hand off among themselves
        mine = [w for w in workers if w.get("gpu", 0) == g]
        handoff += [(b["measure_begin_ns"] - a["measure_end_ns"]) / 1e6 for a, b in zip(mine, mine[1:])
                    if b.get("measure_begin_ns") and a.get("measure_end_ns")]
    out["handoff_ms"] = {"median": statistics.median(handoff) if handoff else None, "p10": pct(handoff, 0.1),
                         "p90": pct(handoff, 0.9)}
    # The measuring phase less the worker's timed samples: what runs under the measure permit
    # without being timed (making a timer at its first sample, before 2026-12-02's change).
    timed = {}
    for s in samples:
        if s.get("worker_serial") is not None and s.get("end_ns") and s.get("begin_ns"):
            timed[s["worker_serial"]] = timed.get(s["worker_serial"], 0) + (s["end_ns"] - s["begin_ns"]) / 1e6
    between = [(w["measure_end_ns"] - w["measure_begin_ns"]) / 1e6 - timed[w["serial"]] for w in workers
               if w["serial"] in timed and w.get("measure_begin_ns") and w.get("measure_end_ns")]
    out["untimed_in_measure_ms"] = {"median": statistics.median(between) if between else None,
                                    "p10": pct(between, 0.1), "p90": pct(between, 0.9)}
    flags = samples_beside(events, workers)
    out["gpus"] = gpus
    out["samples_beside_context_or_exit"] = sum(1 for same, _ in flags.values() if same)
    out["samples_beside_other_gpu_context_or_exit"] = sum(1 for _, other in flags.values() if other)
    out["samples_beside_setup"] = samples_beside_setup(events, workers)
    sizes = {}
    for w in workers:
        if w.get("batch"):
            sizes[w["batch"]] = sizes.get(w["batch"], 0) + 1
    out["workers_per_batch"] = statistics.median(sizes.values()) if sizes else 1
    first = min((w["released_ns"] or w["measure_begin_ns"]) for w in workers)
    last = max(w["measure_end_ns"] for w in workers)
    wall_s = (last - first) / 1e9
    out["span_s"] = wall_s
    out["samples_per_minute"] = len(samples) / wall_s * 60
    out["wall_ms_per_worker"] = wall_s * 1e3 / len(workers)
    out["measure_share"] = sum(span("measure_begin_ns", "measure_end_ns")) / 1e3 / wall_s / len(gpus)
    return out


def add_exits(events, workers):
    """Each worker's exit from its "worker_exit" event: exited_ns, and exit_from_ns, where its exit
    began: its exit permit (a worker of a set-up batch) or else the end of its measuring."""
    exits = {e["serial"]: e for e in events if e.get("type") == "worker_exit"}
    for w in workers:
        e = exits.get(w["serial"])
        if e:
            w["exited_ns"] = e["exited_ns"]
            w["exit_from_ns"] = e.get("exit_permit_ns") or w.get("measure_end_ns")


def samples_beside(events, workers=None):
    """{(worker serial, instance, sample, side): (beside one on its GPU, beside one on another GPU)}:
    whether each sample's timed region overlapped another worker's context creation
    (context_begin_ns to device_ready_ns) or exit (its exit permit, else measure_end_ns, to the
    orchestrator seeing it gone)."""
    if workers is None:
        workers = [e for e in events if e.get("type") == "worker" and e.get("what") == "measure"]
        for w in workers:
            w.setdefault("context_begin_ns", w.get("attached_ns"))
        add_exits(events, workers)
    busy = [(w["serial"], w.get("gpu", 0), w["context_begin_ns"], w["device_ready_ns"]) for w in workers
            if w.get("context_begin_ns") and w.get("device_ready_ns")]
    busy += [(w["serial"], w.get("gpu", 0), w["exit_from_ns"], w["exited_ns"]) for w in workers
             if w.get("exited_ns") and w.get("exit_from_ns")]
    busy += dropped_busy(events)
    def overlaps(s, same_gpu):
        return any(serial != s["worker_serial"] and (g == s.get("gpu", 0)) == same_gpu and a < s["end_ns"] and
                   b > s["begin_ns"] for serial, g, a, b in busy)
    return {(s["worker_serial"], s["instance"], s["sample"], s["side"]): (overlaps(s, True), overlaps(s, False))
            for s in events if s.get("type") == "sample"}


def dropped_busy(events):
    """The contexts and exits of workers started for a look (or the measurement after calibration)
    that did not take them ("worker_dropped" events: killed before any set-up), as samples_beside
    counts them: [(serial, gpu, begin, end)]."""
    exits = {e["serial"]: e["exited_ns"] for e in events if e.get("type") == "worker_exit"}
    busy = []
    for d in (e for e in events if e.get("type") == "worker_dropped"):
        if d.get("context_begin_ns") and d.get("device_ready_ns"):
            busy.append((d["serial"], d.get("gpu", 0), d["context_begin_ns"], d["device_ready_ns"]))
        elif d.get("context_begin_ns"):  # killed while making its context
            busy.append((d["serial"], d.get("gpu", 0), d["context_begin_ns"], d["dropped_ns"]))
        if d["serial"] in exits:
            busy.append((d["serial"], d.get("gpu", 0), d["dropped_ns"], exits[d["serial"]]))
    return busy


def samples_beside_setup(events, workers):
    """How many samples' timed regions overlapped another worker's set-up (released_ns to
    prepared_ns) on their GPU."""
    setups = [(w["serial"], w.get("gpu", 0), w["released_ns"], w["prepared_ns"]) for w in workers
              if w.get("released_ns") and w.get("prepared_ns")]
    return sum(1 for s in events if s.get("type") == "sample" and
               any(serial != s["worker_serial"] and g == s.get("gpu", 0) and a < s["end_ns"] and b > s["begin_ns"]
                   for serial, g, a, b in setups))


def main():
    args = sys.argv[1:]
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        json_out = args[i + 1]
        del args[i:i + 2]
    rows = [phases(r) for r in args]
    print("| run | samples/min | ms per worker | workers per batch | start | permit | context | waiting | setup | held "
          "| measure | untimed in measure | handoff | hold | exit | measuring share "
          "| samples beside a context or exit | ... on another GPU | samples beside a set-up |")
    print("| --- " * 19 + "|")
    for r in rows:
        cell = lambda k: "—" if r[k]["median"] is None else f"{r[k]['median']:.1f}"
        print(f"| {r['run'].rstrip('/').split('/')[-1]} | {r['samples_per_minute']:.0f} | {r['wall_ms_per_worker']:.1f} | "
              f"{r['workers_per_batch']:g} | "
              f"{cell('start_ms')} | {cell('permit_ms')} | {cell('context_ms')} | {cell('waiting_ms')} | "
              f"{cell('setup_ms')} | {cell('held_ms')} | {cell('measure_ms')} | {cell('untimed_in_measure_ms')} | "
              f"{cell('handoff_ms')} | {cell('hold_ms')} | {cell('exit_ms')} | "
              f"{r['measure_share']*100:.1f}% | {r['samples_beside_context_or_exit']} of {r['samples']} | "
              f"{r['samples_beside_other_gpu_context_or_exit']} | {r['samples_beside_setup']} |")
    if json_out:
        json.dump(rows, open(json_out, "w"), indent=1)


if __name__ == "__main__":
    main()
