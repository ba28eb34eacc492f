"""Triton kernels written here, as isobench benchmarks (docs/python.md): a fused softmax and a
fused layer norm (forward), in the style of the Triton tutorials (02-fused-softmax,
05-layer-norm). A launch enqueues on torch's current stream, which in an isobench worker is the
worker's stream; check() compares with torch on small shapes (test_examples.py).

ISOBENCH_EXAMPLE_SOFTMAX_VARIANT makes a real regression of the softmax, for A/B runs across
Python environments (`orchestrate ab --candidate-env ISOBENCH_EXAMPLE_SOFTMAX_VARIANT=extra_pass`):
  fused       (default) one program per row, the whole row in registers, one read and one write
  extra_pass  the same, then one more elementwise kernel over the output (y * 1.0: one more read
              and write of it), as an unfused epilogue would
  one_warp    the same kernel launched with one warp per row instead of 4-16: a worse block shape
"""

import os

import torch
import triton
import triton.language as tl
from example_tensors import agreement, random_tensors

SOFTMAX_VARIANT = os.environ.get("ISOBENCH_EXAMPLE_SOFTMAX_VARIANT", "fused")
if SOFTMAX_VARIANT not in ("fused", "extra_pass", "one_warp"):
    raise ValueError("ISOBENCH_EXAMPLE_SOFTMAX_VARIANT=%s: expected fused, extra_pass or one_warp" % SOFTMAX_VARIANT)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def scale_kernel(ptr, n, factor, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(ptr + offsets, mask=mask)
    tl.store(ptr + offsets, (x.to(tl.float32) * factor).to(ptr.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for offset in range(0, n_cols, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        partial += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(partial, axis=0) / n_cols
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for offset in range(0, n_cols, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        partial += x * x
    rstd = 1 / tl.sqrt(tl.sum(partial, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for offset in range(0, n_cols, BLOCK_SIZE):
        cols = offset + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class Softmax:
    def __init__(self, rows, cols, dtype, seed, device):
        self.dtype = dtype
        (self.x,) = random_tensors(seed, device, (rows, cols), dtype=dtype)
        self.y = torch.empty_like(self.x)
        self.block = triton.next_power_of_2(cols)
        self.num_warps = 1 if SOFTMAX_VARIANT == "one_warp" else 16 if self.block >= 4096 else 8 if self.block >= 2048 else 4
        self.rows, self.cols = rows, cols

    def launch(self):
        softmax_kernel[(self.rows,)](self.y, self.x, self.x.stride(0), self.y.stride(0), self.cols,
                                     BLOCK_SIZE=self.block, num_warps=self.num_warps)
        if SOFTMAX_VARIANT == "extra_pass":
            n = self.y.numel()
            scale_kernel[(triton.cdiv(n, 1024),)](self.y, n, 1.0, BLOCK_SIZE=1024)

    def check(self):
        return agreement(self.y, torch.softmax(self.x.float(), dim=-1), self.dtype)


def triton_softmax(rows, cols, dtype, seed, device, stream):
    """Row-wise softmax, one program per row (rows of at most 64K elements)."""
    return Softmax(rows, cols, dtype, seed, device)


class LayerNorm:
    def __init__(self, rows, hidden, dtype, seed, device):
        self.dtype = dtype
        self.x, self.weight, self.bias = random_tensors(seed, device, (rows, hidden), (hidden,), (hidden,), dtype=dtype)
        self.y = torch.empty_like(self.x)
        self.mean = torch.empty((rows,), device=device, dtype=torch.float32)
        self.rstd = torch.empty((rows,), device=device, dtype=torch.float32)
        self.block = min(65536 // self.x.element_size(), triton.next_power_of_2(hidden))
        self.num_warps = min(max(self.block // 256, 1), 8)
        self.rows, self.hidden = rows, hidden

    def launch(self):
        layer_norm_kernel[(self.rows,)](self.x, self.y, self.weight, self.bias, self.mean, self.rstd, self.x.stride(0),
                                        self.hidden, 1e-5, BLOCK_SIZE=self.block, num_warps=self.num_warps)

    def check(self):
        reference = torch.nn.functional.layer_norm(self.x.float(), (self.hidden,), self.weight.float(),
                                                   self.bias.float(), 1e-5)
        return agreement(self.y, reference, self.dtype)


def triton_layer_norm(rows, hidden, dtype, seed, device, stream):
    """Layer norm forward over each row, fused (mean, variance, normalisation in one kernel)."""
    return LayerNorm(rows, hidden, dtype, seed, device)
