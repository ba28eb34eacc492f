"""The examples' outputs against references on small shapes, through isobench.check (the set-up
a worker makes, one launch, check()). pytest from the repository root:

    PYTHONPATH=python pytest examples/python/test_examples.py

The CPU examples run everywhere (CI runs them with unittest: tests/python/); the torch and Triton
ones need torch, and a GPU for CUDA, and are skipped without them.
"""

import importlib.util
import os
import unittest

import isobench

HERE = os.path.dirname(os.path.abspath(__file__))
HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_TRITON = importlib.util.find_spec("triton") is not None


def cuda_available():
    if not HAVE_TORCH:
        return False
    import torch

    return torch.cuda.is_available()


class CpuExamples(unittest.TestCase):
    def test_sort_floats(self):
        for n in (1, 2, 1000):
            isobench.check(os.path.join(HERE, "cpu_kernels.py"), "sort_floats", n=n)

    def test_json_roundtrip(self):
        isobench.check(os.path.join(HERE, "cpu_kernels.py"), "json_roundtrip", items=50)


@unittest.skipUnless(cuda_available(), "needs torch and a CUDA GPU")
class TorchExamples(unittest.TestCase):
    module = os.path.join(HERE, "torch_ops.py")

    def test_matmul(self):
        for dtype in ("bf16", "fp16", "fp32"):
            isobench.check(self.module, "torch_matmul", device="cuda", m=64, n=48, k=80, dtype=dtype)

    def test_layer_norm(self):
        isobench.check(self.module, "torch_layer_norm", device="cuda", rows=33, hidden=1000, dtype="bf16")

    def test_softmax(self):
        isobench.check(self.module, "torch_softmax", device="cuda", rows=33, cols=1000, dtype="fp16")


@unittest.skipUnless(cuda_available() and HAVE_TRITON, "needs torch, triton and a CUDA GPU")
class TritonExamples(unittest.TestCase):
    module = os.path.join(HERE, "triton_kernels.py")

    def test_softmax(self):
        for rows, cols, dtype in ((1, 7, "fp32"), (33, 1000, "bf16"), (8, 4096, "fp16")):
            isobench.check(self.module, "triton_softmax", device="cuda", rows=rows, cols=cols, dtype=dtype)

    def test_layer_norm(self):
        for rows, hidden, dtype in ((1, 7, "fp32"), (33, 1000, "bf16"), (4, 5000, "fp16")):
            isobench.check(self.module, "triton_layer_norm", device="cuda", rows=rows, hidden=hidden, dtype=dtype)

    def test_matmul(self):
        for m, n, k, dtype in ((64, 48, 80, "bf16"), (256, 512, 384, "fp16")):
            isobench.check(self.module, "triton_matmul", device="cuda", m=m, n=n, k=k, dtype=dtype)


if __name__ == "__main__":
    unittest.main()
