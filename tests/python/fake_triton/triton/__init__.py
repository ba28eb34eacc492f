"""A stand-in for triton's autotuner, for tests without a GPU (tests/python/test_autotune.py,
tests/integration/test_pytest_bridge.cpp): `triton.autotune` and `triton.Config` with the
autotuner's cache protocol of Triton 3.x (python/triton/runtime/autotuner.py: `key not in
self.cache`, then `self.cache[key] = best`, then `config = self.cache[key]`). Which configuration
"benchmarks" fastest is FAKE_TRITON_BEST (an index into configs) or, with FAKE_TRITON_BEST=pid,
the process id modulo the number of configs: a pick that differs between processes, as a real
autotuner's can."""

from .runtime.autotuner import Autotuner, Config, autotune

__version__ = "0.0-fake"
__all__ = ["Autotuner", "Config", "autotune"]
