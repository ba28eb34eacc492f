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
`cache` is not a dict (FlagGems' LibTuner keeps its choices in its tuner database), or that no
global holds (one behind FlagGems' LibEntry), is not pinned here: ChoiceWatch replays it through
its `cache` (below).

What each side chose is recorded too (`ChoiceWatch`), for pinned autotuners and for those that are
not (one behind a wrapper, as FlagGems' LibEntry holds its LibTuner; one with a database of its
own): every Autotuner among the globals or behind a global's `fn` chain has its `run` watched, and
the configuration it used in an instance's set-up (its `best_config` after the run) is written by
the side's first worker to set the instance up into the instance's artifact folder,
`triton_autotune.json`; `compare` lists the instances whose file differs between the sides (their
autotuners chose differently) among the artifacts that differ.

A watched autotuner that no global holds (FlagGems' LibTuner behind its LibEntry, whose `cache`
is a table of its tuner database looked up as a dict is; a plain Autotuner behind a LibEntry) is
replayed through its `cache` (`CacheView`): its lookups in a set-up are recorded per key in
describe(), `{"tuner_cache": [{"kernel", "key", "config"}]}`, which the orchestrator pins as the
rest; a worker given that record hands each recorded key its configuration, found among this
side's `configs`, without reading its cache or tuning. Where that cannot be (a key not in the
record, a configuration this side lacks, a key of another shape) the tuner decides for itself
(this side's database or its own tuning), and the instance's artifact folder says so with the
reason (`tuner_replay.json`, "fallbacks"). All of it only with ISOBENCH_TUNER_REPLAY=1 (the
orchestrator's default for do_bench runs); without it such a tuner is left alone, unrecorded but
for its best_config.
"""

import json
import os

import sys

from . import benchmark as contract
from . import module_scan

RECORD_KEY = "triton_autotune"
TUNER_KEY = "tuner_cache"   # describe()'s choices of the tuners no global holds (CacheView)
REPLAY_VARIABLE = "ISOBENCH_TUNER_REPLAY"


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
                    continue  # a tuner database of its own (FlagGems' LibTuner): ChoiceWatch's
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
REPLAY_FILE = "tuner_replay.json"


def _own_dict(value):
    """An object's instance __dict__, read without running its __getattr__ or __getattribute__."""
    try:
        return object.__getattribute__(value, "__dict__")
    except AttributeError:
        return {}


def replay_wanted():
    """Whether the tuners no global holds are recorded and replayed: ISOBENCH_TUNER_REPLAY=1,
    which the orchestrator sets for the sides of a run with do_bench instances unless told
    otherwise (python_sides.cpp); a `python:` benchmark's are left alone."""
    return os.environ.get(REPLAY_VARIABLE, "").strip().lower() in ("1", "on", "yes", "true")


def _not_seen_through(cache):
    """A watched tuner's `cache` that neither the ledger pins (a global's, a _RecordingCache by the
    time it runs) nor a CacheView sees through yet: a LibTuner's table, or the dict of an
    Autotuner behind a wrapper (FlagGems' LibEntry over a plain @triton.autotune)."""
    return cache is not None and not isinstance(cache, (CacheView, _RecordingCache))


class CacheView:
    """The `cache` of a tuner no global holds (FlagGems' LibTuner: a table of its tuner database;
    an Autotuner behind a LibEntry: its dict), seen through by the watch: a recorded key is handed
    its configuration without the cache, the others go to the cache (the tuner's own choice), and
    every lookup in a set-up is noted. LibTuner sets `cache` anew when its configs or timing
    protocol change, so the watch puts a view back before each run."""

    def __init__(self, tuner, cache, watch):
        self.tuner, self.cache, self.watch = tuner, cache, watch
        self.name = kernel_name(tuner)
        self.imposed = {}   # repr(JSON key) -> the configuration replayed for it

    def __contains__(self, key):
        config = self.watch.impose(self.tuner, self.name, _json_key(key))
        if config is not None:
            self.imposed[repr(_json_key(key))] = config
            return True
        return key in self.cache

    def __getitem__(self, key):
        config = self.imposed.get(repr(_json_key(key)))
        if config is None:
            config = self.cache[key]
        self.watch.note_key(self.name, _json_key(key), config)
        return config

    def __setitem__(self, key, config):
        self.cache[key] = config  # this side's own tuning stays in its cache (a LibTuner's database)

    def __getattr__(self, name):
        return getattr(self.cache, name)


class ChoiceWatch:
    """Which configuration each autotuner used in a set-up, every autotuner of this process:
    begin() before a set-up, end() after it returns [{"kernel", "config"}]. rescan() finds the
    autotuners of modules imported since (a do_bench file imported in the worker, during its
    first set-up, calls it before the first launch). A CacheView's lookups are recorded per
    key (keyed()) and replayed from the record begin() is given (CacheView)."""

    def __init__(self):
        self.watched = {}      # id(tuner) -> tuner
        self.modules = -1      # len(sys.modules) at the last scan
        self.used = None       # kernel -> config fields, while a set-up runs
        self.keys = None       # repr([kernel, key]) -> {"kernel", "key", "config"}, while a set-up runs
        self.pins = {}         # repr([kernel, key]) -> config fields: every record this worker was given
        self.key_sizes = {}    # kernel -> the number of fields of its recorded keys
        self.cache_replay = False  # replay_wanted(), as the last set-up found it
        self.replaying = False  # this set-up was given a record to replay
        self.replayed = {}     # repr([kernel, key]) -> {"kernel", "key", "config"}, this set-up
        self.fallbacks = {}    # repr([kernel, key]) -> {"kernel", "key", "reason"}, this set-up

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
            cache = _own_dict(tuner).get("cache")
            if watch.cache_replay and _not_seen_through(cache):
                tuner.cache = CacheView(tuner, cache, watch)
            result = original(*args, **kwargs)
            if watch.used is not None:
                config = _own_dict(tuner).get("best_config")
                if config is not None:
                    watch.used[name] = config_fields(config)
            return result

        tuner.run = run  # an instance attribute: Triton's launches and LibEntry call self.run / fn.run

    def begin(self, pinned=None):
        """Before a set-up: `pinned` is the instance's pinned describe() (None in the worker that
        records it, or where nothing was pinned)."""
        self.rescan()
        self.used, self.keys, self.replayed, self.fallbacks = {}, {}, {}, {}
        self.cache_replay = replay_wanted()
        self.replaying = pinned is not None and self.cache_replay
        for record in (pinned or {}).get(TUNER_KEY, []):
            self.pins[repr([record["kernel"], record["key"]])] = record["config"]
            self.key_sizes[record["kernel"]] = len(record["key"])

    def note_key(self, kernel, key, config):
        if self.keys is not None:
            self.keys[repr([kernel, key])] = {"kernel": kernel, "key": key, "config": config_fields(config)}

    def impose(self, tuner, kernel, key):
        """The recorded configuration of a seen-through tuner's key, among this side's configs; None
        where there is none to replay (the tuner decides, and a set-up that replays notes why)."""
        if not self.replaying:
            return None
        where = repr([kernel, key])
        wanted = self.pins.get(where)
        if wanted is not None:
            configs = list(getattr(tuner, "configs", None) or [])
            matching = [c for c in configs if config_fields(c) == wanted]
            if matching:
                self.replayed[where] = {"kernel": kernel, "key": key, "config": wanted}
                return matching[0]
            reason = ("the recorded configuration %s is not among this side's %d configurations"
                      % (json.dumps(wanted, sort_keys=True), len(configs)))
        elif kernel not in self.key_sizes:
            reason = "the record has no choice of this kernel (the recording worker's set-up did not reach its tuner)"
        elif self.key_sizes[kernel] != len(key):
            reason = ("the recorded keys have %d fields, this side's tuner %d: its key= or its tensors differ"
                      % (self.key_sizes[kernel], len(key)))
        else:
            reason = "the record has no choice for this key"
        if self.keys is not None:  # outside a set-up the launch goes on, unrecorded
            self.fallbacks[where] = {"kernel": kernel, "key": key, "reason": reason}
        return None

    def keyed(self):
        """The seen-through tuners' lookups of the set-up under way, for describe(); None where they
        are not recorded (replay_wanted() is not)."""
        if not self.cache_replay:
            return None
        return [self.keys[k] for k in sorted(self.keys or {})]

    def end(self):
        used, self.used = self.used or {}, None
        self.keys = None
        return [{"kernel": kernel, "config": used[kernel]} for kernel in sorted(used)]

    def replay_record(self):
        """What the set-up just over replayed and where it fell back, or None where it was given
        no record or met no seen-through tuner."""
        if not self.replaying or not (self.replayed or self.fallbacks):
            return None
        return {"replayed": [self.replayed[k] for k in sorted(self.replayed)],
                "fallbacks": [self.fallbacks[k] for k in sorted(self.fallbacks)]}


WATCH = ChoiceWatch()


def describe_record(pinned_choices, cache_choices):
    """An instance's describe(): the plain autotuners' choices, left out when none, and the
    seen-through tuners', left out when not recorded. An empty list is kept: pinned, it tells a
    later worker that the recording set-up reached no such tuner, so one it reaches is a fallback
    to mark, not a choice made silently."""
    record = {}
    if pinned_choices:
        record[RECORD_KEY] = pinned_choices
    if cache_choices is not None:
        record[TUNER_KEY] = cache_choices
    return record


def _write_json(path, value):
    with open(path + ".tmp", "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def record_choices(choices, folder):
    """The side's first record of an instance's choices, in its artifact folder (later workers'
    set-ups of the instance leave it)."""
    if not choices or folder is None:
        return
    path = os.path.join(folder, CHOICES_FILE)
    if os.path.exists(path):
        return
    os.makedirs(folder, exist_ok=True)
    _write_json(path, {"choices": choices})


def record_replay(replay, folder):
    """What a set-up replayed and where it fell back, in the instance's artifact folder: the
    side's first worker writes it, a later one adds the fallbacks it met that the file lacks."""
    if replay is None or folder is None:
        return
    path = os.path.join(folder, REPLAY_FILE)
    if os.path.exists(path):
        with open(path) as f:
            kept = json.load(f)
        new = [f for f in replay["fallbacks"] if f not in kept.get("fallbacks", [])]
        if not new:
            return
        kept["fallbacks"] = kept.get("fallbacks", []) + new
        replay = kept
    os.makedirs(folder, exist_ok=True)
    _write_json(path, replay)
