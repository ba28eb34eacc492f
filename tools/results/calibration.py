"""A calibration directory (`orchestrate calibrate --out DIR`), re-derived from its runs' samples:
the A/A comparisons of each mode and variant, their false-positive counts, and the power against
real (injected) slowdowns, as orchestrator/calibration/analysis.cpp defines them:

- within-run modes (ab): baseline side against candidate side of each run, per instance;
- the other modes: every pair of runs (C(K, 2)), per instance, side 0;
- a false positive: the two-sided Brunner-Munzel p below alpha;
- real power: every slowed run against every baseline run, per instance, counted when p < alpha
  and the slowed side tends to be larger.

The counts the tool wrote into calibration.json are checked against these (false positives and
real power whenever a mode is read; scaled power when a figure uses it): a disagreement is an
error (one of the two is wrong, and a figure must not quietly pick one).

The p-value re-derived here is the asymptotic t. Since 2026-12-01 the tool's own is a studentized
permutation test, exact up to 12 + 12 values and a seeded Monte Carlo bound beyond (docs/statistics.md);
the C++ draws cannot be replayed here, so a calibration with more samples per side, analysed by
that tool, reads its counts from calibration.json (`recorded=True`, a figure's `pvalues=recorded`)
and says so; the t counts stay available beside them (`false_positives_t`).
"""
import itertools
import json
import math
import statistics

from .run import Run
from .stats import BrunnerMunzel


class CalibrationError(Exception):
    pass


def _variant_path(mode, variant):
    return mode if variant == "baseline" else f"{mode}/{variant}"


def _pct_text(pct):
    return f"{pct:g}"


class ModeRuns:
    """The baseline runs and slowed runs of one (mode, variant) of a calibration."""

    def __init__(self, calibration, mode, variant):
        self.calibration, self.mode, self.variant = calibration, mode, variant
        folder, base = calibration.folder, calibration.rel
        prefix = f"{base}/{_variant_path(mode, variant)}"

        def runs(path):
            found = []
            for k in range(calibration.runs):
                rel = f"{path}/run-{k}"
                if folder.is_file(f"{rel}/plan.json") and folder.is_file(f"{rel}/run.json"):
                    found.append(Run(folder, rel))
            return found

        self.baseline = runs(prefix)
        self.slowed = {}
        if mode != "ab":
            for pct in calibration.real_slowdowns:
                slowed = runs(f"{prefix}/slowdown-{_pct_text(pct)}")
                if slowed:
                    self.slowed[pct] = slowed
        self.instances = self.baseline[0].instance_ids() if self.baseline else []

    def aa_pairs(self):
        """(instance, x, y) of every A/A comparison, in analysis.cpp's order."""
        if self.mode == "ab":
            sides = [(r.values(0), r.values(1)) for r in self.baseline]
            return [(i, a[i], b[i]) for i in self.instances for a, b in sides if len(a[i]) > 1 and len(b[i]) > 1]
        values = [r.values(0) for r in self.baseline]
        return [(i, a[i], b[i]) for i in self.instances for a, b in itertools.combinations(values, 2)
                if len(a[i]) > 1 and len(b[i]) > 1]

    def _aa_tests(self):
        if not hasattr(self, "_aa"):
            self._aa = [BrunnerMunzel(x, y) for _, x, y in self.aa_pairs()]
        return self._aa

    def false_positives(self, alpha):
        if self.calibration.recorded_p:
            return self.calibration.recorded_cell(self, "fpr", alpha)
        return self.false_positives_t(alpha)

    def false_positives_t(self, alpha):
        tests = self._aa_tests()
        return sum(1 for r in tests if r.p < alpha), len(tests)

    def _slowed_tests(self, pct):
        """{instance: [test of baseline run against slowed run, ...]}"""
        if not hasattr(self, "_slow"):
            self._slow = {}
        if pct not in self._slow:
            self._slow[pct] = {i: [BrunnerMunzel(b.values(0)[i], s.values(0)[i])
                                   for s in self.slowed[pct] for b in self.baseline
                                   if len(b.values(0)[i]) > 1 and len(s.values(0)[i]) > 1]
                               for i in self.instances}
        return self._slow[pct]

    def detections(self, pct, alpha):
        """{instance: (detected, comparisons)} against the real slowdown of pct percent."""
        if self.calibration.recorded_p:
            raise CalibrationError(f"{self.calibration.rel}: calibration.json records no per-instance detections")
        return {i: (sum(1 for r in tests if r.p < alpha and r.effect > 0.5), len(tests))
                for i, tests in self._slowed_tests(pct).items()}

    def power(self, pct, alpha):
        if self.calibration.recorded_p:
            return self.calibration.recorded_cell(self, "real_power", alpha, pct)
        d = self.detections(pct, alpha)
        return sum(h for h, _ in d.values()), sum(t for _, t in d.values())

    def scaled_detections(self, delta, alpha):
        """{instance: (detected, trials)} of calibrate's power by scaling: each A/A comparison in
        both orientations, the second side times (1 + delta)."""
        out = {i: [0, 0] for i in self.instances}
        for i, x, y in self.aa_pairs():
            for a, b in ((x, y), (y, x)):
                r = BrunnerMunzel(a, [v * (1 + delta) for v in b])
                out[i][1] += 1
                out[i][0] += r.p < alpha and r.effect > 0.5
        return {i: tuple(v) for i, v in out.items()}

    def pooled(self, instance, runs=None):
        return [v for r in (runs or self.baseline) for v in r.values(0)[instance]]

    def realised(self, pct):
        """{instance: pooled median of the slowed runs / pooled median of the baseline runs}."""
        return {i: statistics.median(self.pooled(i, self.slowed[pct])) / statistics.median(self.pooled(i))
                for i in self.instances}

    def seconds_per_sample(self):
        """Wall time per recorded sample over the baseline runs (calibrate's own "cost")."""
        samples = sum(r.samples_recorded() for r in self.baseline)
        return sum(r.wall_seconds() for r in self.baseline) / samples if samples else 0.0

    def samples_per_side(self):
        pairs = self.aa_pairs()
        return min(min(len(x), len(y)) for _, x, y in pairs) if pairs else 0


