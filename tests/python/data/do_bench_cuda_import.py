"""A do_bench file whose import "initialises CUDA" (tests/python/fake_torch/cuda_on_import.py, as
`import flag_gems` does): no zygote may import it; each worker does (test_pytest_bridge.cpp)."""

import time

import cuda_on_import  # noqa: F401
import triton.testing


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def test_spin():
    triton.testing.do_bench(lambda: spin(100))
    triton.testing.do_bench(lambda: spin(200))
