"""triton.testing of the stand-in (see triton/__init__.py): do_bench and do_bench_cudagraph with
Triton 3.x's signatures and return kinds, timing `fn` on the host (there is no GPU here), for the
do_bench route's CPU tests (tests/python/test_do_bench.py, tests/integration/test_do_bench.cpp).
CALLS counts the calls each function got in this process."""

import statistics
import time

CALLS = {"do_bench": 0, "do_bench_cudagraph": 0}


def _times(fn, rep):
    fn()  # Triton's first call, which compiles
    times = []
    for _ in range(max(1, rep)):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1e3)
    return times


def _answer(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        values = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in quantiles]
        return values[0] if len(values) == 1 else values
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "median": statistics.median}.get(return_mode, statistics.mean)(times)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    del warmup, grad_to_none
    CALLS["do_bench"] += 1
    return _answer(_times(fn, min(rep, 5)), quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    del grad_to_none
    CALLS["do_bench_cudagraph"] += 1
    return _answer(_times(fn, min(rep, 5)), quantiles, return_mode)
