"""A Python benchmark whose per-worker set-up costs what a careful user's does (bench/gpu/
setup_cadence.sh): per instance, four Triton kernels (a row softmax, a row RMS norm, a fused
scale-add and a row sum) are given inputs from a seeded generator, launched once and checked
against torch. The timed launch runs the four in turn. EXTRA_PASS (set in the candidate's copy)
adds a pass over the output to the softmax: a real regression of one kernel."""
import torch
import triton
import triton.language as tl

EXTRA_PASS = False


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_kernel(out_ptr, in_ptr, w_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * stride + cols, (x / rms * w).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def scale_add_kernel(out_ptr, a_ptr, b_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(out_ptr + offsets, (a * alpha + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def row_sum_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def rescale_kernel(ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(ptr + offsets, tl.load(ptr + offsets, mask=mask) * 1.0, mask=mask)


class FourKernels:
    def __init__(self, rows, cols, seed, device):
        g = torch.Generator(device=device).manual_seed(seed)
        self.rows, self.cols = rows, cols
        self.block = triton.next_power_of_2(cols)
        self.x = torch.randn((rows, cols), generator=g, device=device).to(torch.bfloat16)
        self.w = torch.rand((cols,), generator=g, device=device).to(torch.bfloat16)
        self.b = torch.randn((rows, cols), generator=g, device=device).to(torch.bfloat16)
        self.soft = torch.empty_like(self.x)
        self.norm = torch.empty_like(self.x)
        self.fused = torch.empty_like(self.x)
        self.sums = torch.empty((rows,), device=device, dtype=torch.float32)
        self.launch()
        self.check_against_torch()

    def launch(self):
        n = self.x.numel()
        softmax_kernel[(self.rows,)](self.soft, self.x, self.x.stride(0), self.cols, BLOCK=self.block, num_warps=8)
        if EXTRA_PASS:
            rescale_kernel[(triton.cdiv(n, 4096),)](self.soft, n, BLOCK=4096)
        rms_norm_kernel[(self.rows,)](self.norm, self.x, self.w, self.x.stride(0), self.cols, 1e-6,
                                      BLOCK=self.block, num_warps=8)
        scale_add_kernel[(triton.cdiv(n, 4096),)](self.fused, self.x, self.b, n, 0.5, BLOCK=4096)
        row_sum_kernel[(self.rows,)](self.sums, self.x, self.x.stride(0), self.cols, BLOCK=self.block, num_warps=8)

    def check_against_torch(self):
        x = self.x.float()
        torch.testing.assert_close(self.soft.float(), torch.softmax(x, dim=-1), atol=2e-2, rtol=2e-2)
        rms = torch.sqrt((x * x).mean(dim=-1, keepdim=True) + 1e-6)
        torch.testing.assert_close(self.norm.float(), x / rms * self.w.float(), atol=5e-2, rtol=5e-2)
        torch.testing.assert_close(self.fused.float(), x * 0.5 + self.b.float(), atol=5e-2, rtol=5e-2)
        torch.testing.assert_close(self.sums, x.sum(dim=-1), atol=1.0, rtol=2e-2)


def four_kernels(rows, cols, seed, device, stream):
    return FourKernels(rows, cols, seed, device)
