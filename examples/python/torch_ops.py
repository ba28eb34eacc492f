"""torch operators as isobench benchmarks (docs/python.md): a matmul, a layer norm and a softmax.

Each set-up function makes its inputs from `seed` on `device` and returns an object whose
launch() runs the operator once on torch's current stream, which in an isobench worker is the
worker's stream (the worker makes it current before the first CUDA set-up). check() compares the
last launch's output with a float32 reference; run it on small shapes (test_examples.py).
Outputs are preallocated where torch has an out= form, so a launch allocates nothing and a CUDA
graph replays it as it ran.
"""

import torch
from example_tensors import DTYPES, agreement, random_tensors


class Matmul:
    def __init__(self, m, n, k, dtype, seed, device):
        self.dtype = dtype
        self.a, self.b = random_tensors(seed, device, (m, k), (k, n), dtype=dtype)
        self.c = torch.empty((m, n), device=device, dtype=DTYPES[dtype])

    def launch(self):
        torch.matmul(self.a, self.b, out=self.c)

    def check(self):
        return agreement(self.c, self.a.float() @ self.b.float(), self.dtype)


def torch_matmul(m, n, k, dtype, seed, device, stream):
    """C = A B, A m x k, B k x n (cuBLAS through torch on CUDA)."""
    return Matmul(m, n, k, dtype, seed, device)


class LayerNorm:
    def __init__(self, rows, hidden, dtype, seed, device):
        self.dtype = dtype
        self.x, self.weight, self.bias = random_tensors(seed, device, (rows, hidden), (hidden,), (hidden,), dtype=dtype)
        self.y = None

    def launch(self):
        self.y = torch.nn.functional.layer_norm(self.x, self.x.shape[-1:], self.weight, self.bias, 1e-5)

    def check(self):
        reference = torch.nn.functional.layer_norm(self.x.float(), self.x.shape[-1:], self.weight.float(),
                                                   self.bias.float(), 1e-5)
        return agreement(self.y, reference, self.dtype)


def torch_layer_norm(rows, hidden, dtype, seed, device, stream):
    """torch.nn.functional.layer_norm over the last dimension, with weight and bias."""
    return LayerNorm(rows, hidden, dtype, seed, device)


class Softmax:
    def __init__(self, rows, cols, dtype, seed, device):
        self.dtype = dtype
        (self.x,) = random_tensors(seed, device, (rows, cols), dtype=dtype)
        self.y = None

    def launch(self):
        self.y = torch.softmax(self.x, dim=-1)

    def check(self):
        return agreement(self.y, torch.softmax(self.x.float(), dim=-1), self.dtype)


def torch_softmax(rows, cols, dtype, seed, device, stream):
    """torch.softmax over each row."""
    return Softmax(rows, cols, dtype, seed, device)
