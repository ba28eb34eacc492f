"""Figures read from raw output files: a value a test printed, a run's summary.json, compare's
JSON, bench/gpu/gpus_check.py's report. The files are the H200's own output, archived."""
import json
import os
import re

from .. import fmt
from . import FigureError, kind

@kind("quote")
def quote(ctx, args, opts):
    """A value read from a raw output file: `quote FILE REGEX` gives the regex's first group in
    the file (the H200 output itself, e.g. a test's printed ratio); it must match exactly once
    unless `nth=K` picks the K-th match."""
    text = ctx.text(args[0])
    pattern = " ".join(args[1:])
    found = re.findall(pattern, text)
    if "nth" in opts:
        return found[int(opts["nth"])]
    if len(found) != 1:
        raise FigureError(f"{args[0]}: /{pattern}/ matches {len(found)} times, expected once")
    return found[0]

@kind("quote_range")
def quote_range(ctx, args, opts):
    """The range of every match of a regex's first group in a raw output file: `quote_range FILE
    REGEX` -> "243-362"."""
    found = [float(x) for x in re.findall(" ".join(args[1:]), ctx.text(args[0]))]
    if not found:
        raise FigureError(f"{args[0]}: /{' '.join(args[1:])}/ matches nothing")
    digits = int(opts.get("digits", 2))
    if min(found) == max(found):
        return f"{min(found):.{digits}f}"
    return f"{min(found):.{digits}f}-{max(found):.{digits}f}"

@kind("median_ratio")
def median_ratio(ctx, args, opts):
    """The median of a regex's first group over every match in one raw output file against its
    median in another (two builds' commands.log, say): `median_ratio NUMERATOR_FILE
    DENOMINATOR_FILE REGEX` -> "1.05x" (`digits=` as quote_range). `denominator=REGEX` matches
    the denominator's lines with a regex of their own (two builds' runs in one log, named apart:
    `median_ratio LOG LOG "# until-\d-slower: ..." denominator="# alt-until-\d-slower: ..."`)."""
    def median(path, pattern):
        found = sorted(float(x) for x in re.findall(pattern, ctx.text(path)))
        if not found:
            raise FigureError(f"{path}: /{pattern}/ matches nothing")
        middle = len(found) // 2
        return found[middle] if len(found) % 2 else (found[middle - 1] + found[middle]) / 2
    numerator = " ".join(args[2:])
    ratio = median(args[0], numerator) / median(args[1], opts.get("denominator", numerator))
    return f"{ratio:.{int(opts.get('digits', 2))}f}x"

@kind("wall_ratio")
def wall_ratio(ctx, args, opts):
    """The ratio of two commands' wall times in a bench/gpu commands.log (its "# NAME: exit N, MS
    ms" lines): `wall_ratio FILE NUMERATOR DENOMINATOR` -> "1.09x" (`digits=` as quote_range). A
    side named NAME+NAME... is the commands' summed wall time (an A/B against a native run of
    each side: `wall_ratio FILE ab native-baseline+native-candidate`)."""
    text = ctx.text(args[0])

    def ms(name):
        found = re.findall(r"# %s: exit \d+, (\d+) ms" % re.escape(name), text)
        if len(found) != 1:
            raise FigureError(f"{args[0]}: the command {name} is there {len(found)} times, expected once")
        return float(found[0])

    def total(names):
        return sum(ms(name) for name in names.split("+"))
    return f"{total(args[1]) / total(args[2]):.{int(opts.get('digits', 2))}f}x"


@kind("summary_range")
def summary_range(ctx, args, opts):
    """The range of one field of a run's summary.json (written by the run: medians, and the
    TFLOP/s or GB/s its kernels compute from them) over the instances whose id holds `match`:
    `summary_range RUN tflop_per_s match=impl=lt_loop` -> "558-718 TFLOP/s"."""
    folder, rel = ctx.locate(args[0])
    summary = json.loads(folder.read(f"{rel}/summary.json"))
    field = args[1]
    values = [i[field] for i in summary["instances"] if opts.get("match", "") in i["id"] and i.get("side", 0) == 0]
    if field == "cv":  # a fraction: as percentages
        return f"{min(values) * 100:.1f}-{max(values) * 100:.1f}%"
    unit = {"tflop_per_s": " TFLOP/s", "gb_per_s": " GB/s"}.get(field, "")
    return f"{min(values):.0f}-{max(values):.0f}{unit}"

@kind("pair_ratio")
def pair_ratio(ctx, args, opts):
    """Median of the `from` instances over the matching `to` instances (the same id but for one
    parameter), their range: `pair_ratio RUN from=impl=grouped_batched to=impl=lt_loop` ->
    "2.0-2.7x"."""
    medians = ctx.run(args[0]).medians()
    ratios = []
    for i, m in medians.items():
        if opts["from"] in i:
            ratios.append(m / medians[i.replace(opts["from"], opts["to"])])
    return f"{min(ratios):.1f}-{max(ratios):.1f}x"

@kind("gpus_check")
def gpus_check(ctx, args, opts):
    """bench/gpu/gpus_check.py's output (one JSON line per run): per run, its samples, the GPUs
    they name and the problems found."""
    rows = []
    for line in ctx.text(args[0]).splitlines():
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        uuids = sorted({u for g in d["per_gpu"].values() for u in g["uuids"]})
        nvml = sorted(g["uuid"] for g in d["nvml"].values())
        rows.append([f"`{os.path.basename(d['run'])}`", d["samples"], ", ".join(uuids), ", ".join(nvml),
                     len(d["problems"])])
    return fmt.table(["run", "samples", "GPU UUIDs the samples name", "NVML's UUID for the index", "problems"], rows)

@kind("compare_json")
def compare_json(ctx, args, opts):
    """A `compare --json` output: "4 compared (SAME 4), 8 not compared: plans differ in inner"."""
    d = ctx.json(args[0])
    counts = {}
    for i in d["instances"]:
        counts[i["verdict"]] = counts.get(i["verdict"], 0) + 1
    reasons = sorted({n["reason"] for n in d["not_compared"]})
    text = f"{len(d['instances'])} compared ({', '.join(f'{v} {n}' for v, n in sorted(counts.items()))})"
    if d["not_compared"]:
        text += f", {len(d['not_compared'])} not compared: {'; '.join(reasons)}"
    return text

@kind("killed")
def killed(ctx, args, opts):
    """bench/gpu/killed_orchestrator_check.py's report (killed_orchestrator.json): per case, the
    samples journaled when orchestrate was killed, the workers alive then, how long the last of
    them lived on (or how long a SIGTERMed worker took to go) and the GPU processes left after."""
    d = ctx.json(args[0])
    rows = []
    for c in d["cases"]:
        if "gone_after_s" in c:  # SIGTERM to one measuring worker of a live run
            rows.append([f"`{c['case']}`", "—", "1 (SIGTERM)", f"{c['gone_after_s'] * 1e3:.0f} ms",
                         f"orchestrate exit {c['orchestrate_exit']}"])
        else:
            rows.append([f"`{c['case']}`", c["samples_at_kill"], len(c["lived_on_s"]),
                         f"{c['max_lived_on_s'] * 1e3:.0f} ms", len(c["gpu_processes_after"])])
    table = fmt.table(["case", "samples at SIGKILL", "workers alive then", "last one gone after",
                       "GPU processes left"], rows)
    return table + f"\n\nGPU processes before: {len(d['gpu_processes_before'])}; check passed: {'yes' if d['ok'] else 'no'}."
