#!/usr/bin/env python3
"""Reference p-values of the studentized permutation Brunner-Munzel test, by brute force.

Writes tests/data/permutation/reference.json (seeded, reproducible). Run from the repository root
(numpy and scipy from pip; R's brunnermunzel package, the published implementation, cannot be
installed from Debian's archive):

    python3 tools/permutation_reference.py [--out tests/data/permutation/reference.json]

Independent of stats/studentized_permutation.cpp by construction: it walks every one of the
C(n+m, n) subsets of the pooled values (itertools.combinations, in numpy chunks), ranks each
labelling's samples afresh with scipy.stats.rankdata and computes scipy's statistic from the
midranks, where the C++ walks per-group counts of tie groups and works from placement sums.

The definition both follow (Neubert and Brunner 2007; R's brunnermunzel.permutation.test):
  T = n m (mean pooled rank of y - mean pooled rank of x) / ((n+m) sqrt(n s_x^2 + m s_y^2)),
  s_x^2 the variance (ddof 1) of x's pooled ranks minus its within-x ranks (likewise y).
  A labelling whose variance estimate vanishes has T = +inf / -inf (complete separation, by the
  sign of the rank difference) or 0 (no difference: all values tied).
  p = share of labellings with T* >= T (less), T* <= T (greater), |T*| >= |T| (two-sided),
  "at least as extreme" allowing a relative 1e-9 (labellings equal in exact arithmetic count).
Each case: x, y, {alternative: p}, and "labellings" = C(n+m, n).
"""
import argparse
import itertools
import json
import math

import numpy as np
from scipy.stats import rankdata

ALTERNATIVES = ["two-sided", "less", "greater"]
CHUNK = 200_000


def statistics(pooled, ranks, x_index):
    """T for each row of x_index (indices into pooled that form x)."""
    total = len(pooled)
    n = x_index.shape[1]
    m = total - n
    mask = np.zeros((x_index.shape[0], total), dtype=bool)
    np.put_along_axis(mask, x_index, True, axis=1)
    y_index = np.nonzero(~mask)[1].reshape(x_index.shape[0], m)
    rx, ry = ranks[x_index], ranks[y_index]
    wx = rankdata(pooled[x_index], axis=1)
    wy = rankdata(pooled[y_index], axis=1)
    dx, dy = rx - wx, ry - wy
    sx = dx.var(axis=1, ddof=1)
    sy = dy.var(axis=1, ddof=1)
    difference = ry.mean(axis=1) - rx.mean(axis=1)
    spread = n * sx + m * sy
    # The variance of placements that are all equal can come out as 1e-30 instead of 0.
    degenerate = spread <= 1e-9 * (n * m) ** 2
    t = np.empty(x_index.shape[0])
    ok = ~degenerate
    t[ok] = n * m * difference[ok] / ((n + m) * np.sqrt(spread[ok]))
    tied = np.abs(difference) < 1e-12
    t[degenerate & tied] = 0.0
    t[degenerate & ~tied] = np.where(difference[degenerate & ~tied] > 0, np.inf, -np.inf)
    return t


def extreme(t, observed, alternative):
    slack = 1e-9 * abs(observed) if math.isfinite(observed) else 0.0
    if alternative == "less":
        return t >= observed - slack
    if alternative == "greater":
        return t <= observed + slack
    return np.abs(t) >= abs(observed) - slack


def permutation_p(x, y):
    pooled = np.array(list(x) + list(y), dtype=float)
    ranks = rankdata(pooled)
    n, total = len(x), len(pooled)
    observed = statistics(pooled, ranks, np.arange(n)[None, :])[0]
    counts = dict.fromkeys(ALTERNATIVES, 0)
    labellings = 0
    combos = itertools.combinations(range(total), n)
    while True:
        chunk = np.array(list(itertools.islice(combos, CHUNK)), dtype=np.int64)
        if chunk.size == 0:
            break
        t = statistics(pooled, ranks, chunk)
        labellings += len(t)
        for alt in ALTERNATIVES:
            counts[alt] += int(extreme(t, observed, alt).sum())
    assert labellings == math.comb(total, n)
    return observed, {alt: counts[alt] / labellings for alt in ALTERNATIVES}, labellings


def case(kind, x, y):
    x = [float(f"{v:.10g}") for v in x]
    y = [float(f"{v:.10g}") for v in y]
    observed, p, labellings = permutation_p(x, y)
    return {"kind": kind, "x": x, "y": y, "statistic": observed if math.isfinite(observed) else None,
            "p": p, "labellings": labellings}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="tests/data/permutation/reference.json")
    args = parser.parse_args()
    rng = np.random.default_rng(20261201)
    cases = []
    # Untied, timing-like: lognormal, shifted 0..10%, equal and unequal sizes (exact in C++).
    for n, m in [(2, 2), (2, 5), (3, 3), (4, 4), (4, 9), (5, 5), (6, 6), (7, 7), (8, 8), (8, 8), (8, 8),
                 (9, 6), (10, 10), (11, 11), (12, 12), (12, 12), (3, 12)]:
        for shift in [1.0, 1.03, 1.1]:
            cases.append(case("untied", rng.lognormal(0, 0.05, n), shift * rng.lognormal(0, 0.05, m)))
    # The case: one inverted pair at n = 8, and near separation the other way.
    cases.append(case("one_inversion", [1, 2, 3, 4, 5, 6, 7, 9.5], [8, 10, 11, 12, 13, 14, 15, 16]))
    cases.append(case("one_inversion", [9, 10, 11, 12, 13, 14, 15, 16, 17, 18], [1, 2, 3, 4, 5, 6, 7, 8, 9.5, 19]))
    # Complete separation (T infinite) and all tied (T = 0).
    cases.append(case("separation", rng.uniform(1, 2, 6), rng.uniform(3, 4, 7)))
    cases.append(case("separation", [3.0, 3.0, 4.0], [1.0, 2.0, 2.0, 2.0]))
    cases.append(case("all_tied", [2.5] * 5, [2.5] * 4))
    # Ties: rounded values and a few distinct values (exact over tie groups in C++).
    for n, m in [(5, 5), (8, 8), (10, 9), (12, 12), (6, 11)]:
        cases.append(case("ties", np.round(rng.normal(5, 1, n), 0), np.round(rng.normal(5.5, 1, m), 0)))
    for n, m in [(6, 6), (9, 9), (12, 10)]:
        cases.append(case("heavy_ties", rng.choice([1.0, 2.0, 3.0], n), rng.choice([1.0, 2.0, 3.0, 4.0], m)))
    # Where the C++ draws labellings (Monte Carlo): 13 + 13 untied values (10.4 million
    # labellings, above the exact table's 3 million; its p near 0.035, where the draws settle:
    # tests/stats average it over seeds) and 12 + 13 lightly tied ones (more tie-group count
    # vectors than the exact walk's million).
    cases.append(case("monte_carlo_untied", [1.0 + 0.01 * (i * 7 % 13) for i in range(13)],
                      [1.035 + 0.01 * (i * 5 % 13) for i in range(13)]))
    tied_x = list(np.round(rng.lognormal(0, 0.05, 12), 4))
    tied_y = list(np.round(1.03 * rng.lognormal(0, 0.05, 13), 4))
    tied_x[0] = tied_y[0]
    tied_x[1] = tied_y[1]
    cases.append(case("monte_carlo_ties", tied_x, tied_y))
    out = {"generator": "tools/permutation_reference.py", "numpy": np.__version__, "cases": cases}
    with open(args.out, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{args.out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
