#!/usr/bin/env python3
"""A run's wall time from `orchestrate` starting to its exit, from the run directory's own records:
what lies on the critical path besides the measuring workers' cadence.

    run_timeline.py RUN_DIR... [--commands COMMANDS_LOG] [--json OUT]

Each run's milestones, in ms from the orchestrator's start (t=0):

  zygotes ready       every side's zygote has imported the benchmarks (log "zygote-ready", else
                      run.json "started", which is written right after them)
  run start           the run directory's log begins ("run-start")
  calibration         the calibration worker's spawn, its context ready, its timed phase, its exit
  first spawn         the first measuring worker started (since 2026-12-06 behind the calibration
                      worker, before it ends)
  calibrated          the inner counts known (log "calibrated"; the run start without calibration)
  first sample        the first measuring worker's timed phase begins
  look K              the sequential design's looks (log "look")
  last sample         the last measuring worker's timed phase ends
  last exit           the last worker seen gone (journal "worker_exit")
  run end             log "run-end": samples, summary and run.json written
  verdicts            log "verdicts": the comparison made (absent in runs from before it)
  exit                the process ended

and the critical path cut into parts: before the run (t=0 to run start), calibration (run start to
the inner counts known), the first ramp (from there to the first sample), the
measuring span (first sample to last sample; the sum of the workers' timed phases in it, and the
time between looks: from the last sample before a look to the first one after it), and the end
(last sample to exit).

Where t=0 and the exit come from: t=0 from run.json's "process_started" (runs made since it was
recorded); the exit from a bench script's commands log (`--commands`; its line for the run, named
by the run directory's name, gives the wall time and the end), which also gives t=0 where run.json
does not. A log from before 2026-12-06 has the end to the second only: the end is then placed at
the earliest time the records allow (that second, or the run log's last line after it), so t=0 is
known to within a second and the figures from it are marked "~" (the before-the-run part an upper
bound, the end part a lower one). Without either, t=0 is the run directory's creation ("~").

The journal's worker times are monotonic nanoseconds; they are put on the log's clock (UTC) by the
samples, each journaled with its wall time ("time") shortly after its monotonic end: the smallest
difference is taken, within a millisecond or so of the truth.
"""
import datetime
import json
import os
import re
import sys


def utc_seconds(stamp):
    """Seconds since the epoch of an ISO-8601 UTC time as the run's files write it."""
    stamp = stamp.rstrip("Z")
    fmt = "%Y-%m-%dT%H:%M:%S.%f" if "." in stamp else "%Y-%m-%dT%H:%M:%S"
    return datetime.datetime.strptime(stamp, fmt).replace(tzinfo=datetime.timezone.utc).timestamp()


def read_log(run):
    """[(seconds, tag, text)] of the run's log.txt."""
    lines = []
    with open(os.path.join(run, "log.txt")) as log:
        for line in log:
            m = re.match(r"(\S+) \[([^\]]+)\] ?(.*)", line.rstrip("\n"))
            if m:
                lines.append((utc_seconds(m.group(1)), m.group(2), m.group(3)))
    return lines


def read_commands(path):
    """{step name: (wall seconds, end time, whether the end is to the millisecond)} of a bench
    commands log ("# NAME: exit E, W ms, ended T"; T to the second in logs from before
    2026-12-06)."""
    steps = {}
    with open(path) as log:
        for line in log:
            m = re.match(r"# (\S+): exit -?\d+, (\d+) ms, ended (\S+)", line)
            if m:
                stamp = m.group(3).rstrip(",")
                steps[m.group(1)] = (int(m.group(2)) / 1e3, utc_seconds(stamp), "." in stamp)
    return steps


def monotonic_offset(events):
    """Seconds to add to a journal's monotonic time to put it on the UTC clock, or None."""
    gaps = [e["time"] - e["end_ns"] / 1e9 for e in events if e.get("type") == "sample" and e.get("time")
            and e.get("end_ns")]
    return min(gaps) if gaps else None


