"""A benchmark file in the styles real suites mix: pytest-benchmark's fixture with group marks,
parametrize ids and fixture ids, pytest-codspeed's decorator style and marker-only tests,
benchmark.pedantic, a method of a class, a doctest, a test that is not a benchmark. CALLS counts
the calls of each body, so a test can tell a set-up from a launch."""

import json

import pytest

CALLS = {}


def count(name):
    CALLS[name] = CALLS.get(name, 0) + 1


def join_url(base, path):
    """Joins a base URL and a path, as a URL library's join would.

    >>> join_url("http://example.com/a/", "b/c")
    'http://example.com/a/b/c'
    """
    return base.rstrip("/") + "/" + path.lstrip("/")


@pytest.mark.benchmark(group="url", min_rounds=10, warmup=True)
def test_url_join(benchmark):
    count("test_url_join")
    assert benchmark(join_url, "http://example.com/a/", "b/c") == "http://example.com/a/b/c"


@pytest.mark.parametrize("size", [10, 1000], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_reduce(benchmark, kind, size):
    data = list(range(size))
    fn = sum if kind == "sum" else max
    assert benchmark(fn, data) == fn(data)


def test_getall(benchmark, validator):
    count("test_getall")
    made = benchmark(validator)
    assert isinstance(made, validator)


def test_load_records(benchmark, records):
    loaded = benchmark(lambda: json.loads(records.read_text()))
    assert len(loaded) == 200


def test_decorated(benchmark):
    count("test_decorated")
    words = ["alpha", "beta", "gamma"] * 50

    @benchmark
    def _():
        count("test_decorated launch")
        return sorted(words)


def test_pedantic(benchmark):
    made = []

    def setup():
        made.append(1)
        return (list(range(500, 0, -1)),), {}

    result = benchmark.pedantic(sorted, setup=setup, rounds=20, warmup_rounds=2)
    assert result[0] == 1 and made  # pytest-benchmark sets up each round, isobench once


@pytest.mark.benchmark(group="marker", max_time=0.5)
def test_marker_only():
    count("test_marker_only")
    assert sum(range(300)) == 44850


@pytest.mark.benchmark
@pytest.mark.parametrize("n", [3, 30])
def test_marker_only_with_fixture(validator, n):
    assert len([validator] * n) == n


class TestEncode:
    @pytest.mark.benchmark(group="encode")
    def test_dumps(self, benchmark):
        assert benchmark(json.dumps, {"a": [1, 2, 3]}) == '{"a": [1, 2, 3]}'


@pytest.mark.slow
def test_not_a_benchmark():
    assert join_url("a", "b") == "a/b"
