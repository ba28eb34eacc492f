#!/usr/bin/env python3
"""Reference values for isobench's stats/ from scipy and numpy.

Writes tests/data/scipy/reference.json (seeded, reproducible). Run from the repository root:

    python3 tools/scipy_reference.py [--out tests/data/scipy/reference.json]

Each two-sample case holds x, y and what scipy says:
  brunnermunzel[distribution][alternative] = {"statistic", "pvalue"} (null where scipy gives NaN)
  mannwhitneyu[alternative] = {"statistic", "pvalue", "method"} (method='auto', use_continuity=True;
  "method" is the one scipy's auto rule picks)
  percentiles = {"q": [...], "x": [...]} numpy.percentile of x (method 'linear', the default)
Multiple-testing cases hold p-values and Holm / Benjamini-Hochberg adjustments, written here
with numpy (statsmodels is not installed) following statsmodels.stats.multitest.multipletests.
"""
import argparse
import json
import math
import warnings

import numpy as np
import scipy
from scipy import stats
from scipy.stats._mannwhitneyu import _mwu_choose_method

ALTERNATIVES = ["two-sided", "less", "greater"]
QUANTILES = [0, 10, 25, 33.3, 50, 75, 90, 99, 100]


def finite_or_none(v):
    v = float(v)
    return v if math.isfinite(v) else None


def compact(values):
    # 10 significant digits keep the file small; scipy is then run on exactly these values.
    return [float(f"{v:.10g}") for v in values]


def two_sample_case(kind, x, y):
    x, y = compact(x), compact(y)
    case = {"kind": kind, "x": x, "y": y, "brunnermunzel": {}, "mannwhitneyu": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dist in ["t", "normal"]:
            case["brunnermunzel"][dist] = {}
            for alt in ALTERNATIVES:
                r = stats.brunnermunzel(x, y, alternative=alt, distribution=dist)
                p = finite_or_none(r.pvalue)
                case["brunnermunzel"][dist][alt] = {
                    "statistic": finite_or_none(r.statistic) if p is not None else None,
                    "pvalue": p,
                }
        ties = len(set(x + y)) < len(x) + len(y)
        case["mannwhitneyu_method"] = _mwu_choose_method(len(x), len(y), ties)
        for alt in ALTERNATIVES:
            r = stats.mannwhitneyu(x, y, use_continuity=True, alternative=alt, method="auto")
            case["mannwhitneyu"][alt] = {"statistic": float(r.statistic), "pvalue": finite_or_none(r.pvalue)}
    case["percentiles"] = {"q": QUANTILES, "x": [float(v) for v in np.percentile(np.array(x), QUANTILES)]}
    return case


def holm(p):
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="mergesort")
    adjusted_sorted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted_sorted
    return out


def benjamini_hochberg(p):
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="mergesort")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = adjusted_sorted
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/data/scipy/reference.json")
    args = parser.parse_args()
    rng = np.random.default_rng(20261129)
    cases = []

    # Timing-like: lognormal around 10 us, candidate shifted by 0..10%, unequal sizes.
    for _ in range(60):
        n, m = rng.integers(2, 61, size=2)
        shift = rng.choice([1.0, 1.02, 1.05, 1.1])
        sigma = rng.choice([0.01, 0.05, 0.2])
        cases.append(two_sample_case("lognormal", 1e-5 * rng.lognormal(0, sigma, n),
                                     1e-5 * shift * rng.lognormal(0, sigma, m)))
    # Sizes 2..200, wide and narrow spreads.
    for n, m in [(2, 2), (2, 3), (3, 2), (2, 200), (200, 2), (5, 7), (8, 8), (8, 9), (9, 9),
                 (8, 200), (20, 30), (50, 50), (100, 200), (200, 200), (150, 40)]:
        for spread in [1e-6, 1.0, 1e3]:
            cases.append(two_sample_case("sizes", rng.normal(10, spread, n), rng.normal(10 + spread / 3, spread, m)))
    # Small samples without ties: scipy's exact Mann-Whitney distribution.
    for _ in range(40):
        n = int(rng.integers(2, 9))
        m = int(rng.integers(2, 40))
        cases.append(two_sample_case("exact", rng.normal(0, 1, n), rng.normal(0.5, 1, m)))
    # Ties from rounding, and heavy ties from a small set of values.
    for _ in range(30):
        n, m = rng.integers(2, 80, size=2)
        cases.append(two_sample_case("ties", np.round(rng.normal(5, 1, n), 1), np.round(rng.normal(5.3, 1, m), 1)))
    for _ in range(30):
        n, m = rng.integers(2, 50, size=2)
        cases.append(two_sample_case("heavy_ties", rng.choice([1.0, 2.0, 3.0], n),
                                     rng.choice([1.0, 2.0, 3.0, 4.0], m, p=[0.1, 0.3, 0.3, 0.3])))
    # Complete separation and all-equal samples: scipy gives NaN (recorded as null).
    for n, m in [(2, 2), (3, 3), (4, 7), (30, 25)]:
        cases.append(two_sample_case("separation", rng.uniform(1, 2, n), rng.uniform(3, 4, m)))
        cases.append(two_sample_case("separation", rng.uniform(3, 4, n), rng.uniform(1, 2, m)))
        cases.append(two_sample_case("all_equal", np.full(n, 2.5), np.full(m, 2.5)))
    # Nearly separated: one overlap.
    for n, m in [(3, 3), (10, 12)]:
        x = list(rng.uniform(1, 2, n))
        y = list(rng.uniform(3, 4, m))
        x[0], y[0] = 3.5, 1.5
        cases.append(two_sample_case("near_separation", x, y))

    multiple = []
    for size in [1, 2, 5, 10, 50]:
        for _ in range(4):
            p = rng.uniform(0, 1, size) ** rng.choice([1, 3, 8])
            if size > 2:
                p[1] = p[0]  # a tie in the p-values
            p = [float(v) for v in p]
            multiple.append({"p": p, "holm": [float(v) for v in holm(p)],
                             "fdr_bh": [float(v) for v in benjamini_hochberg(p)]})

    out = {"generator": "tools/scipy_reference.py", "scipy": scipy.__version__, "numpy": np.__version__,
           "two_sample": cases, "multiple_testing": multiple}
    with open(args.out, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{args.out}: {len(cases)} two-sample cases, {len(multiple)} multiple-testing cases")


if __name__ == "__main__":
    main()
