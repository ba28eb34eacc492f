"""isobench.autotune with a stand-in autotuner (tests/python/fake_triton): what a set-up's
autotuning records, what a pinned choice makes a fresh process use without autotuning, and the
refusals: a pinned configuration this side lacks, a kernel it does not have, autotuning after the
set-up; and the replay of the choices of tuners no global holds (a stand-in of FlagGems' LibEntry and LibTuner,
tests/python/fake_flaggems) with each fallback and its reason. The orchestrator's side (pinning,
--replay-from) is tests/integration/test_pytest_bridge.cpp."""

import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_flaggems"))

import triton  # noqa: E402 - the stand-in, from the path above

from flag_gems import libentry  # noqa: E402 - the stand-in, from the path above
from isobench import autotune  # noqa: E402

CONFIGS = [triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=8, num_stages=2)]


def make_module(configs=CONFIGS):
    """A benchmark module as the zygote imported it: an autotuned kernel among its globals."""
    module = types.ModuleType("autotune_test_kernels")
    ran = []

    def scale(n, BLOCK, num_warps, num_stages, num_ctas):
        ran.append((n, BLOCK, num_warps))

    scale.__module__ = module.__name__
    module.scale = triton.autotune(configs=configs, key=["n"])(scale)
    module.ran = ran
    sys.modules[module.__name__] = module
    return module


class AutotuneRecordReplay(unittest.TestCase):
    def setUp(self):
        self.addCleanup(sys.modules.pop, "autotune_test_kernels", None)
        self.addCleanup(os.environ.pop, "FAKE_TRITON_BEST", None)

    def test_a_set_up_records_the_configuration_it_used_per_key(self):
        module = make_module()
        os.environ["FAKE_TRITON_BEST"] = "1"
        ledger = autotune.AutotuneLedger()
        ledger.begin(None)
        module.scale(1024)
        module.scale(4096)
        module.scale(1024)
        used = ledger.end()
        self.assertEqual(used, [
            {"kernel": "autotune_test_kernels.make_module.<locals>.scale", "key": [1024],
             "config": {"kwargs": {"BLOCK": 128}, "num_warps": 8, "num_stages": 2, "num_ctas": 1}},
            {"kernel": "autotune_test_kernels.make_module.<locals>.scale", "key": [4096],
             "config": {"kwargs": {"BLOCK": 128}, "num_warps": 8, "num_stages": 2, "num_ctas": 1}}])
        self.assertEqual(module.scale.benchmarked, 4)  # two keys, two configurations each

    def test_a_pinned_choice_is_used_without_autotuning(self):
        os.environ["FAKE_TRITON_BEST"] = "1"
        first = make_module()
        ledger = autotune.AutotuneLedger()
        ledger.begin(None)
        first.scale(1024)
        pinned = {autotune.RECORD_KEY: ledger.end()}
        # A fresh worker whose own autotuning would pick the other configuration.
        os.environ["FAKE_TRITON_BEST"] = "0"
        fresh = make_module()
        ledger = autotune.AutotuneLedger()
        ledger.begin(pinned)
        fresh.scale(1024)
        self.assertEqual(ledger.end(), pinned[autotune.RECORD_KEY])
        self.assertEqual(fresh.ran, [(1024, 128, 8)])
        self.assertEqual(fresh.scale.benchmarked, 0)
        fresh.scale(1024)  # a launch after the set-up: the pinned choice, no autotuning
        self.assertEqual(fresh.ran[-1], (1024, 128, 8))

    def test_a_pinned_configuration_this_side_lacks_fails_the_set_up(self):
        pinned = {autotune.RECORD_KEY: [{"kernel": "autotune_test_kernels.make_module.<locals>.scale", "key": [8],
                                         "config": {"kwargs": {"BLOCK": 256}, "num_warps": 4, "num_stages": 3,
                                                    "num_ctas": 1}}]}
        module = make_module()
        ledger = autotune.AutotuneLedger()
        ledger.begin(pinned)
        with self.assertRaises(autotune.AutotuneError) as caught:
            module.scale(8)
        ledger.end()
        self.assertIn("the pinned autotune configuration {'kwargs': {'BLOCK': 256}", str(caught.exception))
        self.assertIn("is not among this side's 2 configurations", str(caught.exception))

    def test_a_pinned_kernel_this_side_does_not_have_fails_the_set_up(self):
        make_module()
        ledger = autotune.AutotuneLedger()
        ledger.begin({autotune.RECORD_KEY: [{"kernel": "elsewhere.matmul", "key": [1], "config": {}}]})
        ledger.end()
        with self.assertRaises(autotune.AutotuneError) as caught:
            ledger.check_found()
        self.assertIn("names elsewhere.matmul", str(caught.exception))

    def test_a_module_the_set_up_imports_has_its_pinned_choice_replayed(self):
        def worker(best, pinned):
            """A fresh worker's set-up that imports the module (a do_bench file imported in the
            worker), found by rescan() before its kernel runs: (its module, what it used)."""
            sys.modules.pop("autotune_test_kernels", None)
            os.environ["FAKE_TRITON_BEST"] = best
            ledger = autotune.AutotuneLedger()
            ledger.begin(pinned)
            module = make_module()
            autotune.rescan()
            module.scale(1024)
            used = ledger.end()
            ledger.check_found()
            return module, used

        _, recorded = worker("1", None)  # the baseline's first worker
        self.assertEqual([r["key"] for r in recorded], [[1024]])
        # a later worker (either side) whose own autotuning would pick the other configuration
        fresh, used = worker("0", {autotune.RECORD_KEY: recorded})
        self.assertEqual(used, recorded)
        self.assertEqual((fresh.ran, fresh.scale.benchmarked), ([(1024, 128, 8)], 0))

    def test_autotuning_after_the_set_up_fails_the_launch(self):
        module = make_module()
        ledger = autotune.AutotuneLedger()
        ledger.begin(None)
        module.scale(16)
        ledger.end()
        module.scale(16)  # seen in the set-up: fine
        with self.assertRaises(autotune.AutotuneError) as caught:
            module.scale(32)
        self.assertIn("autotuned key [32] outside the set-up", str(caught.exception))

    def test_without_triton_nothing_is_recorded(self):
        saved = {name: sys.modules.pop(name) for name in list(sys.modules) if name.split(".")[0] == "triton"}
        self.addCleanup(sys.modules.update, saved)
        ledger = autotune.AutotuneLedger()
        ledger.begin(None)
        self.assertEqual(ledger.end(), [])



