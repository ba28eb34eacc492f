"""A stand-in for triton's autotuner, for tests without a GPU (tests/python/test_autotune.py,
tests/integration/test_pytest_bridge.cpp): `triton.autotune` and `triton.Config` with the
autotuner's cache protocol of Triton 3.x (python/triton/runtime/autotuner.py: `key not in
self.cache`, then `self.cache[key] = best`, then `config = self.cache[key]`). Which configuration
"benchmarks" fastest is FAKE_TRITON_BEST (an index into configs) or, with FAKE_TRITON_BEST=pid,
the process id modulo the number of configs: a pick that differs between processes, as a real
autotuner's can. `triton.jit`, `triton.knobs.runtime.launch_enter_hook` and the compiled
kernels' IR stages (runtime/jit.py) are for tests/python/test_triton_ir.py."""

from . import knobs
from .runtime.autotuner import Autotuner, Config, autotune
from .runtime.jit import JITFunction, jit

__version__ = "0.0-fake"
__all__ = ["Autotuner", "Config", "JITFunction", "autotune", "jit", "knobs"]
