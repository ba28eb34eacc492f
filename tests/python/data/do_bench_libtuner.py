"""A do_bench file whose kernels are tuned as FlagGems' are, for the replay of their choices
(tests/integration/test_pytest_bridge.cpp): each operation a LibEntry holding a LibTuner of the
stand-in (tests/python/fake_flaggems, with tests/python/fake_triton), whose choice the stand-in's
FAKE_TRITON_BEST picks. DO_BENCH_TILES, on a side, gives the softmax tuner other configurations
(the recorded one among none of them: its replay falls back); the layernorm tuner keeps its own."""

import os
import time

import triton.testing
from flag_gems import libentry
from triton.runtime.autotuner import Config

HERE = os.path.dirname(os.path.abspath(__file__))


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def _softmax(x, n, TILE, **launch):
    spin(TILE / 8)


def _layernorm(x, n, TILE, **launch):
    spin(TILE / 8)


TILES = [int(t) for t in os.environ.get("DO_BENCH_TILES", "64,128").split(",")]
softmax = libentry.LibEntry(libentry.libtuner([Config({"TILE": t}) for t in TILES], key=["n"])(_softmax))
layernorm = libentry.LibEntry(libentry.libtuner([Config({"TILE": 64}), Config({"TILE": 128})], key=["n"])(_layernorm))


def test_softmax():
    triton.testing.do_bench(lambda: softmax(libentry.Tensor("torch.float16"), 1000))


def test_layernorm():
    triton.testing.do_bench(lambda: layernorm(libentry.Tensor("torch.float16"), 1000))
