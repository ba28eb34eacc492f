"""A pytest file that imports triton.testing and times nothing through it (the do_bench route
refuses it: tests/python/test_do_bench.py)."""

import triton.testing  # noqa: F401


def test_untimed():
    assert True
