"""Whether a sample is unimodal: a median over two clusters measures neither, so figures show the
clusters instead."""
from . import fmt


def clusters(values, gap=0.04):
    """None (unimodal), or the two clusters of a sample that is not: split at the widest gap
    between neighbouring sorted values that leaves at least 3 values on each side, when that gap
    exceeds `gap` of the lower value."""
    v = sorted(values)
    best = max(range(3, len(v) - 2), key=lambda k: v[k] / v[k - 1], default=None)
    if best is None or v[best] / v[best - 1] - 1 <= gap:
        return None
    return v[:best], v[best:]


def shape_text(values):
    split = clusters(values)
    if not split:
        return f"unimodal, {fmt.time(min(values))}-{fmt.time(max(values))}"
    low, high = split
    return (f"**bimodal**: {len(low)} at {fmt.time(low[0])}-{fmt.time(low[-1])}, "
            f"{len(high)} at {fmt.time(high[0])}-{fmt.time(high[-1])}")
