"""The statistics the figures need, written from their definitions in plain Python (no numpy, no
scipy: CI's Python has neither), independently of stats/ in C++.

These are the rules the tool applied when the committed data was taken: the asymptotic
Brunner-Munzel test (Student t with Welch-Satterthwaite df, as scipy.stats.brunnermunzel), with
isobench's defined answers where scipy gives NaN (complete separation: the share of labellings at
least as extreme, 2/C(n+m, n) two-sided; every value tied: p = 1); the Hodges-Lehmann ratio of
log times with its distribution-free interval; Holm's step-down adjustment; the Wilson interval.
A results folder measured after the p-value changes (the studentized permutation test) needs that
test here before its verdicts can be re-derived: `brunner_munzel` is the one place to add it.

The test in tests/tools/ checks `brunner_munzel` against scipy's own values in
tests/data/scipy/reference.json.
"""
import math
from bisect import bisect_left, bisect_right
from statistics import NormalDist, median

# --- Student t tail through the regularized incomplete beta function ---------------------------


def _beta_continued_fraction(a, b, x):
    # Lentz's method for the continued fraction of I_x(a, b) (Numerical Recipes, 6.4).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return h


def regularized_beta(a, b, x):
    """I_x(a, b). The fraction is evaluated on the side where it converges fast, so a small
    tail keeps its relative precision."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_continued_fraction(b, a, 1 - x) / b


def student_t_two_sided(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return regularized_beta(df / 2, 0.5, df / (df + t * t))


# --- Brunner-Munzel ---------------------------------------------------------------------------


def _placements(own, other_sorted):
    """For each value of `own`: how many values of the other sample lie below it, ties counting
    half. A value's pooled midrank is its midrank within its own sample plus this."""
    return [bisect_left(other_sorted, v) + 0.5 * (bisect_right(other_sorted, v) - bisect_left(other_sorted, v))
            for v in own]


def _labellings(n, m):
    return math.comb(n + m, n)


class BrunnerMunzel:
    """Two-sided Brunner-Munzel test of x against y. `p` as isobench computed it (see the module
    text); `effect` = P(X < Y) + P(X = Y) / 2, above 1/2 when y tends to be larger."""

    def __init__(self, x, y):
        if len(x) < 2 or len(y) < 2:
            raise ValueError("Brunner-Munzel needs at least 2 values per side")
        nx, ny = len(x), len(y)
        sx_sorted, sy_sorted = sorted(x), sorted(y)
        px, py = _placements(sx_sorted, sy_sorted), _placements(sy_sorted, sx_sorted)
        mpx, mpy = sum(px) / nx, sum(py) / ny
        mean_x, mean_y = (nx + 1) / 2 + mpx, (ny + 1) / 2 + mpy  # mean pooled midranks
        sx = sum((p - mpx) ** 2 for p in px) / (nx - 1)
        sy = sum((p - mpy) ** 2 for p in py) / (ny - 1)
        self.effect = mpy / nx
        spread = nx * sx + ny * sy
        if spread == 0:
            if mean_x == mean_y:
                self.p = 1.0  # every value tied
                return
            # Complete separation: this labelling and, when the pooled values allow it, its mirror.
            ordered = sorted(sx_sorted + sy_sorted)
            upper = ny if mean_x < mean_y else nx
            mirror = ordered[upper - 1] < ordered[upper]
            self.p = (2 if mirror else 1) / _labellings(nx, ny)
            return
        statistic = nx * ny * (mean_y - mean_x) / ((nx + ny) * math.sqrt(spread))
        df = spread ** 2 / ((nx * sx) ** 2 / (nx - 1) + (ny * sy) ** 2 / (ny - 1))
        self.p = min(1.0, student_t_two_sided(statistic, df))


def brunner_munzel(x, y):
    return BrunnerMunzel(x, y)


def slowdown_detected(baseline, slowed, alpha):
    """Calibration's power rule: significant at alpha and the slowed side tends to be larger."""
    r = BrunnerMunzel(baseline, slowed)
    return r.p < alpha and r.effect > 0.5


# --- Hodges-Lehmann ratio ---------------------------------------------------------------------


def _mann_whitney_cdf(n, m):
    """P(U <= u) for u = 0..n*m under the null, without ties. U's counts are the coefficients of
    the Gaussian binomial [n+m choose n]_q = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i)."""
    size = n * m + 1
    counts = [1] + [0] * (size - 1)
    for i in range(1, n + 1):
        for u in range(size - 1, m + i - 1, -1):  # times (1 - q^(m+i))
            counts[u] -= counts[u - m - i]
        for u in range(i, size):  # divided by (1 - q^i)
            counts[u] += counts[u - i]
    total = math.comb(n + m, n)
    cdf, running = [], 0
    for c in counts:
        running += c
        cdf.append(running / total)
    return cdf


def _interval_rank(n, m, tail):
    k = min(n, m)
    if k * k * (n + m) ** 2 / 4 <= 2e7:  # the C++ side's "affordable" exact distribution
        cdf = _mann_whitney_cdf(n, m)
        rank = 0
        while rank < len(cdf) and cdf[rank] <= tail:
            rank += 1
        return rank
    z = NormalDist().inv_cdf(1 - tail)
    return max(0, round(n * m / 2 - z * math.sqrt(n * m * (n + m + 1) / 12)))


class HodgesLehmann:
    """Ratio candidate/baseline: exp of the median of log(candidate) - log(baseline) over every
    pair, with the distribution-free interval from the Mann-Whitney distribution."""

    def __init__(self, baseline, candidate, confidence=0.95):
        differences = sorted(math.log(c) - math.log(b) for b in baseline for c in candidate)
        pairs = len(differences)
        self.ratio = math.exp(median(differences))
        rank = min(_interval_rank(len(baseline), len(candidate), (1 - confidence) / 2), pairs // 2)
        if rank == 0:
            self.lo, self.hi = 0.0, math.inf
        else:
            self.lo, self.hi = math.exp(differences[rank - 1]), math.exp(differences[pairs - rank])


# --- verdicts ---------------------------------------------------------------------------------


def holm(p_values):
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def verdict(lo, hi, p_adjusted, alpha=0.001, threshold=0.02):
    """compare's rule: significance after Holm and an interval beyond (or inside) the floor."""
    if p_adjusted < alpha and lo > 1 + threshold:
        return "SLOWER"
    if p_adjusted < alpha and hi < 1 / (1 + threshold):
        return "FASTER"
    if 1 / (1 + threshold) <= lo and hi <= 1 + threshold:
        return "SAME"
    return "UNCERTAIN"


def wilson(hits, trials, confidence=0.95):
    """(lower, upper) of the Wilson score interval; 0 and 1 exactly at the ends."""
    if trials == 0:
        return (0.0, 0.0)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = hits / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (0.0 if hits == 0 else max(0.0, center - half), 1.0 if hits == trials else min(1.0, center + half))
