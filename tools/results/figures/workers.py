"""Figures of runs and their journals: where they ran, throughput, worker phases, how spread the
samples are. The phase and spread arithmetic is bench/gpu's own (worker_phases.py,
sample_spread.py), the scripts the H200 sessions printed their tables with."""
import json
import os
import statistics
import sys

from .. import fmt
from ..run import Run
from ..shape import shape_text
from . import FigureError, _gate, _gpus, _instance, _name, _option, kind

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "gpu"))
import batch_cadence  # noqa: E402
import sample_spread  # noqa: E402
import worker_phases  # noqa: E402

@kind("machines")
def machines(ctx, args, opts):
    """One row per session folder: its GPUs (full NVML UUIDs, from the samples or environment.json
    of every run under it), driver, CUDA, CPU cores and the time of its first and last run."""
    rows = []
    for session in args:
        folder, rel = ctx.locate(session)
        runs = _runs_under(folder, rel)
        if not runs:
            raise FigureError(f"{session}: no run directories")
        env = runs[0].environment
        gpu = env.get("gpu", {})
        names = sorted({g["name"] for r in runs for g in r.environment.get("gpu", {}).get("gpus", [])})
        times = sorted(r.environment.get("time", "") for r in runs)
        label = "(this folder)" if os.path.normpath(session) == "." else f"`{_name(session)}/`"
        rows.append([label, "<br>".join(sorted({u for r in runs for u in r.gpu_uuids()})),
                     ", ".join(names), gpu.get("driver_version", "?"), gpu.get("cuda_driver_version", "?"),
                     env.get("cpu", {}).get("logical_cores", "?"),
                     f"{times[0][11:16]}-{times[-1][11:16]}", len(runs)])
    return fmt.table(["session", "GPU (NVML UUID)", "model", "driver", "CUDA", "CPU cores", "runs (UTC)",
                      "run directories"], rows)

def _runs_under(folder, rel):
    """Every run directory (a folder with plan.json and samples.jsonl) under rel, sorted."""
    prefix = "" if rel in ("", ".") else rel.rstrip("/") + "/"
    dirs = sorted({m[:-len("/plan.json")] for m in folder.members() if m.startswith(prefix) and m.endswith("/plan.json")})
    return [Run(folder, d) for d in dirs if folder.is_file(f"{d}/samples.jsonl") and folder.is_file(f"{d}/environment.json")]

@kind("runs")
def runs(ctx, args, opts):
    """One row per run: isolation, pre-start, gate, workers started, samples, wall time and
    samples per minute of wall time (run.json), GPU."""
    per_minute = lambda r: r.samples_recorded() / r.wall_seconds() * 60
    reference = ctx.run(opts["relative_to"]) if "relative_to" in opts else None
    rows = []
    for path in args:
        r = ctx.run(path)
        s = r.settings()
        row = [f"`{_name(path)}`", f"{s['isolation']}" + (f", per {s['per']}" if s["isolation"] == "process" else ""),
               s["prestart"], _gate(s), r.info["workers_started"], f"{r.samples_recorded()} of {r.info['samples_expected']}",
               f"{r.wall_seconds():.2f} s", f"{per_minute(r):.0f}"]
        if reference:
            row.append(fmt.speedup(per_minute(r) / per_minute(reference)))
        rows.append(row + [_gpus([r])])
    header = ["run", "isolation", "pre-start", "gate", "workers", "samples", "wall time (run.json)", "samples/min"]
    if reference:
        header.append(f"against `{_name(opts['relative_to'])}`")
    return fmt.table(header + ["GPU"], rows)

def _phases(ctx, path):
    r = ctx.run(path)
    out = worker_phases.phases_of(r.events(), _name(path))
    out["above_share"] = sample_spread.spread_of(r.samples())["above_share"]
    return out


