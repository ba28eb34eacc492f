#!/usr/bin/env python3
"""A set-up-batch run's cadence batch by batch, from its journal (samples.jsonl), in ms from the
first worker's spawn: what each batch's first measurement waited for.

For each batch (--setup-batch K; the journal's `batch` of `worker` events):
  workers    how many it had
  released   the batch's release into its set-up
  set up     its last worker's prepared_ns
  contexts   the contexts created beside its set-up (context_begin before the batch's first measure
             permit, device_ready after its release): how many, and of those how many belong to
             workers dropped later (`worker_dropped`: started for a look that did not take them)
  ctx done   the last of those contexts ready
  permit     the batch's first measure permit
  waited     permit - set up: the time the batch, set up, waited for the contexts (the gate)
  measured   its last worker's measure_end_ns
  setup      set up - released: the batch's set-up, its workers side by side (ms)
  measuring  the sum of its workers' measuring phases (ms)
  share      measuring / (measured - released): measuring's share of the batch's cycle, from its
             release to its last measurement (what the batch spent setting up and waiting for
             contexts is the rest; docs/measurement.md, "What bounds the measuring share")
Then the dropped workers (spawn, context, dropped, exited) and the run's end (the last exit).
Usage: batch_cadence.py RUN_DIR...
"""
import json
import sys


def events_of(run):
    with open(f"{run}/samples.jsonl") as journal:
        return [json.loads(line) for line in journal]


def cadence(events):
    workers = [e for e in events if e.get("type") == "worker"]
    dropped = [e for e in events if e.get("type") == "worker_dropped"]
    exits = {e["serial"]: e for e in events if e.get("type") == "worker_exit"}
    if not any(w.get("batch") for w in workers):
        return [], [], None
    t0 = min(e["spawned_ns"] for e in workers + dropped)
    ms = lambda ns: (ns - t0) / 1e6
    contexts = [(e.get("context_begin_ns") or 0, e.get("device_ready_ns") or 0, e in dropped)
                for e in workers + dropped if e.get("context_begin_ns")]
    batches = {}
    for w in workers:
        if w.get("batch"):
            batches.setdefault(w["batch"], []).append(w)
    rows = []
    for b, ws in sorted(batches.items()):
        released = min(w["released_ns"] for w in ws)
        set_up = max(w["prepared_ns"] for w in ws)
        permit = min(w["measure_permit_ns"] for w in ws)
        beside = [c for c in contexts if c[0] < permit and c[1] > released]
        rows.append({"batch": b, "workers": len(ws), "released": ms(released), "set_up": ms(set_up),
                     "contexts": len(beside), "dropped_contexts": sum(1 for c in beside if c[2]),
                     "contexts_done": ms(max((c[1] for c in beside), default=released)),
                     "permit": ms(permit), "waited": (permit - set_up) / 1e6,
                     "measured": ms(max(w["measure_end_ns"] for w in ws))})
        rows[-1]["setup"] = (set_up - released) / 1e6
        rows[-1]["measuring"] = sum(w["measure_end_ns"] - w["measure_begin_ns"] for w in ws) / 1e6
        rows[-1]["share"] = rows[-1]["measuring"] / (rows[-1]["measured"] - rows[-1]["released"])
    drops = [{"serial": d["serial"], "spawned": ms(d["spawned_ns"]),
              "context": (d["device_ready_ns"] - d["context_begin_ns"]) / 1e6 if d.get("device_ready_ns") else None,
              "dropped": ms(d["dropped_ns"]),
              "exited": ms(exits[d["serial"]]["exited_ns"]) if d["serial"] in exits else None} for d in dropped]
    end = ms(max(e["exited_ns"] for e in exits.values())) if exits else None
    return rows, drops, end


def main(runs):
    for run in runs:
        rows, drops, end = cadence(events_of(run))
        print(f"### {run}\n")
        if not rows:
            print("no set-up batches (one worker at a time)\n")
            continue
        print("| batch | workers | released | set up | contexts (dropped) | ctx done | permit | waited | measured "
              "| setup | measuring | share |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            print(f"| {r['batch']} | {r['workers']} | {r['released']:.0f} | {r['set_up']:.0f} | "
                  f"{r['contexts']} ({r['dropped_contexts']}) | {r['contexts_done']:.0f} | {r['permit']:.0f} | "
                  f"{r['waited']:.0f} | {r['measured']:.0f} | {r['setup']:.0f} | {r['measuring']:.0f} | "
                  f"{r['share'] * 100:.1f}% |")
        waited = sum(r["waited"] for r in rows)
        last_exit = f"{end:.0f} ms" if end is not None else "not journaled"
        print(f"\nwaited for contexts after set-up: {waited:.0f} ms in all; "
              f"{len(drops)} dropped workers; last exit {last_exit}")
        for d in drops:
            context = f"{d['context']:.0f} ms" if d["context"] is not None else "none"
            exited = f"{d['exited']:.0f}" if d["exited"] is not None else "-"
            print(f"- dropped worker {d['serial']}: spawned {d['spawned']:.0f}, context {context}, "
                  f"dropped {d['dropped']:.0f}, exited {exited}")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    main(sys.argv[1:])