def timeline(run, commands=None):
    """The milestones and parts of one run directory (see the module's docstring)."""
    with open(os.path.join(run, "samples.jsonl")) as journal:
        events = [json.loads(line) for line in journal if line.strip()]
    with open(os.path.join(run, "run.json")) as f:
        info = json.load(f)
    log = read_log(run)
    offset = monotonic_offset(events)
    if offset is None:
        raise ValueError(f"{run}: samples.jsonl has no sample with its times: nothing to place the workers by")
    wall = lambda ns: ns / 1e9 + offset  # noqa: E731
    tags = {}
    for t, tag, text in log:
        tags.setdefault(tag, []).append((t, text))

    marks = {}  # name: UTC seconds
    exact = True
    t0 = None
    if info.get("process_started"):
        t0 = utc_seconds(info["process_started"])
    if "verdicts" in tags:
        marks["verdicts"] = tags["verdicts"][-1][0]
    name = os.path.basename(os.path.normpath(run))
    if commands and name in commands:
        seconds, ended, to_ms = commands[name]
        # An end to the second lies within that second, and after the run's last log line: the
        # earliest time the records allow.
        end = ended if to_ms else max(ended, log[-1][0])
        marks["exit"] = end
        if t0 is None:
            t0 = end - seconds
            exact = to_ms
    if t0 is None:
        t0 = utc_seconds(info["started"])
        exact = False
    marks["zygotes ready"] = tags["zygote-ready"][-1][0] if "zygote-ready" in tags else utc_seconds(info["started"])
    marks["run start"] = tags["run-start"][0][0]
    workers = sorted((e for e in events if e.get("type") == "worker"), key=lambda e: e["serial"])
    exits = {e["serial"]: e["exited_ns"] for e in events if e.get("type") == "worker_exit"}
    calibration = [w for w in workers if w.get("what") == "calibration"]
    if calibration:
        c = calibration[0]
        marks["calibration spawned"] = wall(c["spawned_ns"])
        if c.get("device_ready_ns"):
            marks["calibration context ready"] = wall(c["device_ready_ns"])
        if c.get("measure_begin_ns"):
            marks["calibration timed begin"] = wall(c["measure_begin_ns"])
            marks["calibration timed end"] = wall(c["measure_end_ns"])
        if c["serial"] in exits:
            marks["calibration exited"] = wall(exits[c["serial"]])
    measuring = [w for w in workers if w.get("what") == "measure" and w.get("measure_begin_ns")]
    if not measuring:
        raise ValueError(f"{run}: samples.jsonl has no measuring worker")
    first = min(measuring, key=lambda w: w["measure_begin_ns"])
    marks["first spawn"] = wall(min(w["spawned_ns"] for w in measuring))
    marks["first sample"] = wall(first["measure_begin_ns"])
    for k, (t, text) in enumerate(tags.get("look", [])):
        marks[f"look {k + 1}"] = t
    marks["calibrated"] = tags["calibrated"][0][0] if "calibrated" in tags else marks["run start"]
    marks["last sample"] = wall(max(w["measure_end_ns"] for w in measuring))
    if exits:
        marks["last exit"] = wall(max(exits.values()))
    if "sass" in tags:
        marks["sass logged"] = tags["sass"][-1][0]
    marks["run end"] = tags["run-end"][-1][0] if "run-end" in tags else log[-1][0]

    ms = {k: round((v - t0) * 1e3, 1) for k, v in sorted(marks.items(), key=lambda kv: kv[1])}
    # The measuring span: the workers' timed phases in it, and the gaps at the looks.
    timed = sum(w["measure_end_ns"] - w["measure_begin_ns"] for w in measuring) / 1e6
    look_gaps = []
    for t, _ in tags.get("look", []):
        # The look is logged within a millisecond of the last sample before it (the log's times
        # are to the millisecond): 5 ms of slack.
        before = [w["measure_end_ns"] for w in measuring if wall(w["measure_end_ns"]) <= t + 0.005]
        after = [w["measure_begin_ns"] for w in measuring if wall(w["measure_begin_ns"]) > t]
        if before and after:
            look_gaps.append(round((min(after) - max(before)) / 1e6, 1))
    parts = {
        "before the run": ms["run start"],
        "calibration": round(ms["calibrated"] - ms["run start"], 1),
        "first ramp": round(ms["first sample"] - ms["calibrated"], 1),
        "measuring span": round(ms["last sample"] - ms["first sample"], 1),
        "timed in span": round(timed, 1),
        "look gaps": look_gaps,
        "workers": len(measuring),
    }
    if "exit" in ms:
        parts["end"] = round(ms["exit"] - ms["last sample"], 1)
        parts["total"] = ms["exit"]
    return {"run": run, "t0_exact": exact, "milestones": ms, "parts": parts}


def render(row):
    """Markdown lines of one run's timeline."""
    approx = "" if row["t0_exact"] else "~"
    lines = [f"### {row['run'].rstrip('/').split('/')[-1]}", "", "| milestone | ms from start |", "| --- | --- |"]
    lines += [f"| {k} | {approx}{v:.0f} |" for k, v in row["milestones"].items()]
    p = row["parts"]
    lines += ["", f"before the run {approx}{p['before the run']:.0f} ms, calibration {p['calibration']:.0f} ms, "
              f"first ramp {p['first ramp']:.0f} ms, measuring span {p['measuring span']:.0f} ms over "
              f"{p['workers']} workers (timed {p['timed in span']:.0f} ms; look gaps "
              f"{', '.join(f'{g:.0f}' for g in p['look gaps']) or 'none'} ms)"
              + (f", end {approx}{p['end']:.0f} ms; total {p['total']:.0f} ms" if "end" in p else ""), ""]
    return lines


def main(argv):
    args = list(argv)
    json_out = commands = None
    for flag in ("--json", "--commands"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(f"run_timeline.py: {flag} needs a file", file=sys.stderr)
                return 2
            value = args[i + 1]
            del args[i:i + 2]
            if flag == "--json":
                json_out = value
            else:
                commands = read_commands(value)
    if not args:
        print("usage: run_timeline.py RUN_DIR... [--commands COMMANDS_LOG] [--json OUT]", file=sys.stderr)
        return 2
    rows = []
    for run in args:
        try:
            rows.append(timeline(run, commands))
        except (OSError, ValueError, KeyError) as error:
            print(f"run_timeline.py: {run}: {error}", file=sys.stderr)
            return 2
    for row in rows:
        print("\n".join(render(row)))
    if json_out:
        with open(json_out, "w") as out:
            json.dump(rows, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
