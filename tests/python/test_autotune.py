"""isobench.autotune with a stand-in autotuner (tests/python/fake_triton): what a set-up's
autotuning records, what a pinned choice makes a fresh process use without autotuning, and the
refusals: a pinned configuration this side lacks, a kernel it does not have, autotuning after the
set-up. The orchestrator's side (pinning, --replay-from) is tests/integration/test_pytest_bridge.cpp."""

import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton"))

import triton  # noqa: E402 - the stand-in, from the path above

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
        # the ledger pins the plain autotuner only, and leaves the database's cache as it was
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


if __name__ == "__main__":
    unittest.main()