class Entry(triton.runtime.jit.KernelInterface):
    """A wrapper holding its autotuner as `fn`, as FlagGems' LibEntry holds its LibTuner."""

    def __init__(self, fn):
        self.fn = fn

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs)


class DatabaseCache:
    """A cache that is no dict (FlagGems' LibTuner keeps its choices in its tuner database)."""

    def __init__(self):
        self.rows = {}

    def __contains__(self, key):
        return key in self.rows

    def __getitem__(self, key):
        return self.rows[key]

    def __setitem__(self, key, config):
        self.rows[key] = config


class ChoiceRecording(unittest.TestCase):
    """ChoiceWatch: the configuration each autotuner used in a set-up, the autotuners behind a
    wrapper and those with a database of their own included (neither is pinned)."""

    def setUp(self):
        self.addCleanup(sys.modules.pop, "autotune_test_kernels", None)
        self.addCleanup(os.environ.pop, "FAKE_TRITON_BEST", None)

    def test_the_watch_records_pinned_wrapped_and_database_autotuners_alike(self):
        module = make_module()
        module.entry = Entry(triton.autotune(configs=CONFIGS, key=["n"])(module.scale.fn))
        module.entry.fn.base_fn = types.SimpleNamespace(__module__=module.__name__, __qualname__="wrapped")
        module.database = triton.autotune(configs=CONFIGS, key=["n"])(module.scale.fn)
        module.database.base_fn = types.SimpleNamespace(__module__=module.__name__, __qualname__="database")
        module.database.cache = DatabaseCache()
        os.environ["FAKE_TRITON_BEST"] = "1"
        ledger, watch = autotune.AutotuneLedger(), autotune.ChoiceWatch()
        ledger.begin(None)
        watch.begin()
        module.scale(32)
        module.entry.run(32)
        module.database(32)
        pinned = ledger.end()
        chosen = watch.end()
        # the ledger pins the plain autotuner only; without ISOBENCH_TUNER_REPLAY=1 (a `python:`
        # benchmark's workers) the database's cache is left as it was
        self.assertEqual([r["kernel"] for r in pinned], ["autotune_test_kernels.make_module.<locals>.scale"])
        self.assertIsInstance(module.database.cache, DatabaseCache)
        self.assertEqual([(r["kernel"], r["config"]["kwargs"]) for r in chosen],
                         [("autotune_test_kernels.database", {"BLOCK": 128}),
                          ("autotune_test_kernels.make_module.<locals>.scale", {"BLOCK": 128}),
                          ("autotune_test_kernels.wrapped", {"BLOCK": 128})])
        # outside a set-up nothing is noted; a set-up that launches nothing records nothing
        module.entry.run(64)
        watch.begin()
        self.assertEqual(watch.end(), [])

    def test_the_sides_first_record_stays(self):
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            first = [{"kernel": "k", "config": {"kwargs": {"BLOCK": 1}}}]
            autotune.record_choices(first, folder)
            autotune.record_choices([{"kernel": "k", "config": {"kwargs": {"BLOCK": 2}}}], folder)
            autotune.record_choices([], os.path.join(folder, "none"))
            import json
            with open(os.path.join(folder, autotune.CHOICES_FILE)) as f:
                self.assertEqual(json.load(f), {"choices": first})
            self.assertFalse(os.path.exists(os.path.join(folder, "none")))


