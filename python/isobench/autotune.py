"""Triton autotune record and replay (docs/python.md, "Autotuned Triton kernels").

A `@triton.autotune` kernel benchmarks its configurations the first time it sees a key (the
values of its `key=` arguments and the dtypes of its tensor arguments) and keeps the fastest in
`Autotuner.cache`. Left alone, every worker of a run, and each side of an A/B run, would choose
for itself: another configuration is another kernel, measured as a change. So in a worker:

- record: during each instance's set-up (untimed), every autotuner of the imported modules notes
  the keys it looked up and the configuration it used for each; the instance's describe() holds
  them, `{"triton_autotune": [{"kernel", "key", "config"}]}`, which the orchestrator pins from
  the run's first worker (instance_reports.json) and gives to every later worker, on both sides;
- replay: with a pinned choice, a key the set-up looks up gets the pinned configuration, found
  among this side's `configs` by its fields, without benchmarking; a configuration this side does
  not have (another kernel source, other configs) fails the set-up with a message saying so;
- autotuning never happens in a timed sample: a key first seen after the set-up (in a warm-up or
  a sample) fails the launch, asking for one launch in the set-up.

Nothing here imports triton: the autotuners are found among the loaded modules' globals, as
instances of `triton.runtime.autotuner.Autotuner` when that module is loaded. An autotuner whose
`cache` is not a dict (FlagGems' LibTuner keeps its choices in its tuner database) is not pinned:
its database decides.

What each side chose is recorded too (`ChoiceWatch`), for pinned autotuners and for those that are
not (one behind a wrapper, as FlagGems' LibEntry holds its LibTuner; one with a database of its
own): every Autotuner among the globals or behind a global's `fn` chain has its `run` watched, and
the configuration it used in an instance's set-up (its `best_config` after the run) is written by
the side's first worker to set the instance up into the instance's artifact folder,
`triton_autotune.json`; `compare` lists the instances whose file differs between the sides (their
autotuners chose differently) among the artifacts that differ.
"""

import json
import os

import sys

from . import benchmark as contract
from . import module_scan

RECORD_KEY = "triton_autotune"


class AutotuneError(contract.ContractError):
    """A pinned configuration this side cannot use, or autotuning outside the set-up."""


def config_fields(config):
    """A Config as the JSON it is recorded as: its meta-parameters and launch options."""
    fields = {"kwargs": dict(getattr(config, "kwargs", {}) or {})}
    for name in ("num_warps", "num_stages", "num_ctas", "maxnreg", "ir_override"):
        if getattr(config, name, None) is not None:
            fields[name] = getattr(config, name)
    return fields


def _json_key(key):
    """The autotune key as JSON: its ints, floats, strings and bools, anything else as str()."""
    return [k if k is None or isinstance(k, (bool, int, float, str)) else str(k) for k in key]


def kernel_name(tuner):
    base = getattr(tuner, "base_fn", None) or getattr(tuner, "fn", None)
    return "%s.%s" % (getattr(base, "__module__", "?"), getattr(base, "__qualname__", getattr(base, "__name__", "?")))


class _RecordingCache(dict):
    """Autotuner.cache, watched: which keys a set-up used and with what, the pinned choices to
    hand out, and no autotuning once the set-up is over."""

    def __init__(self, tuner, existing):
        super().__init__(existing)
        self.tuner = tuner
        self.name = kernel_name(tuner)
        self.used = {}      # repr(key) -> record, for the set-up under way
        self.pinned = {}    # repr(key) -> recorded config fields
        self.in_setup = False

    def _note(self, key, config):
        if self.in_setup:
            self.used[repr(_json_key(key))] = {"kernel": self.name, "key": _json_key(key),
                                               "config": config_fields(config)}

    def __contains__(self, key):
        if dict.__contains__(self, key):
            self._note(key, dict.__getitem__(self, key))
            return True
        wanted = self.pinned.get(repr(_json_key(key)))
        if wanted is not None:
            matching = [c for c in self.tuner.configs if config_fields(c) == wanted]
            if not matching:
                raise AutotuneError("%s: the pinned autotune configuration %s for key %s is not among this side's "
                                    "%d configurations" % (self.name, wanted, _json_key(key), len(self.tuner.configs)))
            dict.__setitem__(self, key, matching[0])
            self._note(key, matching[0])
            return True
        if not self.in_setup:
            raise AutotuneError("%s autotuned key %s outside the set-up: launch it once in the set-up function, so "
                                "that the choice is made untimed and pinned for every worker" % (self.name, _json_key(key)))
        return False

    def __setitem__(self, key, config):
        dict.__setitem__(self, key, config)
        self._note(key, config)


