"""A do_bench suite for the do_bench route's tests (tests/python/test_do_bench.py,
tests/integration/test_do_bench.cpp), with the stand-in triton.testing (tests/python/fake_triton):
tests that time through triton.testing.do_bench / do_bench_cudagraph as FlagGems' benchmark/ and
Liger-Kernel's scripts do, written for these tests. DO_BENCH_SLOW names the operation whose work
is made slower (the planted regression of an A/B; "torch_softmax" slows the torch operator, a
control); DO_BENCH_LOG, a file each test appends what
its do_bench calls returned to ("<test> <call> <kind of value>")."""

import os
import time

import pytest
import triton.testing
from triton.runtime import autotuner
from triton.runtime.jit import KernelInterface

SLOW = os.environ.get("DO_BENCH_SLOW", "")


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def log(test, call, value):
    path = os.environ.get("DO_BENCH_LOG")
    if path:
        kind = "list%d" % len(value) if isinstance(value, list) else type(value).__name__
        with open(path, "a") as f:
            f.write("%s %s %s %d\n" % (test, call, kind, os.getpid()))


class Tensor:
    """What the naming reads of an argument: its shape."""

    def __init__(self, *shape):
        self.shape = shape


class Bench:
    """Shaped like FlagGems' Benchmark (op_name, torch_op, gems_op; run() over dtypes and shapes
    calls get_latency(op, *args) for the torch operator, then for the gems one)."""

    def __init__(self, op_name, torch_op, gems_op, dtypes, shapes, us):
        self.op_name, self.torch_op, self.gems_op = op_name, torch_op, gems_op
        self.dtypes, self.shapes, self.us = dtypes, shapes, us
        self.results = []

    def get_latency(self, op, *args, **kwargs):
        fn = lambda: op(*args, **kwargs)  # noqa: E731
        return triton.testing.do_bench(fn, warmup=10, rep=5, return_mode="median")

    def run(self):
        for dtype in self.dtypes:
            for shape in self.shapes:
                args = (Tensor(*shape), self.us)
                base = self.get_latency(self.torch_op, *args)
                latency = self.get_latency(self.gems_op, *args)
                self.results.append(base / latency)
                log("test_flaggems_like", "%s/%s" % (dtype, "x".join(map(str, shape))), latency)


def torch_softmax(x, us):
    spin(us * 2 if SLOW == "torch_softmax" else us)  # a control that moves: the A/B is suspect


def gems_softmax(x, us):
    spin(us * 2 if SLOW == "softmax" else us)


def test_flaggems_like():
    # 50 us a call: a sample (3 calls) that a loaded machine's scheduler preempts reads slower by
    # milliseconds, beyond a doubled call; short calls make such samples rare (about 4% of the
    # baseline's on a 2-core machine at load 9, against about 20% at 200 us).
    Bench("softmax", torch_softmax, gems_softmax, ["float16", "float32"], [(64, 64), (256, 8)], 50).run()


def bench_op(name, us):
    def fn():
        spin(us * 2 if SLOW == name else us)
    return triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])


@pytest.mark.parametrize("n", [1, 2])
def test_plain(n):
    # Autotuning first: its do_bench calls are the tuner's, not the test's.
    autotuner.benchmark_configs(lambda config: spin(10), [1, 2])
    for name in ("add", "mul"):
        value = bench_op(name, 40 * n)  # short calls, as test_flaggems_like's (why: there)
        log("test_plain[%d]" % n, name, value)
        assert isinstance(value, list) and len(value) == 3


def test_graph():
    value = triton.testing.do_bench_cudagraph(lambda: spin(100))
    log("test_graph", "graph", value)
    assert value > 0


def _plain(n, BLOCK, **launch):
    spin(20 * BLOCK)


def _wrapped(n, BLOCK, **launch):
    spin(20 * BLOCK)


class Entry(KernelInterface):
    """Holds its autotuner as `fn`, as FlagGems' LibEntry holds its LibTuner: the autotuner is no
    global of the module, so isobench does not pin it, and records what it chose."""

    def __init__(self, fn):
        self.fn = fn

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs)


TUNED_CONFIGS = [autotuner.Config({"BLOCK": 1}), autotuner.Config({"BLOCK": 2})]
tuned_plain = autotuner.autotune(TUNED_CONFIGS, key=["n"])(_plain)  # pinned from the baseline
tuned_wrapped = Entry(autotuner.autotune(TUNED_CONFIGS, key=["n"])(_wrapped))  # each side tunes


def test_autotuned():
    triton.testing.do_bench(lambda: (tuned_plain(8), tuned_wrapped.run(8)))


def test_nothing_timed():
    pass
