"""bench/gpu/softmax_mod.py as a pytest-benchmark test: bench/gpu/wheel_h200.sh compares it between
two folders that each hold a copy of the module (orchestrate ab --pytest with
--baseline-pythonpath A --candidate-pythonpath B): SAME for two copies of one file, SLOWER for a
copy with the extra pass."""

import pytest

import softmax_mod


@pytest.mark.parametrize("rows", [4096, 16384])
def test_softmax(benchmark, rows):
    op = softmax_mod.softmax(rows=rows, cols=4096, seed=19, device="cuda", stream=None)
    benchmark(op.launch)
