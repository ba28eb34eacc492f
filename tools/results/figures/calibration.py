"""Figures of calibrate directories (calibration.py re-derives their counts from the samples)."""
import os
import statistics

from .. import fmt
from ..shape import shape_text
from ..stats import wilson
from . import _alphas, _gate, _gpus, _instance, _name, _option, kind

@kind("calibration")
def calibration(ctx, args, opts):
    """Per mode (and variant): A/A comparisons, the share flagged at each alpha with its Wilson
    95% interval, the share of real-slowdown comparisons detected at the target alpha, wall time
    per sample; with the settings and GPU below the table."""
    cal = ctx.calibration(args[0], opts)
    alphas = _alphas(opts)
    modes = opts["modes"].split(",") if "modes" in opts else None
    with_variants = len(cal.variants()) > 1
    header = ["mode"] + (["variant"] if with_variants else []) + ["A/A comparisons"]
    header += [f"flagged at alpha {a:g} [Wilson 95%]" for a in alphas]
    header += [f"real {p:g}% slowdown detected at {cal.target_alpha:g}" for p in cal.real_slowdowns]
    header += ["time per sample"]
    rows, runs = [], []
    for mode, variant in cal.rows():
        if modes and mode not in modes:
            continue
        m = cal.mode(mode, variant)
        runs += m.baseline
        cells = []
        for a in alphas:
            hits, trials = m.false_positives(a)
            cells.append(fmt.rate(hits, trials, wilson(hits, trials)))
        for p in cal.real_slowdowns:
            if p in m.slowed:
                hits, trials = m.power(p, cal.target_alpha)
                cells.append(f"{fmt.pct(hits / trials)} of {trials}")
            else:
                cells.append("— (A/A only)" if mode == "ab" else "—")
        trials = m.false_positives(alphas[0])[1]
        rows.append([f"`{mode}`"] + ([variant] if with_variants else []) + [trials] + cells +
                    [f"{m.seconds_per_sample() * 1e3:.1f} ms"])
    return fmt.table(header, rows) + "\n\n" + _calibration_settings(cal, runs, args[0])

def _calibration_settings(cal, runs, cited):
    s = runs[0].settings()
    m = cal.mode(*cal.rows()[0])
    inner = sorted({i["inner"] for r in runs for i in r.plan["instances"]})
    inner_text = f"inner {inner[0]}" if len(inner) == 1 else f"inner {inner[0]}-{inner[-1]} (calibrated per instance)"
    where = (f"From `{_name(cited)}/`: K = {cal.runs} runs per mode, n = {m.samples_per_side()} "
             f"samples per side, {len(m.instances)} instances; timer {s['timer']}, {inner_text}; pre-start "
             f"{s['prestart']}, context gate {_gate(s)}; GPU {_gpus(runs)}.")
    if not cal.recorded_p:
        return where + (" Re-derived from the samples (two-sided Brunner-Munzel, t approximation); equal to the "
                        "counts in `calibration.json`.")
    t_counts = "; ".join(f"`{mode}` {m.false_positives_t(cal.target_alpha)[0]} of {m.false_positives_t(cal.target_alpha)[1]}"
                         for mode, m in ((mode, cal.mode(mode, v)) for mode, v in cal.rows()))
    return where + (" Counts as `calibration.json` records them: the tool's studentized permutation test (a seeded "
                    "Monte Carlo bound at this n, docs/statistics.md), which `tools/results` cannot replay. On the same "
                    f"samples the t approximation flags, at alpha {cal.target_alpha:g}: {t_counts}.")

