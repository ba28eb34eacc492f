"""Figures of A/B runs: compare's verdicts, re-derived from both sides' samples."""
import math
import statistics

from .. import fmt
from ..stats import BrunnerMunzel, HodgesLehmann, holm, verdict
from . import FigureError, _gate, _gpus, _instance, _name, _option, kind

VERDICTS = ("SLOWER", "FASTER", "SAME", "UNCERTAIN")

class Comparison:
    """compare's verdicts for one run's baseline (side 0) against its candidate (side 1), or two
    runs' side 0, re-derived: BM two-sided p, Holm over the instances, the HL ratio's 95%
    interval, alpha 0.001, the 2% floor."""

    def __init__(self, a_values, b_values, alpha=0.001, threshold=0.02):
        self.ids = [i for i in a_values if len(a_values[i]) > 1 and len(b_values.get(i, [])) > 1]
        self.hl = {i: HodgesLehmann(a_values[i], b_values[i]) for i in self.ids}
        p = [BrunnerMunzel(a_values[i], b_values[i]).p for i in self.ids]
        self.p_holm = dict(zip(self.ids, holm(p)))
        self.medians = {i: (statistics.median(a_values[i]), statistics.median(b_values[i])) for i in self.ids}
        self.n = {i: (len(a_values[i]), len(b_values[i])) for i in self.ids}
        self.verdicts = {i: verdict(self.hl[i].lo, self.hl[i].hi, self.p_holm[i], alpha, threshold) for i in self.ids}

    def count(self, name):
        return sum(1 for v in self.verdicts.values() if v == name)

    def geometric_mean(self):
        return math.exp(sum(math.log(h.ratio) for h in self.hl.values()) / len(self.hl))

def _ab(ctx, path):
    run = ctx.run(path)
    # An instance a look stopped counts the samples that look used (none more were taken, unless
    # its call measured the look after it too).
    stops = run.look_stops()
    comparison = Comparison(run.values_through(0, stops), run.values_through(1, stops))
    if not comparison.ids:
        raise FigureError(f"{path}: not an A/B run (no instance has samples on both sides)")
    _check_against_printed(ctx, path, comparison)
    return run, comparison

def _check_against_printed(ctx, path, comparison):
    """The verdicts compare printed at the time (RUN.out beside the run, when it is a table) must
    be the ones re-derived."""
    folder, rel = ctx.locate(path)
    out = f"{rel}.out"
    if not folder.is_file(out):
        return
    printed = {}
    for line in folder.text(out).splitlines():
        words = [w for w in line.split() if w != "|"]  # the plain table or its Markdown form
        found = [w for w in words[1:] if w in VERDICTS]
        # A row names an instance; a summary line ("outcome: 1 compared: 1 SLOWER") is not one.
        if len(words) > 3 and found and not words[0].endswith(":"):
            printed[words[0]] = found[-1]
    for i, v in printed.items():
        if comparison.verdicts.get(i) != v:
            raise FigureError(f"{path}: {i}: {rel}.out says {v}, the samples give {comparison.verdicts.get(i)}")

@kind("ab")
def ab(ctx, args, opts):
    """One row per A/B run: its settings, the verdicts counted, the geometric mean of the HL
    ratios, and its GPU. Verdicts re-derived from the samples and checked against the table
    compare printed at the time (RUN.out)."""
    rows, n = [], set()
    for path in args:
        run, c = _ab(ctx, path)
        s = run.settings()
        n.update(c.n.values())
        rows.append([f"`{_name(path)}`", s["prestart"], _gate(s), f"{s['idle_gap_ms']:g} ms", c.count("SLOWER"),
                     c.count("UNCERTAIN"), c.count("SAME"), c.count("FASTER"), fmt.ratio(c.geometric_mean()),
                     _gpus([run])])
    sizes = ", ".join(f"{a} and {b}" for a, b in sorted(n))
    return fmt.table(["run", "pre-start", "gate", "idle gap", "SLOWER", "UNCERTAIN", "SAME", "FASTER",
                      "geometric mean of HL ratios", "GPU"], rows) + \
        f"\n\nSamples per side: {sizes}; alpha 0.001 after Holm, noise floor 2%, 95% intervals."

