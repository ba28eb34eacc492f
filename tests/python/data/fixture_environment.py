"""A pytest-benchmark file (isobench's `benchmark` fixture) for tests/python/test_deferred_cuda.py:
the zygotes started while it is collected are given the variables of a plan that times through
do_bench (FLAGGEMS_CACHE_DIR, ISOBENCH_TUNER_REPLAY), which this plan has not. Its test fails
where a worker still sees them. With FIXTURE_IMPORTS_FLAGGEMS set it imports flag_gems
(tests/python/fake_flaggems), which reads FLAGGEMS_CACHE_DIR when imported; with
FIXTURE_ASKS_AVAILABLE, torch.cuda.is_available(), which initialises no CUDA (a plain import
leaves the zygote fit to fork workers)."""

import os

if os.environ.get("FIXTURE_IMPORTS_FLAGGEMS"):
    import flag_gems  # noqa: F401
if os.environ.get("FIXTURE_ASKS_AVAILABLE"):
    import torch

    assert torch.cuda.is_available()


def test_sum(benchmark):
    seen = [name for name in ("FLAGGEMS_CACHE_DIR", "ISOBENCH_TUNER_REPLAY") if name in os.environ]
    assert not seen, "the worker sees %s" % seen
    benchmark(sum, range(100))