@kind("calibrations")
def calibrations(ctx, args, opts):
    """One mode of several calibrations, a row each: `calibrations DIR... [mode=process]`; the
    flagged shares at each alpha with Wilson intervals, real-slowdown power, time per sample,
    pre-start, gate and GPU."""
    mode = _option(opts, "mode", "process")
    alphas = _alphas(opts)
    cals = [ctx.calibration(path, opts) for path in args]
    pcts = sorted({p for cal in cals for p in cal.real_slowdowns})
    rows = []
    for path, cal in zip(args, cals):
        m = cal.mode(mode)
        s = m.baseline[0].settings()
        cells = []
        for a in alphas:
            hits, trials = m.false_positives(a)
            cells.append(fmt.rate(hits, trials, wilson(hits, trials)))
        for p in pcts:
            if p in m.slowed:
                hits, trials = m.power(p, cal.target_alpha)
                cells.append(fmt.pct(hits / trials))
            else:
                cells.append("—")
        rows.append([f"`{_name(path)}`", s["prestart"], _gate(s), m.false_positives(alphas[0])[1]] + cells +
                    [f"{m.seconds_per_sample() * 1e3:.1f} ms", _gpus(m.baseline)])
    header = ["calibration", "pre-start", "gate", "A/A comparisons"]
    header += [f"flagged at alpha {a:g} [Wilson 95%]" for a in alphas]
    header += [f"real {p:g}% slowdown detected at 0.001" for p in pcts] + ["time per sample", "GPU"]
    return fmt.table(header, rows) + f"\n\nMode `{mode}`; re-derived from the samples, equal to each `calibration.json`."


@kind("realised")
def realised(ctx, args, opts):
    """Per instance: what the injected slowdown really did (pooled median of the slowed runs over
    the pooled median of the baseline runs) and how often it was detected at the target alpha."""
    cal = ctx.calibration(args[0], opts)
    mode = args[1]
    m = cal.mode(mode, _option(opts, "variant", "baseline"))
    rows = []
    for pct in m.slowed:
        real = m.realised(pct)
        det = None if cal.recorded_p else m.detections(pct, cal.target_alpha)  # per instance: not recorded
        for i in m.instances:
            row = [f"`{i}`", fmt.time(statistics.median(m.pooled(i))),
                   fmt.time(statistics.median(m.pooled(i, m.slowed[pct]))), fmt.change(real[i])]
            if det:
                hits, trials = det[i]
                row.append(f"{hits} of {trials} ({fmt.pct(hits / trials)})")
            rows.append(row)
    header = ["instance", "baseline (pooled median)", "slowed (pooled median)", "realised slowdown"]
    return fmt.table(header + ([] if det is None else [f"detected at {cal.target_alpha:g}"]), rows)

@kind("flagged")
def flagged(ctx, args, opts):
    """A/A comparisons flagged: `flagged DIR MODE [alpha=0.001] [variant=...]` -> "3 of 252
    (1.2% [0.41, 3.4])"."""
    cal = ctx.calibration(args[0], opts)
    m = cal.mode(args[1], _option(opts, "variant", "baseline"))
    hits, trials = m.false_positives(float(_option(opts, "alpha", cal.target_alpha)))
    return f"{hits} of {trials} ({fmt.rate(hits, trials, wilson(hits, trials))})"

@kind("realised_range")
def realised_range(ctx, args, opts):
    """The range of realised slowdowns over some instances: `realised_range DIR MODE
    instances=ID,ID`; "+5.1% to +5.3%"."""
    cal = ctx.calibration(args[0], opts)
    m = cal.mode(args[1])
    real = m.realised(next(iter(m.slowed)))
    chosen = [real[_instance(m.instances, i)] for i in opts["instances"].split(";")]
    return f"{fmt.change(min(chosen))} to {fmt.change(max(chosen))}"

@kind("detected_range")
def detected_range(ctx, args, opts):
    """The range of per-instance detection shares: `detected_range DIR MODE instances=...`."""
    cal = ctx.calibration(args[0], opts)
    m = cal.mode(args[1])
    det = m.detections(next(iter(m.slowed)), cal.target_alpha)
    chosen = [det[_instance(m.instances, i)] for i in opts["instances"].split(";")]
    shares = [h / t for h, t in chosen]
    return f"{fmt.pct(min(shares))}-{fmt.pct(max(shares))}"

