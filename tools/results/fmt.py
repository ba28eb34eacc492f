"""How figures are written: one spelling per kind of number, so the same value reads the same in
every README."""
import math


def pct(fraction):
    """27.0%, 1.2%, 0.40%, 0%: one decimal from 1% up, two below."""
    if fraction == 0:
        return "0%"
    value = fraction * 100
    return f"{value:.1f}%" if abs(value) >= 1 else f"{value:.2f}%"


def pct_bound(fraction):
    """An interval end, without the % sign: 21.9, 0.41, 0."""
    return pct(fraction)[:-1]


def rate(hits, trials, interval):
    """27.0% [21.9, 32.8]"""
    lo, hi = interval
    return f"{pct(hits / trials if trials else 0)} [{pct_bound(lo)}, {pct_bound(hi)}]"


def change(ratio, digits=1):
    """A ratio as a signed change: +5.2%, -0.3% (digits=2: +0.13%)."""
    value = (ratio - 1) * 100
    return f"{value:+.{digits}f}%"


def time(seconds):
    """202.38 us, 1.506 ms, 13.264 ms: microseconds below a millisecond."""
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.2f} us"


def ms(milliseconds, digits=1):
    return "—" if milliseconds is None or (isinstance(milliseconds, float) and math.isnan(milliseconds)) \
        else f"{milliseconds:.{digits}f}"


def ratio(value, digits=4):
    return f"{value:.{digits}f}"


def speedup(value):
    return f"{value:.2f}x"


def short_uuid(uuid):
    """GPU-cce536fc-5671-... -> cce536fc: enough to tell the cards apart in a table."""
    return uuid[4:12] if uuid.startswith("GPU-") else uuid


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def short_instance(instance_id):
    """cast[n=1048576,conversion=fp32_bf16,scale=1] -> cast 1M; the families of
    configs/calibration.yaml by their size, longer ids as they are."""
    name, _, params = instance_id.partition("[")
    fields = dict(p.split("=", 1) for p in params.rstrip("]").split(",") if "=" in p)

    def count(n):
        n = int(n)
        for unit, size in (("M", 1 << 20), ("k", 1 << 10)):
            if n % size == 0 and n >= size:
                return f"{n // size}{unit}"
        return str(n)

    if name == "cast" and "n" in fields:
        return f"cast {count(fields['n'])}"
    if name in ("rmsnorm", "layernorm") and "rows" in fields:
        return f"{name} {fields['rows']}x{fields['hidden']}"
    if name == "gemm" and {"m", "n", "k"} <= set(fields):
        m, n, k = fields["m"], fields["n"], fields["k"]
        return f"gemm {m}^3" if m == n == k else f"gemm {m}x{n}x{k}"
    return instance_id
