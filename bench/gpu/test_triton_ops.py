"""The operator set of bench/gpu/triton_compiler_ab.yaml as pytest-benchmark tests: what the
pytest bridge runs (bench/gpu/triton_compiler_ab_pytest.yaml), and what `pytest --benchmark-only`
would time by itself. The same kernels and shapes as the python: entries (inputs from another
seed: these kernels' times do not depend on the values), so the medians of the two should agree
within their noise."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
import triton_kernels  # noqa: E402

SEED = 19


@pytest.mark.parametrize("rows", [4096, 16384])
def test_softmax(benchmark, rows):
    op = triton_kernels.triton_softmax(rows=rows, cols=4096, dtype="bf16", seed=SEED, device="cuda", stream=None)
    benchmark(op.launch)
    assert op.check() is None


@pytest.mark.parametrize("hidden", [4096, 8192])
def test_layer_norm(benchmark, hidden):
    op = triton_kernels.triton_layer_norm(rows=4096, hidden=hidden, dtype="bf16", seed=SEED, device="cuda", stream=None)
    benchmark(op.launch)
    assert op.check() is None


@pytest.mark.parametrize("m", [2048, 4096])
def test_matmul(benchmark, m):
    op = triton_kernels.triton_matmul(m=m, n=4096, k=4096, dtype="bf16", seed=SEED, device="cuda", stream=None)
    benchmark(op.launch)
    assert op.check() is None
