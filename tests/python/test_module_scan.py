"""The module scans of autotune.py and triton_ir.py (python/isobench/module_scan.py) among globals
whose attributes warn: torch's `torch.distributed.reduce_op` (an object whose __getattribute__
raises FutureWarning: isinstance() looked up its __class__) and a module-level __getattr__ for a
deprecated name. The scans still find the kernels beside them, and warn nothing."""

import os
import sys
import types
import unittest
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton"))

import triton  # noqa: E402 - the stand-in, from the path above

from isobench import autotune, triton_ir  # noqa: E402


class _DeprecatedReduceOp:
    """As torch.distributed.reduce_op: every attribute read warns."""

    def __getattribute__(self, name):
        warnings.warn("torch.distributed.reduce_op is deprecated", FutureWarning)
        return object.__getattribute__(self, name)


def _module_getattr(name):
    if name == "old_name":
        warnings.warn("old_name is deprecated", DeprecationWarning)
        return 1
    raise AttributeError(name)


def make_module():
    module = types.ModuleType("module_scan_test_kernels")
    module.reduce_op = _DeprecatedReduceOp()
    module.__getattr__ = _module_getattr
    module.scale = triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])(lambda n, BLOCK: None)
    module.softmax = triton.jit(lambda BLOCK: None)
    sys.modules[module.__name__] = module
    return module


class ModuleScan(unittest.TestCase):
    def setUp(self):
        self.addCleanup(sys.modules.pop, "module_scan_test_kernels", None)
        self.module = make_module()

    def test_the_stand_in_warns_when_touched(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            isinstance(self.module.reduce_op, triton.JITFunction)
            getattr(self.module, "old_name")
        self.assertEqual([w.category for w in caught], [FutureWarning, DeprecationWarning])

    def test_the_autotune_scan_finds_the_kernel_and_warns_nothing(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ledger = autotune.AutotuneLedger()
            ledger.begin(None)
            ledger.end()
        self.assertEqual([str(w.message) for w in caught], [])
        self.assertIn(id(self.module.scale), ledger.caches)

    def test_the_triton_ir_scan_finds_the_kernel_and_warns_nothing(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = triton_ir._jit_functions()
        self.assertEqual([str(w.message) for w in caught], [])
        self.assertIn(self.module.softmax, found)


if __name__ == "__main__":
    unittest.main()