class Calibration:
    def __init__(self, folder, rel, recorded=False):
        self.folder, self.rel, self.recorded_p = folder, rel.rstrip("/"), recorded
        self.experiment = json.loads(folder.read(f"{self.rel}/experiment.json"))
        self.recorded = json.loads(folder.read(f"{self.rel}/calibration.json"))
        self.runs = self.experiment["runs"]
        self.real_slowdowns = self.experiment.get("real_slowdowns", [])
        self.target_alpha = self.experiment["analysis"]["target_alpha"]
        self._modes = {}

    def variants(self):
        return self.experiment.get("variants", ["baseline"])

    def rows(self):
        """(mode, variant) in the experiment's order."""
        return [(m, v) for m in self.experiment["modes"] for v in self.variants()]

    def mode(self, mode, variant="baseline"):
        key = (mode, variant)
        if key not in self._modes:
            self._modes[key] = ModeRuns(self, mode, variant)
            if not self.recorded_p:
                self._check(self._modes[key])
        return self._modes[key]

    def _recorded_mode(self, mode, variant):
        for m in self.recorded["modes"]:
            if m["mode"] == mode and m.get("variant", "baseline") == variant:
                return m
        raise CalibrationError(f"{self.rel}/calibration.json: no mode {mode} variant {variant}")

    def recorded_cell(self, m, key, alpha, pct=None):
        """(hits, trials) of calibration.json's false positives (key "fpr") or real power at pct."""
        recorded = self._recorded_mode(m.mode, m.variant)
        cells = recorded[key] if pct is None else next(
            p["by_alpha"] for p in recorded[key] or [] if math.isclose(p["delta"] * 100, pct))
        cell = next(c for c in cells if math.isclose(c["alpha"], alpha))
        return cell["hits"], cell["trials"]

    def check_scaled(self, m, delta):
        """Scaled power at delta, summed over instances, against calibration.json's."""
        recorded = self._recorded_mode(m.mode, m.variant)
        power = next(p for p in recorded.get("scaled_power") or [] if math.isclose(p["delta"], delta))
        cell = next(c for c in power["by_alpha"] if c["alpha"] == self.target_alpha)
        found = m.scaled_detections(delta, self.target_alpha).values()
        hits, trials = sum(h for h, _ in found), sum(t for _, t in found)
        if (hits, trials) != (cell["hits"], cell["trials"]):
            raise CalibrationError(f"{self.folder.name}/{self.rel}: {m.mode}: scaled power at {delta:g}: {hits} of "
                                   f"{trials} from the samples, {cell['hits']} of {cell['trials']} in calibration.json")

    def _check(self, m):
        recorded = self._recorded_mode(m.mode, m.variant)
        where = f"{self.folder.name}/{self.rel}: {m.mode} {m.variant}"
        for cell in recorded["fpr"]:
            hits, trials = m.false_positives(cell["alpha"])
            if (hits, trials) != (cell["hits"], cell["trials"]):
                raise CalibrationError(f"{where}: false positives at alpha {cell['alpha']}: {hits} of {trials} from "
                                       f"the samples, {cell['hits']} of {cell['trials']} in calibration.json")
        for power in recorded.get("real_power") or []:
            pct = round(power["delta"] * 100, 6)
            for cell in power["by_alpha"]:
                hits, trials = m.power(pct, cell["alpha"])
                if (hits, trials) != (cell["hits"], cell["trials"]):
                    raise CalibrationError(f"{where}: real {pct:g}% detected at alpha {cell['alpha']}: {hits} of "
                                           f"{trials} from the samples, {cell['hits']} of {cell['trials']} in "
                                           "calibration.json")
