"""A stand-in, with the stand-in triton.testing (tests/python/fake_triton), for FlagGems'
benchmark/test_softmax.py at --level core: one test whose Benchmark-shaped run() makes 30 timing
calls (3 dtypes x 5 shapes x the torch operator, then the gems one), each input made on the way
as a test makes its tensors. Written for these tests (tests/integration/test_pytest_bridge.cpp,
bench/python_do_bench_chain.sh), not copied from FlagGems.

DO_BENCH_SLOW_CALL=K doubles the work of the test's K-th timing call (1-based, in call order):
the planted regression of an A/B, in one call. DO_BENCH_RUNS, a file each run of the test
appends "<pid>" to: how many times the test ran, and in which process."""

import os
import time

import triton.testing

SLOW_CALL = int(os.environ.get("DO_BENCH_SLOW_CALL", "0"))
DTYPES = ("float16", "float32", "bfloat16")
SHAPES = ((1024, 1024), (1024, 4096), (4096, 1024), (64, 65536), (65536, 64))
CALL_US = 50       # a call's work: short, as test_do_bench_suite's (a preempted sample stays rare)
INPUT_US = 1000    # making one input (allocating and filling it): a test's own cost per shape


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


class Tensor:
    """What the naming reads of an argument: its shape."""

    def __init__(self, *shape):
        self.shape = shape


class Benchmark:
    """Shaped like FlagGems' Benchmark: op_name, torch_op, gems_op; run() over dtypes and shapes
    calls get_latency(op, *args) for the torch operator, then for the gems one."""

    def __init__(self, op_name, torch_op, gems_op):
        self.op_name, self.torch_op, self.gems_op = op_name, torch_op, gems_op
        self.calls = 0

    def get_latency(self, op, *args):
        self.calls += 1
        us = CALL_US * 2 if self.calls == SLOW_CALL else CALL_US
        return triton.testing.do_bench(lambda: op(*args, us), warmup=1000, rep=100, return_mode="median")

    def run(self):
        for dtype in DTYPES:
            for shape in SHAPES:
                spin(INPUT_US)
                x = Tensor(*shape)
                self.get_latency(self.torch_op, x)
                self.get_latency(self.gems_op, x)


def torch_softmax(x, us):
    spin(us)


def gems_softmax(x, us):
    spin(us)


def test_softmax():
    path = os.environ.get("DO_BENCH_RUNS")
    if path:
        with open(path, "a") as f:
            f.write("%d\n" % os.getpid())
    Benchmark("softmax", torch_softmax, gems_softmax).run()
