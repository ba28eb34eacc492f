"""The 4 shapes of bench/gpu/setup_cadence.yaml as pytest-benchmark tests: the pytest route of
bench/gpu/setup_cadence.sh (each side's setup_mod.py folder on its PYTHONPATH)."""

import pytest

import setup_mod


@pytest.mark.parametrize("cols", [2048, 4096])
@pytest.mark.parametrize("rows", [4096, 16384])
def test_four_kernels(benchmark, rows, cols):
    op = setup_mod.four_kernels(rows=rows, cols=cols, seed=19, device="cuda", stream=None)
    benchmark(op.launch)
