"""The 4 shapes of bench/gpu/python_ab_speed.yaml as pytest-benchmark tests: the pytest route of
bench/gpu/python_ab_speed.sh (orchestrate ab --pytest with each side's softmax_mod.py folder on its
PYTHONPATH)."""

import pytest

import softmax_mod


@pytest.mark.parametrize("cols", [2048, 4096])
@pytest.mark.parametrize("rows", [4096, 16384])
def test_softmax(benchmark, rows, cols):
    op = softmax_mod.softmax(rows=rows, cols=cols, seed=19, device="cuda", stream=None)
    benchmark(op.launch)