class AutotuneLedger:
    """One worker's autotuners: begin() before an instance's set-up, end() after it, then
    check_found(). A module the set-up imports (a do_bench file imported in the worker) brings
    its autotuners in mid-set-up: rescan() (the module function) arms them before they run."""

    current = None  # the ledger whose set-up is under way, for rescan()

    def __init__(self):
        self.caches = None
        self.modules = -1   # len(sys.modules) at the last scan
        self.records = []   # the pinned choices of the set-up under way
        self.missing = []   # pinned kernels the last set-up never found

    def _find(self):
        """The autotuners of the modules loaded since the last scan; the ids of those new."""
        if self.caches is None:
            self.caches = {}
        if len(sys.modules) == self.modules:
            return []
        self.modules = len(sys.modules)
        module = sys.modules.get("triton.runtime.autotuner")
        autotuner = getattr(module, "Autotuner", None)
        if autotuner is None:
            return []
        found = []
        for value in module_scan.loaded_globals():
            if module_scan.is_a(value, autotuner) and id(value) not in self.caches:
                if type(value.cache) is not dict and not isinstance(value.cache, _RecordingCache):
                    continue  # a tuner database of its own (FlagGems' LibTuner): not pinned, recorded by ChoiceWatch
                if not isinstance(value.cache, _RecordingCache):
                    value.cache = _RecordingCache(value, value.cache)
                self.caches[id(value)] = value.cache
                found.append(id(value))
        return found

    def _arm(self, cache):
        cache.used = {}
        cache.pinned = {repr(r["key"]): r["config"] for r in self.records if r.get("kernel") == cache.name}
        cache.in_setup = True

    def begin(self, pinned):
        """Before a set-up: `pinned` is the instance's pinned describe() (or None)."""
        self._find()
        self.records = (pinned or {}).get(RECORD_KEY, [])
        for cache in self.caches.values():
            self._arm(cache)
        AutotuneLedger.current = self

    def rescan(self):
        """During a set-up: the autotuners of modules it imported, armed as begin() arms."""
        for key in self._find():
            self._arm(self.caches[key])

    def end(self):
        """After a set-up: what it used, for describe()."""
        AutotuneLedger.current = None
        used = []
        for cache in (self.caches or {}).values():
            cache.in_setup = False
            used.extend(cache.used.values())
        known = {cache.name for cache in (self.caches or {}).values()}
        self.missing = sorted({r.get("kernel") for r in self.records if r.get("kernel") not in known})
        return sorted(used, key=lambda r: (r["kernel"], repr(r["key"])))

    def check_found(self):
        """After a set-up that succeeded: AutotuneError where a pinned kernel was never found (its
        choice was not replayed)."""
        if self.missing:
            raise AutotuneError("the pinned autotune choice names %s, and this side's modules have no "
                                "@triton.autotune kernel of that name" % self.missing[0])


def rescan():
    """Mid-set-up, after an import: the new modules' autotuners armed (pinned choices replayed)
    and watched (ChoiceWatch), before they first run."""
    WATCH.rescan()
    if AutotuneLedger.current is not None:
        AutotuneLedger.current.rescan()


CHOICES_FILE = "triton_autotune.json"


def _own_dict(value):
    """An object's instance __dict__, read without running its __getattr__ or __getattribute__."""
    try:
        return object.__getattribute__(value, "__dict__")
    except AttributeError:
        return {}


class ChoiceWatch:
    """Which configuration each autotuner used in a set-up, every autotuner of this process:
    begin() before a set-up, end() after it returns [{"kernel", "config"}]. rescan() finds the
    autotuners of modules imported since (a do_bench file imported in the worker, during its
    first set-up, calls it before the first launch)."""

    def __init__(self):
        self.watched = {}   # id(tuner) -> tuner
        self.modules = -1   # len(sys.modules) at the last scan
        self.used = None    # kernel -> config fields, while a set-up runs

    def rescan(self):
        if len(sys.modules) == self.modules:
            return
        self.modules = len(sys.modules)
        autotuner = getattr(sys.modules.get("triton.runtime.autotuner"), "Autotuner", None)
        wrapper = getattr(sys.modules.get("triton.runtime.jit"), "KernelInterface", None)
        if autotuner is None:
            return
        for value in module_scan.loaded_globals():
            for _ in range(4):  # a global's fn chain: LibEntry -> LibTuner -> JITFunction
                if module_scan.is_a(value, autotuner):
                    self._watch(value)
                    break
                if wrapper is None or not module_scan.is_a(value, wrapper):
                    break
                value = _own_dict(value).get("fn")

    def _watch(self, tuner):
        if id(tuner) in self.watched:
            return
        self.watched[id(tuner)] = tuner
        original, name, watch = tuner.run, kernel_name(tuner), self

        def run(*args, **kwargs):
            result = original(*args, **kwargs)
            if watch.used is not None:
                config = _own_dict(tuner).get("best_config")
                if config is not None:
                    watch.used[name] = config_fields(config)
            return result

        tuner.run = run  # an instance attribute: Triton's launches and LibEntry call self.run / fn.run

    def begin(self):
        self.rescan()
        self.used = {}

    def end(self):
        used, self.used = self.used or {}, None
        return [{"kernel": kernel, "config": used[kernel]} for kernel in sorted(used)]


WATCH = ChoiceWatch()


def record_choices(choices, folder):
    """The side's first record of an instance's choices, in its artifact folder (later workers'
    set-ups of the instance leave it)."""
    if not choices or folder is None:
        return
    path = os.path.join(folder, CHOICES_FILE)
    if os.path.exists(path):
        return
    os.makedirs(folder, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump({"choices": choices}, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