SOFTMAX = "flaggems_test_kernels.softmax"
FAST = {"kwargs": {"TILE": 128}, "num_warps": 8, "num_stages": 2, "num_ctas": 1}


def make_flaggems_module(configs=CONFIGS, key=("n",), cache_dir="side-0"):
    """A module as FlagGems' ops are: a LibEntry global holding a LibTuner, whose database lives
    under FLAGGEMS_CACHE_DIR (one per side; a fresh process sees it empty)."""
    os.environ["FLAGGEMS_CACHE_DIR"] = cache_dir
    libentry.DATABASES.pop(cache_dir, None)
    module = types.ModuleType("flaggems_test_kernels")
    module.ran = []

    def softmax(x, n, TILE, num_warps, num_stages, num_ctas, m=1):
        module.ran.append((n, TILE, num_warps))

    softmax.__module__, softmax.__qualname__ = module.__name__, "softmax"
    tiles = [triton.Config({"TILE": c.kwargs["BLOCK"]}, num_warps=c.num_warps, num_stages=c.num_stages)
             for c in configs]
    module.softmax = libentry.LibEntry(libentry.libtuner(configs=tiles, key=list(key))(softmax))
    module.tuner = module.softmax.fn
    sys.modules[module.__name__] = module
    return module


class DatabaseTunerReplay(unittest.TestCase):
    """A database tuner (FlagGems' LibTuner behind its LibEntry): the recording worker's choices
    per key, replayed by a fresh worker (the candidate's) without its database, and where replay
    cannot be, the tuner's own choice with the reason noted."""

    def setUp(self):
        self.addCleanup(sys.modules.pop, "flaggems_test_kernels", None)
        for name in ("FAKE_TRITON_BEST", "FLAGGEMS_CACHE_DIR", autotune.REPLAY_VARIABLE):
            self.addCleanup(os.environ.pop, name, None)
        os.environ[autotune.REPLAY_VARIABLE] = "1"  # as the orchestrator sets it for a do_bench run

    def record(self):
        """The baseline's first worker: FAKE_TRITON_BEST=1 makes its tuner pick TILE 128."""
        os.environ["FAKE_TRITON_BEST"] = "1"
        module = make_flaggems_module()
        watch = autotune.ChoiceWatch()
        watch.begin(None)
        module.softmax(libentry.Tensor("torch.float16"), 1000)
        keyed = watch.keyed()
        watch.end()
        self.assertIsNone(watch.replay_record())  # nothing given to replay: nothing to say
        return autotune.describe_record([], keyed)

    def candidate(self, pinned, n=1000, **module_options):
        """A fresh worker of the other side, whose own tuner would pick TILE 64."""
        os.environ["FAKE_TRITON_BEST"] = "0"
        module = make_flaggems_module(cache_dir="side-1", **module_options)
        watch = autotune.ChoiceWatch()
        watch.begin(pinned)
        module.softmax(libentry.Tensor("torch.float16"), n)
        keyed = watch.keyed()
        watch.end()
        return module, watch.replay_record(), keyed

    def test_the_recording_worker_records_each_key_it_looked_up(self):
        self.assertEqual(self.record(), {autotune.TUNER_KEY: [{"kernel": SOFTMAX, "key": [1024, "torch.float16"],
                                                               "config": FAST}]})

    def test_a_fresh_worker_replays_the_recorded_choice_without_its_database(self):
        pinned = self.record()
        module, replay, keyed = self.candidate(pinned)
        self.assertEqual(module.ran, [(1000, 128, 8)])
        self.assertEqual(module.tuner.benchmarked, 0)
        self.assertEqual(libentry.DATABASES["side-1"], {"softmax_2": {}})  # not read, not written
        self.assertEqual(replay, {"replayed": [{"kernel": SOFTMAX, "key": [1024, "torch.float16"], "config": FAST}],
                                  "fallbacks": []})
        self.assertEqual(keyed, pinned[autotune.TUNER_KEY])  # its describe() is the recording's
        # a launch the LibEntry has seen does not reach the tuner; one it has not, replays again
        module.softmax(libentry.Tensor("torch.float16"), 1000)
        module.softmax(libentry.Tensor("torch.float16"), 999)
        self.assertEqual(module.ran[1:], [(1000, 128, 8), (999, 128, 8)])
        self.assertEqual(module.tuner.benchmarked, 0)

    def test_a_tuner_that_sets_its_table_anew_is_replayed_through_the_new_one(self):
        pinned = self.record()
        module, _, _ = self.candidate(pinned)
        module.tuner.set_configs(list(module.tuner.configs))
        module.softmax(libentry.Tensor("torch.float16"), 1001)
        self.assertEqual(module.ran[-1], (1001, 128, 8))
        self.assertIsInstance(module.tuner.cache, autotune.CacheView)

    def assert_fell_back(self, replay, key, reason):
        self.assertEqual(replay["replayed"], [])
        self.assertEqual([(f["kernel"], f["key"]) for f in replay["fallbacks"]], [(SOFTMAX, key)])
        self.assertIn(reason, replay["fallbacks"][0]["reason"])

    def test_a_key_not_recorded_is_tuned_by_the_side_and_marked(self):
        module, replay, _ = self.candidate(self.record(), n=3000)
        self.assertEqual(module.ran, [(3000, 64, 4)])  # its own choice, from its own tuning
        self.assertEqual(module.tuner.benchmarked, 2)
        self.assertEqual(len(libentry.DATABASES["side-1"]["softmax_2"]), 1)  # kept in its database
        self.assert_fell_back(replay, [4096, "torch.float16"], "the record has no choice for this key")

    def test_a_configuration_this_side_lacks_is_tuned_by_the_side_and_marked(self):
        other = [triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)]
        module, replay, _ = self.candidate(self.record(), configs=other)
        self.assertEqual(module.ran, [(1000, 64, 4)])
        self.assert_fell_back(replay, [1024, "torch.float16"],
                              'the recorded configuration {"kwargs": {"TILE": 128}, "num_ctas": 1, "num_stages": 2, '
                              '"num_warps": 8} is not among this side\'s 2 configurations')

    def test_a_tuner_keyed_otherwise_is_tuned_by_the_side_and_marked(self):
        module, replay, _ = self.candidate(self.record(), key=("n", "m"))
        self.assertEqual(module.ran, [(1000, 64, 4)])
        self.assert_fell_back(replay, [1024, 1, "torch.float16"],
                              "the recorded keys have 2 fields, this side's tuner 3")

    def test_a_kernel_the_record_lacks_is_tuned_by_the_side_and_marked(self):
        watch = autotune.ChoiceWatch()
        watch.begin(None)  # a recording set-up that reached no such tuner
        recorded = autotune.describe_record([], watch.keyed())
        watch.end()
        self.assertEqual(recorded, {autotune.TUNER_KEY: []})  # kept, so that it is pinned
        module, replay, _ = self.candidate(recorded)
        self.assertEqual(module.ran, [(1000, 64, 4)])
        self.assert_fell_back(replay, [1024, "torch.float16"], "the record has no choice of this kernel")

    def test_replay_off_leaves_each_side_to_its_database(self):
        pinned = self.record()
        for off in ("0", ""):  # told so; or a `python:` benchmark's worker, not told
            os.environ[autotune.REPLAY_VARIABLE] = off
            module, replay, keyed = self.candidate(pinned)
            self.assertEqual(module.ran, [(1000, 64, 4)])
            self.assertEqual(module.tuner.benchmarked, 2)
            self.assertIsNone(replay)
            self.assertIsNone(keyed)
            self.assertEqual(autotune.describe_record([], keyed), {})  # a `python:` benchmark's, as before
            self.assertNotIsInstance(module.tuner.cache, autotune.CacheView)

    def test_a_plain_autotuner_behind_a_wrapper_is_replayed_through_its_dict(self):
        """FlagGems' LibEntry over a plain @triton.autotune (its softmax backward kernels): no
        global, so the ledger does not pin it; its dict cache is seen through as a LibTuner's table."""
        def make(best):
            os.environ["FAKE_TRITON_BEST"] = best
            module = make_module()
            module.entry = Entry(triton.autotune(configs=CONFIGS, key=["n"])(module.scale.fn))
            module.entry.fn.base_fn = types.SimpleNamespace(__module__=module.__name__, __qualname__="wrapped")
            return module

        recording, watch = make("1"), autotune.ChoiceWatch()
        watch.begin(None)
        recording.entry.run(32)
        recorded = autotune.describe_record([], watch.keyed())
        watch.end()
        config = {"kwargs": {"BLOCK": 128}, "num_warps": 8, "num_stages": 2, "num_ctas": 1}
        self.assertEqual(recorded, {autotune.TUNER_KEY: [{"kernel": "autotune_test_kernels.wrapped", "key": [32],
                                                          "config": config}]})
        replaying, watch = make("0"), autotune.ChoiceWatch()
        watch.begin(recorded)
        replaying.entry.run(32)
        replaying.entry.run(64)  # a key the record lacks: its own tuning, marked
        watch.end()
        self.assertEqual(replaying.ran, [(32, 128, 8), (64, 64, 4)])
        self.assertEqual(replaying.entry.fn.benchmarked, 2)
        self.assertEqual([f["key"] for f in watch.replay_record()["fallbacks"]], [[64]])

    def test_the_replay_file_keeps_the_first_and_adds_new_fallbacks(self):
        import json
        import tempfile
        first = {"replayed": [{"kernel": "k", "key": [1], "config": {}}], "fallbacks": []}
        fell = {"kernel": "k", "key": [2], "reason": "the record has no choice for this key"}
        with tempfile.TemporaryDirectory() as folder:
            autotune.record_replay(first, folder)
            autotune.record_replay({"replayed": [], "fallbacks": []}, folder)
            autotune.record_replay({"replayed": [], "fallbacks": [fell]}, folder)
            autotune.record_replay({"replayed": [], "fallbacks": [fell]}, folder)
            autotune.record_replay(None, folder)
            with open(os.path.join(folder, autotune.REPLAY_FILE)) as f:
                self.assertEqual(json.load(f), {"replayed": first["replayed"], "fallbacks": [fell]})


if __name__ == "__main__":
    unittest.main()
