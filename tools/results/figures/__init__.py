"""The figures a README may quote, each derived from raw data by one function of this package.

A README asks for a figure with a marker naming a kind and its arguments (markers.py); the kind
returns the Markdown that stands between the markers: a table, with the settings and GPU that
produced it, or one value for a sentence. Arguments are paths (relative to the README's folder, or
docs/results/NAME/... from elsewhere) and key=value options (OPTIONS).

Every kind reads the run directories themselves (samples.jsonl, plan.json, run.json,
environment.json) or the raw output files the tool or a bench/gpu script wrote at the time;
nothing is copied from a README. The kinds, by what they read:
  calibration.py  calibrate directories: false positives, power, realised slowdowns, sample sizes
  comparison.py   A/B runs: compare's verdicts re-derived
  workers.py      runs and their journals: machines, throughput, worker phases, spread, clocks
  kernels.py      the kernels against references: torch, triton.testing, the all-gather family
  outputs.py      values printed in raw output files (tests, summaries, compare --json, the
                  killed-orchestrator check)
  simulation.py   bench/verdict_simulation's counts (a CPU simulation, docs/results/verdict-simulation)
"""
import json
import os

from .. import fmt
from ..calibration import Calibration
from ..run import Run

KINDS = {}
# The key=value options kinds take; any other word of a marker is an argument.
OPTIONS = {"modes", "alphas", "variant", "pct", "alpha", "instances", "family", "label_a", "label_b",
           "relative_to", "columns", "side", "nth", "match", "from", "to", "digits", "timer", "mode", "delta",
           "k", "dtype", "pvalues", "denominator"}


class FigureError(Exception):
    pass

def kind(name):
    def register(function):
        KINDS[name] = function
        return function
    return register

class Context:
    """Where a document's markers find their data."""

    def __init__(self, resolver, document):
        self.resolver = resolver
        self.base = os.path.dirname(os.path.abspath(document))
        self._calibrations = {}
        self._runs = {}

    def locate(self, path):
        """(ResultsFolder, path inside it) of a cited path."""
        for base in (self.base, self.resolver.repo):
            inside = self.resolver._results_folder_of(os.path.normpath(os.path.join(base, path)))
            if inside:
                return inside
        raise FigureError(f"{path}: not inside a results folder (docs/results/NAME/)")

    def run(self, path):
        if path not in self._runs:
            folder, rel = self.locate(path)
            if not folder.is_file(f"{rel}/samples.jsonl"):
                raise FigureError(f"{path}: no samples.jsonl (in place or in {folder.name}/raw.tar.xz)")
            self._runs[path] = Run(folder, rel)
        return self._runs[path]

    def calibration(self, path, opts=None):
        """opts: the figure's options; pvalues=recorded takes the p-value counts from
        calibration.json (calibration.py says when)."""
        recorded = (opts or {}).get("pvalues") == "recorded"
        if (path, recorded) not in self._calibrations:
            folder, rel = self.locate(path)
            self._calibrations[(path, recorded)] = Calibration(folder, rel, recorded)
        return self._calibrations[(path, recorded)]

    def text(self, path):
        folder, rel = self.locate(path)
        return folder.text(rel)

    def json(self, path):
        return json.loads(self.text(path))

def _name(path):
    return path.rstrip("/")

def _gpus(runs):
    uuids = sorted({u for r in runs for u in r.gpu_uuids()})
    return ", ".join(fmt.short_uuid(u) for u in uuids)

def _gate(settings):
    return "on" if settings["context_gate"] else "off"

def _option(opts, key, default):
    return opts.get(key, default)

def _alphas(opts):
    return [float(a) for a in _option(opts, "alphas", "0.001,0.01,0.05").split(",")]

def _instance(ids, short):
    """An instance id from its id, its short name (cast 1M, gemm 1024^3) or a part of the id
    that only it holds (ranks=2)."""
    for i in ids:
        if i == short or fmt.short_instance(i) == short:
            return i
    holding = [i for i in ids if short in i]
    if len(holding) == 1:
        return holding[0]
    raise FigureError(f"no instance {short!r} among {', '.join(fmt.short_instance(i) for i in ids)}")

def _params(instance_id):
    return dict(p.split("=", 1) for p in instance_id.partition("[")[2].rstrip("]").split(",") if "=" in p)


# Each module registers its kinds when imported.
from . import calibration, comparison, kernels, outputs, simulation, workers  # noqa: E402,F401
