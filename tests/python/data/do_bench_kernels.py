"""A do_bench suite whose timed callables launch kernels of the stand-in Triton
(tests/python/fake_triton: triton.jit, knobs.runtime.launch_enter_hook, compiled kernels that
carry their IR stages), for the IR of what a do_bench instance launches
(tests/python/test_do_bench.py). Written for these tests.

test_softmax_kernels makes two timing calls: the first ("torch") launches no Triton kernel; the
second ("gems") launches softmax_kernel with the block size an autotuning step chose, then
norm_kernel. The block size is chosen on the call's first call by timing each candidate through
triton.testing.do_bench from the stand-in autotuner's module, a call that passes through to
Triton's do_bench as Triton's Autotuner's does; those launches are the tuner's, not the call's.
Calls of the gems callable are counted in GEMS_CALLS. DO_BENCH_IR_FUSION=0 compiles softmax_kernel
without FP fusion, which the stand-in's TTGIR shows ("nocontract"): a candidate whose TTGIR differs.

test_ir_on_the_cpu is for tests/integration/test_pytest_bridge.cpp: a worker records the IR of
CUDA instances only, and that A/B runs on --device cpu, so the test records what its one call
launches itself, right before the call, as the worker's set-up of a CUDA instance would
(isobench.triton_ir, into the artifact folder the worker set for the call's set-up; nothing at
collection, where there is none)."""

import os

import triton
import triton.testing
from triton.runtime import autotuner

FUSION = os.environ.get("DO_BENCH_IR_FUSION", "1") != "0"
GEMS_CALLS = []
_chosen = {}


def _softmax(BLOCK):
    pass


def _norm(BLOCK):
    pass


softmax_kernel = triton.jit(_softmax)
softmax_kernel.fn.__name__ = "softmax_kernel"
norm_kernel = triton.jit(_norm)
norm_kernel.fn.__name__ = "norm_kernel"


class Tensor:
    """What the naming reads of an argument: its shape."""

    def __init__(self, *shape):
        self.shape = shape


def torch_softmax(x):
    del x


def gems_softmax(x):
    GEMS_CALLS.append(x.shape)
    block = _chosen.get(x.shape)
    if block is None:
        candidates = [256, 128]
        autotuner.benchmark_configs(lambda b: softmax_kernel.launch(BLOCK=b), candidates)
        block = _chosen[x.shape] = candidates[1]
    softmax_kernel.launch(BLOCK=block, fp_fusion=FUSION)
    norm_kernel.launch(BLOCK=32, num_warps=8)


def test_softmax_kernels():
    x = Tensor(64, 64)
    triton.testing.do_bench(lambda: torch_softmax(x))
    triton.testing.do_bench(lambda: gems_softmax(x))


def test_ir_on_the_cpu():
    from isobench import triton_ir
    x = Tensor(256, 8)
    call = lambda: gems_softmax(x)  # noqa: E731
    call()  # its first call, which tunes
    folder = triton_ir.artifact_folder()
    if triton_ir.wanted(folder):
        triton_ir.record(call, folder, lambda: None, defer_sass=True)
    triton.testing.do_bench(call)
