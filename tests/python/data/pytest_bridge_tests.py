"""Tests as a pytest-benchmark suite would write them, for tests/python/test_pytest_bridge.py and
tests/integration/test_pytest_bridge.cpp (pure Python: CI has no torch). SET_UP counts the test
bodies that ran, LAUNCHES the calls of what they handed to the fixture."""

import pytest

SET_UP = []
LAUNCHES = []


def work(n):
    LAUNCHES.append(n)
    return sum(range(n))


@pytest.mark.parametrize("n", [10, 2000])
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_reduce(benchmark, kind, n):
    SET_UP.append((kind, n))
    data = list(range(n))
    fn = sum if kind == "sum" else max
    assert benchmark(fn, data) == fn(data)


def test_work(benchmark):
    SET_UP.append("work")
    assert benchmark(work, n=5) == 10


def test_without_fixture():
    assert True


def test_wrong_answer(benchmark):
    assert benchmark(work, 3) == 4, "three is not four"


def test_twice(benchmark):
    benchmark(work, 1)
    benchmark(work, 2)


def test_never_calls(benchmark):
    pass


@pytest.mark.skip(reason="not on this machine")
def test_skipped(benchmark):
    benchmark(work, 1)


class TestPedantic:
    def test_sorted(self, benchmark):
        made = []
        result = benchmark.pedantic(sorted, setup=lambda: made.append(1) or (([3, 1, 2],), {}), rounds=50)
        assert result == [1, 2, 3] and made == [1]


EVENTS = []


@pytest.fixture(scope="module")
def module_resource():
    EVENTS.append("module up")
    yield "resource"
    EVENTS.append("module down")


def test_shared_resource(benchmark, module_resource):
    assert benchmark(work, 1) == 0 and module_resource == "resource"
