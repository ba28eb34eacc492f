"""Benchmarks for pytest-benchmark to time, only so that its JSON can be committed as test data
for `orchestrate import` (tools/import_data/make_test_data.sh)."""
import pytest


@pytest.mark.parametrize("n", [1000, 10000])
def test_sum(benchmark, n):
    values = list(range(n))
    assert benchmark(sum, values) == n * (n - 1) // 2


def test_sorted(benchmark):
    values = list(range(2000, 0, -1))
    assert benchmark(sorted, values)[0] == 1
