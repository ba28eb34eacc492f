"""A do_bench file whose import asks torch about the device (tests/python/fake_torch/
cuda_props_on_import.py, as `import flag_gems` does): the collector sees CUDA initialised, and the
zygote imports it with CUDA deferred, once (tests/python/test_deferred_cuda.py)."""

import time

import cuda_props_on_import
import triton.testing


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def test_spin():
    assert cuda_props_on_import.SMS == 132
    triton.testing.do_bench(lambda: spin(100))
    triton.testing.do_bench(lambda: spin(200))
