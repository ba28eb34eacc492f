"""Triton kernels written here, as isobench benchmarks (docs/python.md): a fused softmax, a
fused layer norm (forward) and an autotuned matmul, in the style of the Triton tutorials
(02-fused-softmax, 05-layer-norm, 03-matrix-multiplication). A launch enqueues on torch's current stream, which in an isobench worker is the
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


# A few block shapes for Hopper, from the matmul tutorial's list: which one wins depends on the
# shape, so the autotuner's pick is what record/replay pins (docs/python.md).
MATMUL_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
]


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % group_m)
    pid_n = (pid % group) // group_m
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        acc = tl.dot(tl.load(a, mask=rk[None, :] < left, other=0.0), tl.load(b, mask=rk[:, None] < left, other=0.0), acc)
        a += BLOCK_K * stride_ak
        b += BLOCK_K * stride_bk
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


class Matmul:
    def __init__(self, m, n, k, dtype, seed, device):
        self.dtype = dtype
        self.a, self.b = random_tensors(seed, device, (m, k), (k, n), dtype=dtype)
        self.c = torch.empty((m, n), device=device, dtype=self.a.dtype)
        self.m, self.n, self.k = m, n, k
        self.launch()  # autotuning happens here, in the untimed set-up, where isobench records it

    def launch(self):
        grid = lambda meta: (triton.cdiv(self.m, meta["BLOCK_M"]) * triton.cdiv(self.n, meta["BLOCK_N"]),)  # noqa: E731
        matmul_kernel[grid](self.a, self.b, self.c, self.m, self.n, self.k, self.a.stride(0), self.a.stride(1),
                            self.b.stride(0), self.b.stride(1), self.c.stride(0), self.c.stride(1))

    def check(self):
        return agreement(self.c, self.a.float() @ self.b.float(), self.dtype)


def triton_matmul(m, n, k, dtype, seed, device, stream):
    """C = A B with @triton.autotune over four block shapes (keyed on M, N, K)."""
    return Matmul(m, n, k, dtype, seed, device)


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
