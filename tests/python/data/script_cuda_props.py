"""A benchmark script whose top-level imports ask torch about the device (tests/python/fake_torch/
cuda_props_on_import.py, as Liger-Kernel's benchmark utils ask torch.cuda.is_available()): the
collector sees CUDA initialised, and each zygote imports the script's imports with CUDA deferred,
once (tests/python/test_deferred_cuda.py)."""

import time

import cuda_props_on_import
import triton.testing


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


if __name__ == "__main__":
    assert cuda_props_on_import.SMS == 132
    for us in (100, 200):
        triton.testing.do_bench(lambda: spin(us))
