"""Figures of bench/verdict_simulation (a CPU simulation of the verdict's error rates, not a GPU
run), rendered from the raw counts the program wrote: its --json file, or, for a run cut before
the file was written, the hits/trials cells of its standard output (the program prints every
count it later writes to the JSON, so nothing is lost). Every rate and interval is recomputed
here from hits and trials (stats.wilson), so a figure never repeats the program's arithmetic."""
import json
import re

from .. import fmt
from ..stats import wilson
from . import FigureError, kind

COUNT = re.compile(r"(\d+)/(\d+) = ")
AA_COLUMNS = ("raw_test", "single", "sweep_family_wise")


def _count(hits, trials):
    """15/20000 = 0.075% [0.045, 0.124]: three decimals, as rates near alpha 0.001 need."""
    lo, hi = wilson(hits, trials)
    return f"{hits}/{trials} = {100 * hits / trials:.3f}% [{100 * lo:.3f}, {100 * hi:.3f}]"


def _stdout_rows(text, heading):
    """The table rows under a '## N.' heading of the program's output, as lists of cells."""
    start = text.find(heading)
    if start < 0:
        raise FigureError(f"no section '{heading}' in the simulation's output")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("| ") and not line.startswith("| ---"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows[1:]  # the header


def _hits(cell):
    m = COUNT.match(cell)
    if not m:
        raise FigureError(f"'{cell}' is not a hits/trials count")
    return {"hits": int(m.group(1)), "trials": int(m.group(2))}


def _section(ctx, path, key, heading, parse_row):
    """The rows of one section: the JSON's `key`, else parsed from the output's table."""
    text = ctx.text(path)
    if path.endswith(".json"):
        data = json.loads(text)
        if key not in data:
            raise FigureError(f"{path}: no '{key}' (the run did not reach that section)")
        return data[key]
    return [parse_row(cells) for cells in _stdout_rows(text, heading)]


@kind("simulation_size")
def simulation_size(ctx, args, opts):
    """Section 1, the asymptotic t test's size: per n, p_t < level over labellings, divided by
    the level, with its Wilson interval: `simulation_size section1-counts.json`."""
    rows = _section(ctx, args[0], "asymptotic_size", "## 1.", None)
    levels = rows[0]["levels"]
    out = []
    for r in rows:
        cells = [r["n"], r["labellings"]]
        for level, hits in zip(r["levels"], r["hits"]):
            lo, hi = wilson(hits, r["labellings"])
            cells.append(f"{hits / r['labellings'] / level:.2f} [{lo / level:.2f}, {hi / level:.2f}]")
        out.append(cells)
    return fmt.table(["n per side", "labellings"] + [f"p_t < {level:g}: rate / level" for level in levels], out)


@kind("simulation_aa")
def simulation_aa(ctx, args, opts):
    """Section 2, A/A false verdicts at fixed n: the raw test, one comparison's verdict and the
    family-wise rate of sweeps under Holm: `simulation_aa FILE` (the JSON or the output)."""
    def parse(cells):
        return {"distribution": cells[0], "n": int(cells[1]),
                **{k: _hits(c) for k, c in zip(AA_COLUMNS, cells[2:5])}}

    rows = _section(ctx, args[0], "aa_fixed", "## 2.", parse)
    out = [[r["distribution"], r["n"]] + [_count(r[k]["hits"], r[k]["trials"]) for k in AA_COLUMNS] for r in rows]
    return fmt.table(["distribution", "n per side", "raw test p < alpha", "one comparison",
                      "50-instance sweeps under Holm"], out)


@kind("simulation_aa_holds")
def simulation_aa_holds(ctx, args, opts):
    """How many of section 2's intervals hold the alpha of the file: "54 of 54"."""
    rows = _section(ctx, args[0], "aa_fixed", "## 2.", lambda cells: {k: _hits(c) for k, c in zip(AA_COLUMNS, cells[2:5])})
    alpha = float(opts.get("alpha", "0.001"))
    cells = [wilson(r[k]["hits"], r[k]["trials"]) for r in rows for k in AA_COLUMNS]
    return f"{sum(lo <= alpha for lo, _ in cells)} of {len(cells)}"


def _json_section(ctx, path, key):
    data = ctx.json(path)
    if key not in data:
        raise FigureError(f"{path}: no '{key}' (the run did not reach that section)")
    return data[key]


@kind("simulation_sequential")
def simulation_sequential(ctx, args, opts):
    """Section 3, A/A under the sequential rule per spending function: one instance's false
    verdicts and mean samples per side, the asymptotic t at alpha at every look (the trap),
    50-instance sweeps' family-wise rate: `simulation_sequential section3-counts.json`."""
    out = []
    for r in _json_section(ctx, args[0], "aa_sequential"):
        trap = r.get("asymptotic_every_look")
        out.append([r["spending"], r["distribution"], _count(r["single"]["hits"], r["single"]["trials"]),
                    f"{r['mean_samples']:.1f}", _count(trap["hits"], trap["trials"]) if trap else "-",
                    _count(r["sweep_family_wise"]["hits"], r["sweep_family_wise"]["trials"]),
                    f"{r['sweep_mean_samples']:.1f}"])
    return fmt.table(["spending", "distribution", "one instance: false verdicts", "mean samples per side",
                      "asymptotic t at alpha at every look (the trap)", "50-instance sweeps: family-wise",
                      "mean samples per side"], out)


def _power_cell(c):
    lo, hi = wilson(c["hits"], c["trials"])
    return f"{fmt.pct(c['hits'] / c['trials'])} [{fmt.pct_bound(lo)}, {fmt.pct_bound(hi)}]"


@kind("simulation_power")
def simulation_power(ctx, args, opts):
    """Section 4, SLOWER verdicts at fixed n and under the sequential rule (mean samples per
    side in parentheses): `simulation_power section4-counts.json`."""
    rows = _json_section(ctx, args[0], "power")
    sequential = [(s["spending"], s["instances"]) for s in rows[0]["sequential"]]
    out = []
    for r in rows:
        cells = [r["distribution"], f"{r['slowdown'] * 100:g}%"]
        cells += [_power_cell(r[f"fixed_n{n}"]) for n in (8, 12, 20, 30)] + [_power_cell(r["fixed_n12_m50"])]
        cells += [f"{_power_cell(s['slower'])} ({s['mean_samples']:.1f})" for s in r["sequential"]]
        out.append(cells)
    return fmt.table(["distribution", "slowdown", "n = 8", "n = 12", "n = 20", "n = 30", "n = 12, m = 50"]
                     + [f"{s} m = {m} (mean n)" for s, m in sequential], out)


@kind("simulation_value")
def simulation_value(ctx, args, opts):
    """One cell of section 3 or 4, for a sentence: `simulation_value FILE SECTION FIELD...
    distribution=... [spending=...] [pct=5]`, FIELD a path into the row (sequential rows by
    spending and m: `sequential Pocock 1 slower`); a count reads "0/5000 = 0.000% [...]", a
    rate of power "38.5% [...]", a mean "8.1"."""
    rows = _json_section(ctx, args[0], args[1])
    match = [r for r in rows if r["distribution"] == opts["family"]
             and ("variant" not in opts or r.get("spending") == opts["variant"])
             and ("pct" not in opts or round(r["slowdown"] * 100) == int(opts["pct"]))]
    if len(match) != 1:
        raise FigureError(f"{args[0]}: {len(match)} rows of {args[1]} match {opts}")
    value, path = match[0], args[2:]
    while path:
        if path[0] == "sequential":
            value = next(s for s in value["sequential"] if s["spending"] == path[1] and s["instances"] == int(path[2]))
            path = path[3:]
        else:
            value, path = value[path[0]], path[1:]
    if isinstance(value, dict):
        return _count(value["hits"], value["trials"]) if args[1] == "aa_sequential" else _power_cell(value)
    return f"{value:.1f}"
