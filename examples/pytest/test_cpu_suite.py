"""A pytest-benchmark suite on the CPU, as its users already have one (docs/python.md, "Existing
pytest benchmarks"). With pytest-benchmark installed it runs as it is:

    pytest examples/pytest/test_cpu_suite.py

isobench compares it between two environments, with no sweep file; here the candidate sorts by a
key that makes sorting slower, so the sort tests are SLOWER and the JSON one is not:

    orchestrate ab --pytest examples/pytest/test_cpu_suite.py --candidate-env EXAMPLE_SORT_KEY=str
"""

import json
import os
import random

import pytest

SORT_KEY = {"": None, "str": str}[os.environ.get("EXAMPLE_SORT_KEY", "")]


@pytest.mark.parametrize("n", [1000, 20000])
def test_sort(benchmark, n):
    data = [random.Random(n).random() for _ in range(n)]
    out = benchmark(sorted, data, key=SORT_KEY)
    assert sorted(out) == sorted(data)


def test_json_roundtrip(benchmark):
    document = {"item%d" % i: {"id": i, "tags": ["a", "b"][: i % 3]} for i in range(200)}
    assert benchmark(lambda: json.loads(json.dumps(document))) == document
