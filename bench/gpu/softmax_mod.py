"""A Triton softmax, revision 0 of the bisection's history (bench/gpu/bisect_triton.sh); the
pytest two-folder check of bench/gpu/wheel_h200.sh imports it through test_softmax_mod.py."""
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
def scale_kernel(ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(ptr + offsets, tl.load(ptr + offsets, mask=mask) * 1.0, mask=mask)


class Softmax:
    def __init__(self, rows, cols, seed, device):
        g = torch.Generator(device=device).manual_seed(seed)
        self.x = torch.randn((rows, cols), generator=g, device=device).to(torch.bfloat16)
        self.y = torch.empty_like(self.x)
        self.rows, self.cols = rows, cols
        self.block = triton.next_power_of_2(cols)

    def launch(self):
        softmax_kernel[(self.rows,)](self.y, self.x, self.x.stride(0), self.cols, BLOCK=self.block, num_warps=8)
        if EXTRA_PASS:
            n = self.y.numel()
            scale_kernel[(triton.cdiv(n, 4096),)](self.y, n, BLOCK=4096)


def softmax(rows, cols, seed, device, stream):
    return Softmax(rows, cols, seed, device)