@kind("sample_size")
def sample_size(ctx, args, opts):
    """calibrate's simulated samples per side for its target power (read from calibration.json: a
    seeded simulation of the tool's own, not re-derived here), per instance."""
    cal = ctx.calibration(args[0], opts)
    rows = []
    for m in cal.recorded["modes"]:
        if m["mode"] != args[1] or m.get("variant", "baseline") != _option(opts, "variant", "baseline"):
            continue
        for s in m["sample_size"]["instances"]:
            rows.append([f"`{s['instance']}`", s["n"] if s["n"] is not None else f"> {cal.recorded['settings']['max_n']}"])
    settings = cal.recorded["settings"]
    return fmt.table(["instance", f"n per side for {fmt.pct(settings['target_power'])} power at "
                      f"{fmt.pct(settings['target_delta'])}, alpha {settings['target_alpha']:g}"], rows)

@kind("sample_size_range")
def sample_size_range(ctx, args, opts):
    """The range of calibrate's simulated n per side (calibration.json) over some instances:
    `sample_size_range DIR MODE "instances=cast 1M;..."` -> "160-364"."""
    cal = ctx.calibration(args[0], opts)
    m = next(m for m in cal.recorded["modes"] if m["mode"] == args[1] and m.get("variant", "baseline") == "baseline")
    sizes = {s["instance"]: s["n"] for s in m["sample_size"]["instances"]}
    chosen = [sizes[_instance(list(sizes), i)] for i in opts["instances"].split(";")]
    return f"{min(chosen)}-{max(chosen)}"

def _source_values(ctx, path):
    """{instance: values} of a source: a calibration mode's A/A runs pooled
    (CALIBRATION_DIR/MODE, its folder holding experiment.json) or one run's baseline side."""
    folder, rel = ctx.locate(path)
    parent = os.path.dirname(rel)
    if folder.is_file(f"{parent}/experiment.json"):
        m = ctx.calibration(os.path.join(os.path.dirname(path.rstrip("/")))).mode(os.path.basename(rel))
        return {i: m.pooled(i) for i in m.instances}
    return ctx.run(path).values(0)

@kind("pooled_medians")
def pooled_medians(ctx, args, opts):
    """Per instance, the medians of two sources side by side: `pooled_medians SOURCE_A SOURCE_B
    [label_a=...] [label_b=...]`, each a calibration mode (CALIBRATION_DIR/MODE: its A/A runs
    pooled) or a run; with their ratio and A's spread (IQR/median, quartiles interpolated)."""
    a, b = _source_values(ctx, args[0]), _source_values(ctx, args[1])
    rows = []
    for i in a:
        ma, mb = statistics.median(a[i]), statistics.median(b[i])
        q = statistics.quantiles(a[i], n=4, method="inclusive")
        rows.append([f"`{i}`", fmt.time(ma), fmt.time(mb), fmt.ratio(mb / ma), fmt.pct((q[2] - q[0]) / ma)])
    la, lb = _option(opts, "label_a", args[0]), _option(opts, "label_b", args[1])
    return fmt.table(["instance", la, lb, "ratio", f"IQR/median ({la})"], rows)

@kind("scaled_power")
def scaled_power(ctx, args, opts):
    """calibrate's power by scaling, for one instance: every A/A comparison in both orientations
    with one side multiplied by (1 + delta), detected when p < alpha and that side tends to be
    larger: `scaled_power DIR MODE INSTANCE delta=0.005` -> "60 of 60"."""
    cal = ctx.calibration(args[0], opts)
    m = cal.mode(args[1])
    delta = float(opts["delta"])
    cal.check_scaled(m, delta)
    hits, trials = m.scaled_detections(delta, cal.target_alpha)[_instance(m.instances, " ".join(args[2:]))]
    return f"{hits} of {trials}"

@kind("shapes_per_run")
def shapes_per_run(ctx, args, opts):
    """One instance's samples in each A/A run of a calibration mode: `shapes_per_run DIR MODE
    INSTANCE`."""
    cal = ctx.calibration(args[0], opts)
    m = cal.mode(args[1])
    instance = _instance(m.instances, " ".join(args[2:]))
    rows = [[f"`{r.rel}`", shape_text(r.values(0)[instance])] for r in m.baseline]
    return fmt.table(["run", f"`{instance}`"], rows)