@kind("ab_instances")
def ab_instances(ctx, args, opts):
    """Per instance of one A/B run: medians, HL ratio with its 95% interval, Holm-adjusted p and
    the verdict."""
    run, c = _ab(ctx, args[0])
    rows = []
    for i in c.ids:
        h = c.hl[i]
        rows.append([f"`{i}`", f"{c.n[i][0]} / {c.n[i][1]}", fmt.time(c.medians[i][0]), fmt.time(c.medians[i][1]),
                     f"{fmt.ratio(h.ratio)} [{fmt.ratio(h.lo)}, {fmt.ratio(h.hi)}]", f"{c.p_holm[i]:.3g}", c.verdicts[i]])
    return fmt.table(["instance", "n A / B", "median A", "median B", "HL ratio B/A [95%]", "p Holm", "verdict"], rows)

@kind("verdicts")
def verdicts(ctx, args, opts):
    """How many of an A/B run's instances got a verdict: `verdicts RUN SLOWER` -> "3 of 9". The
    verdicts are compare's fixed-n rule over the samples each instance used (95% intervals, Holm
    over the instances): all it took, or, where a look of a sequential run stopped it, the samples
    that look used. For a run sampled until a verdict that is not the look that stopped each
    instance (its interval at the look's wider confidence, its p at the look's level): an instance
    left UNCERTAIN at its last look can count as SAME here. Quote such a run's own outcome line
    (`quote RUN.out "outcome: \\d+ compared: ([^;]*);"`) where the counts of UNCERTAIN matter."""
    _, c = _ab(ctx, args[0])
    return f"{c.count(args[1])} of {len(c.ids)}"

@kind("most_samples")
def most_samples(ctx, args, opts):
    """The most samples a side took for any instance of an A/B run: a sequential run's looks
    (`most_samples RUN` -> "16")."""
    run, c = _ab(ctx, args[0])
    return str(max(len(run.values(side)[i]) for i in c.ids for side in (0, 1)))

@kind("same_verdicts")
def same_verdicts(ctx, args, opts):
    """Whether several A/B runs gave one verdict to the same instances: `same_verdicts RUN...
    verdict=SLOWER` -> "the same 6 instances in all 7 runs: cast 16M, ..." or each run's set."""
    name = _option(opts, "verdict", "SLOWER")
    sets = {path: sorted(i for i, v in _ab(ctx, path)[1].verdicts.items() if v == name) for path in args}
    first = next(iter(sets.values()))
    if all(s == first for s in sets.values()):
        return (f"the same {len(first)} instances in all {len(sets)} runs: "
                + ", ".join(fmt.short_instance(i) for i in first))
    return "; ".join(f"`{_name(p)}`: " + ", ".join(fmt.short_instance(i) for i in s) for p, s in sets.items())

@kind("hl_range")
def hl_range(ctx, args, opts):
    """The range of an A/B run's HL ratios over some instances (`instances=cast 16M;...`,
    `family=cast,rmsnorm`, or `match=n=16777216,n=134217728`: ids holding any of these), as
    changes: "+5.1% to +6.5%"."""
    _, c = _ab(ctx, args[0])
    ids = _chosen(c.ids, opts)
    ratios = [c.hl[i].ratio for i in ids]
    return f"{fmt.change(min(ratios))} to {fmt.change(max(ratios))}"

@kind("hl_envelope")
def hl_envelope(ctx, args, opts):
    """The smallest interval holding every chosen instance's HL interval (options as hl_range):
    "[1.046, 1.057]"."""
    _, c = _ab(ctx, args[0])
    ids = _chosen(c.ids, opts)
    return f"[{min(c.hl[i].lo for i in ids):.3f}, {max(c.hl[i].hi for i in ids):.3f}]"

@kind("min_p")
def min_p(ctx, args, opts):
    """An A/B run's smallest two-sided Brunner-Munzel p over its instances, and that p times the
    number of instances (Holm's factor for the smallest): "0.000155, times 12: 0.00186"."""
    run, c = _ab(ctx, args[0])
    a, b = run.values(0), run.values(1)
    p = min(BrunnerMunzel(a[i], b[i]).p for i in c.ids)
    return f"{p:.3g}, times {len(c.ids)}: {p * len(c.ids):.3g}"

def _chosen(ids, opts):
    if "match" in opts:
        return [i for i in ids if any(m in i for m in opts["match"].split(","))]
    if "instances" in opts:
        return [_instance(ids, i) for i in opts["instances"].split(";")]
    if "family" in opts:
        families = opts["family"].split(",")
        return [i for i in ids if i.split("[")[0] in families]
    return ids