PHASE_COLUMNS = {
    "samples/min": lambda p: f"{p['samples_per_minute']:.0f}",
    "ms per worker": lambda p: fmt.ms(p["wall_ms_per_worker"]),
    "start": lambda p: fmt.ms(p["start_ms"]["median"]),
    "permit": lambda p: fmt.ms(p["permit_ms"]["median"]),
    "context": lambda p: fmt.ms(p["context_ms"]["median"]),
    "waiting": lambda p: fmt.ms(p["waiting_ms"]["median"]),
    "setup": lambda p: fmt.ms(p["setup_ms"]["median"]),
    "held": lambda p: fmt.ms(p["held_ms"]["median"]),
    "measure": lambda p: fmt.ms(p["measure_ms"]["median"]),
    "untimed": lambda p: fmt.ms(p["untimed_in_measure_ms"]["median"]),
    "handoff": lambda p: fmt.ms(p["handoff_ms"]["median"]),
    "hold": lambda p: fmt.ms(p["hold_ms"]["median"]),
    "exit": lambda p: fmt.ms(p["exit_ms"]["median"]),
    "batch": lambda p: f"{p['workers_per_batch']:g}",
    "beside setup": lambda p: f"{p['samples_beside_setup']} of {p['samples']}",
    "share": lambda p: fmt.pct(p["measure_share"]),
    "beside": lambda p: f"{p['samples_beside_context_or_exit']} of {p['samples']}",
    "above": lambda p: fmt.pct(p["above_share"]),
}

@kind("phases")
def phases(ctx, args, opts):
    """bench/gpu/worker_phases.py's medians per worker, in ms, for each run: `phases RUN...
    [columns=samples/min,context,...]`; samples/min over the measuring span."""
    columns = _option(opts, "columns", "samples/min,ms per worker,context,setup,held,measure,handoff,beside").split(",")
    rows = []
    for path in args:
        p = _phases(ctx, path)
        s = ctx.run(path).settings()
        rows.append([f"`{_name(path)}`", s["prestart"], _gate(s)] + [PHASE_COLUMNS[c](p) for c in columns])
    names = {"beside": "samples beside a context or exit", "samples/min": "samples/min (measuring span)",
             "share": "measuring share", "batch": "workers per set-up batch",
             "beside setup": "samples beside a set-up",
             "above": "share > 4% above median"}
    return fmt.table(["run", "pre-start", "gate"] + [names.get(c, c) for c in columns], rows)

@kind("phase")
def phase(ctx, args, opts):
    """One phase figure of one run: `phase RUN COLUMN` (a column of `phases`)."""
    return PHASE_COLUMNS[args[1]](_phases(ctx, args[0]))

BATCH_COLUMNS = {  # (the value, how it is written)
    "workers": (lambda b: b["workers"], str),
    "contexts": (lambda b: b["contexts"], str),
    "waited": (lambda b: b["waited"], lambda v: fmt.ms(v, 0)),
    "setup": (lambda b: b["setup"], lambda v: fmt.ms(v, 0)),
    "measuring": (lambda b: b["measuring"], lambda v: fmt.ms(v, 0)),
    "share": (lambda b: b["share"], fmt.pct),
}

@kind("batch")
def batch(ctx, args, opts):
    """One set-up batch's figure, bench/gpu/batch_cadence.py's: `batch N COLUMN RUN...`, over
    several runs their range ("18.6-20.7%"). COLUMN: workers, contexts (made beside its set-up),
    waited, setup, measuring (ms), share (measuring's share of the batch's cycle, from its release
    to its last measurement)."""
    value, write = BATCH_COLUMNS[args[1]]
    values = []
    for path in args[2:]:
        rows, _, _ = batch_cadence.cadence(ctx.run(path).events())
        found = [b for b in rows if b["batch"] == int(args[0])]
        if not found:
            raise FigureError(f"{path} has no set-up batch {args[0]}")
        values.append(value(found[0]))
    low, high = write(min(values)), write(max(values))
    if low == high:
        return low
    return f"{low.rstrip('%')}-{high}"

@kind("throughput_ratio")
def throughput_ratio(ctx, args, opts):
    """Samples per minute (measuring span) of run B over run A: "1.67x"."""
    a, b = _phases(ctx, args[0]), _phases(ctx, args[1])
    return fmt.speedup(b["samples_per_minute"] / a["samples_per_minute"])

@kind("spread")
def spread(ctx, args, opts):
    """bench/gpu/sample_spread.py per run: samples more than 4% above their instance's median."""
    rows = []
    for path in args:
        r = ctx.run(path)
        s = sample_spread.spread_of(r.samples())
        rows.append([f"`{_name(path)}`", r.settings()["prestart"], s["samples"], fmt.pct(s["above_share"]),
                     fmt.pct(s["median_relative_mad"])])
    return fmt.table(["run", "pre-start", "samples", "share > 4% above median", "median relative MAD"], rows)

