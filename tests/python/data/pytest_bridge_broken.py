import pytest_bridge_no_such_module  # noqa: F401 - the file that does not import


def test_never_collected(benchmark):
    benchmark(len, "")
