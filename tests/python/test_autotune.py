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
        with self.assertRaises(autotune.AutotuneError) as caught:
            ledger.begin({autotune.RECORD_KEY: [{"kernel": "elsewhere.matmul", "key": [1], "config": {}}]})
        self.assertIn("names elsewhere.matmul", str(caught.exception))

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


if __name__ == "__main__":
    unittest.main()