@kind("above")
def above(ctx, args, opts):
    """One run's share of samples more than 4% above their instance's median."""
    return fmt.pct(sample_spread.spread_of(ctx.run(args[0]).samples())["above_share"])

@kind("outliers_beside")
def outliers_beside(ctx, args, opts):
    """Of a run's samples more than 4% above their instance's median, the share timed beside
    another worker's context creation or exit, against the share of the other samples:
    "75.0% of the outliers, against 51.1% of the other samples"."""
    r = ctx.run(args[0])
    beside = worker_phases.samples_beside(r.events())
    medians = {}
    for s in r.samples():
        medians.setdefault((s["instance"], s["side"]), []).append(s["value"])
    medians = {k: statistics.median(v) for k, v in medians.items()}
    outlier = [s["value"] > 1.04 * medians[(s["instance"], s["side"])] for s in r.samples()]
    flags = [beside[(s["worker_serial"], s["instance"], s["sample"], s["side"])][0] for s in r.samples()]
    out = [f for f, o in zip(flags, outlier) if o]
    rest = [f for f, o in zip(flags, outlier) if not o]
    return (f"{fmt.pct(sum(out) / len(out))} of the {len(out)} outliers, against {fmt.pct(sum(rest) / len(rest))} "
            f"of the {len(rest)} other samples")

@kind("held_split")
def held_split(ctx, args, opts):
    """An instance's median over the samples of workers held (set up, waiting for the measure
    permit) longer than the run's median hold, against the others: `held_split RUN INSTANCE`."""
    r = ctx.run(args[0])
    instance = _instance(r.instance_ids(), " ".join(args[1:]))
    workers = {e["serial"]: e for e in r.events() if e.get("type") == "worker" and e.get("what") == "measure"}
    held = {k: w["measure_begin_ns"] - w["prepared_ns"] for k, w in workers.items() if w.get("prepared_ns")}
    cut = statistics.median(held.values())
    longer = [s["value"] for s in r.samples() if s["instance"] == instance and held.get(s["worker_serial"], 0) > cut]
    rest = [s["value"] for s in r.samples() if s["instance"] == instance and held.get(s["worker_serial"], 0) <= cut]
    return f"{fmt.time(statistics.median(longer))} against {fmt.time(statistics.median(rest))}"

@kind("median")
def median(ctx, args, opts):
    """The median of one instance in one run: `median RUN INSTANCE [side=0]`."""
    r = ctx.run(args[0])
    values = r.values(int(_option(opts, "side", 0)))
    return fmt.time(statistics.median(values[_instance(list(values), " ".join(args[1:]))]))

@kind("clock")
def clock(ctx, args, opts):
    """The SM clock an instance's samples ran at: `clock RUN INSTANCE` -> "median 1590 MHz,
    11 of 12 samples flagged low_sm_clock"."""
    r = ctx.run(args[0])
    instance = _instance(r.instance_ids(), " ".join(args[1:]))
    samples = [s for s in r.samples() if s["instance"] == instance]
    clocks = [s["sm_clock_mhz"] for s in samples if s.get("sm_clock_mhz")]
    low = sum(1 for s in samples if "low_sm_clock" in s.get("flags", []))
    return f"median {statistics.median(clocks):.0f} MHz, {low} of {len(samples)} samples flagged `low_sm_clock`"

@kind("samples_shape")
def samples_shape(ctx, args, opts):
    """An instance's samples in one run: unimodal with its range, or its two clusters."""
    r = ctx.run(args[0])
    values = r.values(int(_option(opts, "side", 0)))
    return shape_text(values[_instance(list(values), " ".join(args[1:]))])

@kind("plan_bytes")
def plan_bytes(ctx, args, opts):
    """The device memory a run's plan asks for, summed over its instances (device_bytes)."""
    folder, rel = ctx.locate(args[0])
    plan = json.loads(folder.read(f"{rel}/plan.json"))
    return f"{sum(i['device_bytes'] for i in plan['instances']) / 2**30:.0f} GiB"
