#!/usr/bin/env python3
"""Reference values for isobench's stats/change_point from Apache Otava itself.

Writes tests/data/otava/reference.json (seeded, reproducible). Needs Otava from PyPI:

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava
    /tmp/otava/bin/python tools/otava_reference.py [--out tests/data/otava/reference.json]

Each case holds a series (10 significant digits, and Otava runs on exactly those values), the
options, and what Otava says:
  split: PairDistanceCalculator's best split of the whole series and of two sub-intervals
         ({"begin", "end", "index", "qhat"}; the calculator is built on series[begin:end], as
         Otava's detector builds it on each window)
  weak:  otava.analysis.split() at the first-pass threshold compute_change_points() uses
         ({"index", "pvalue"})
  change_points: otava.analysis.compute_change_points() ({"index", "pvalue", "mean_before",
         "mean_after", "stddev_before", "stddev_after", "forward_change", "magnitude"})
Series are plain lists, as Otava's Series hands them to compute_change_points (its detector
slices a list per window; it would not slice a numpy array).
"""
import argparse
import importlib.metadata
import json
import math

import numpy as np
from otava.analysis import compute_change_points, split
from otava.change_point_divisive.calculator import PairDistanceCalculator


def compact(values):
    return [float(f"{v:.10g}") for v in values]


def finite_or_none(v):
    v = float(v)
    return v if math.isfinite(v) else None


def first_pass(max_p):
    # compute_change_points()'s own rule, so split() sees what it sees.
    return max_p * 10 if max_p < 0.05 else (max_p * 2 if max_p < 0.5 else max_p)


def best_split(series, begin, end):
    c = PairDistanceCalculator(np.array(series[begin:end], dtype=np.float64)).get_candidate_change_point(slice(None))
    return {"begin": begin, "end": end, "index": int(c.index) + begin, "qhat": float(c.qhat)}


def case(kind, series, window=50, max_p=0.001, min_magnitude=0.0):
    series = compact(series)
    out = {"kind": kind, "series": series, "window": window, "max_p": max_p, "min_magnitude": min_magnitude}
    n = len(series)
    if n >= 2:
        out["split"] = [best_split(series, 0, n)]
        if n >= 6:
            out["split"] += [best_split(series, 1, n // 2 + 1), best_split(series, n // 3, n)]
    weak = split(list(series), window, first_pass(max_p))
    out["weak"] = [{"index": int(c.index), "pvalue": finite_or_none(c.stats.pvalue)} for c in weak]
    cps, _ = compute_change_points(list(series), window_len=window, max_pvalue=max_p, min_magnitude=min_magnitude)
    out["change_points"] = [
        {"index": int(c.index), "pvalue": finite_or_none(c.stats.pvalue),
         "mean_before": float(c.stats.mean_1), "mean_after": float(c.stats.mean_2),
         "stddev_before": float(c.stats.std_1), "stddev_after": float(c.stats.std_2),
         "forward_change": float(c.stats.forward_rel_change()), "magnitude": float(c.stats.change_magnitude())}
        for c in cps]
    return out


def steps(rng, n, levels, at, noise):
    """A series of n values: level levels[i] from at[i-1] on, with relative normal noise."""
    bounds = [0] + list(at) + [n]
    values = []
    for level, (a, b) in zip(levels, zip(bounds, bounds[1:])):
        values += list(level * (1 + rng.normal(0, noise, b - a)))
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="tests/data/otava/reference.json")
    args = parser.parse_args()
    rng = np.random.default_rng(20261201)
    cases = []
    # The nightly series the CI checks: a 3% step planted at run 17 of 30 (index 16), and none.
    cases.append(case("nightly_step", steps(rng, 30, [1e-3, 1.03e-3], [16], 0.005)))
    cases.append(case("nightly_flat", steps(rng, 30, [1e-3], [], 0.005)))
    # Noise alone, of several lengths, windows and thresholds.
    for n in [2, 3, 5, 10, 40, 120]:
        for window, max_p in [(50, 0.001), (10, 0.05)]:
            cases.append(case("noise", steps(rng, n, [1.0], [], 0.02), window, max_p))
    # Steps up and down, one or several, over one window and several.
    for n, levels, at in [(20, [1, 1.1], [10]), (60, [1, 1.05, 0.97], [20, 41]), (150, [2, 2.2, 2.2, 1.9], [30, 70, 71]),
                          (200, [1, 1.02, 1.04, 1.08, 1.0], [40, 80, 120, 160]), (35, [5, 4], [3]), (35, [5, 6], [32])]:
        for window, max_p, min_magnitude in [(50, 0.001, 0.0), (30, 0.01, 0.0), (50, 0.001, 0.03), (8, 0.001, 0.0)]:
            cases.append(case("steps", steps(rng, n, levels, at, 0.01), window, max_p, min_magnitude))
    # Drift and outliers.
    drift = list(1 + 0.002 * np.arange(80) + rng.normal(0, 0.01, 80))
    cases.append(case("drift", drift))
    spikes = steps(rng, 60, [1.0], [], 0.01)
    spikes[12] *= 1.5
    spikes[40] *= 0.6
    cases.append(case("outliers", spikes))
    # Constant values: every distance 0.
    cases.append(case("constant", [3.0] * 12))
    cases.append(case("two_levels", [1.0] * 10 + [2.0] * 10))

    out = {"generator": "tools/otava_reference.py", "otava": importlib.metadata.version("apache-otava"),
           "numpy": np.__version__, "cases": cases}
    with open(args.out, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{args.out}: {len(cases)} cases, "
          f"{sum(len(c['change_points']) for c in cases)} change points")


if __name__ == "__main__":
    main()
