"""One run directory inside a results folder, read as docs/run-format.md describes it: plan.json
(instances, settings), run.json (command line, pre-start, context gate, wall time),
environment.json (the GPUs NVML saw) and samples.jsonl (samples and worker events)."""
import json
import statistics

# The measurement settings the figures show, as plan.json's settings.measure spells them, with the
# value they had when absent (a plan written before the setting existed ran its default).
MEASURE_DEFAULTS = {"timer": "events", "idle_gap_ms": 0.0}


class Run:
    def __init__(self, folder, rel):
        self.folder = folder
        self.rel = rel.rstrip("/")
        self._events = None
        self._values = {}

    def _json(self, name):
        return json.loads(self.folder.read(f"{self.rel}/{name}"))

    @property
    def plan(self):
        if not hasattr(self, "_plan"):
            self._plan = self._json("plan.json")
        return self._plan

    @property
    def info(self):
        return self._json("run.json")

    @property
    def environment(self):
        return self._json("environment.json")

    def events(self):
        if self._events is None:
            self._events = []
            for line in self.folder.text(f"{self.rel}/samples.jsonl").splitlines():
                try:
                    self._events.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a torn last line, as the journal reader drops it
        return self._events

    def samples(self):
        return [e for e in self.events() if e.get("type") == "sample"]

    def instance_ids(self):
        """Instance ids in plan order."""
        return [i["id"] for i in self.plan["instances"]]

    def values(self, side=0):
        """{instance id: [seconds per launch, ...]} of one side (0 = baseline, 1 = candidate)."""
        if side not in self._values:
            self._values[side] = self.values_through(side, {})
        return self._values[side]

    def look_stops(self):
        """{instance id: samples per side} of each instance a look of a sequential run stopped
        (the journal's look events): what its verdict used. A look measured in the same call as
        the look after it (ab's separation look with set-up batches) leaves such an instance one
        sample per side more than that."""
        stops = {}
        for e in self.events():
            if e.get("type") == "look":
                for s in e.get("stopped", []):
                    stops[s["instance"]] = s["n"]
        return stops

    def values_through(self, side, counts):
        """values(side), each instance named in `counts` cut to its samples with index below its
        count (the samples it used)."""
        out = {i: [] for i in self.instance_ids()}
        for s in self.samples():
            if s.get("side", 0) == side and s.get("sample", 0) < counts.get(s["instance"], float("inf")):
                out.setdefault(s["instance"], []).append(s["value"])
        return out

    def medians(self, side=0):
        return {i: statistics.median(v) for i, v in self.values(side).items() if v}

    # --- what produced it ---

    def gpu_uuids(self):
        """The GPUs the samples were taken on: each sample's gpu_uuid where the journal names it,
        else every GPU environment.json lists (one-GPU runs before samples named theirs)."""
        named = sorted({s["gpu_uuid"] for s in self.samples() if s.get("gpu_uuid")})
        if named:
            return named
        return [g["uuid"] for g in self.environment.get("gpu", {}).get("gpus", [])]

    def settings(self):
        """The settings a figure shows beside a run: isolation, pre-start, context gate, timer,
        idle gap."""
        plan, info = self.plan, self.info
        s = plan.get("settings", {})
        measure = dict(MEASURE_DEFAULTS)
        measure.update({k: v for k, v in s.get("measure", {}).items() if k in MEASURE_DEFAULTS})
        return {"isolation": s.get("isolation"), "per": s.get("per"), "samples": s.get("samples"),
                "prestart": info.get("prestart"),
                # Journals from before the gate have no context_gate field: those runs had none.
                "context_gate": info.get("context_gate", False), **measure}

    def wall_seconds(self):
        return self.info["wall_seconds"]

    def samples_recorded(self):
        return self.info["samples_recorded"]
