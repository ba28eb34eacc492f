#!/usr/bin/env bash
# Issue 31 on a GPU: `orchestrate bisect` over a git history of a Triton softmax module, 8 commits
# after GOOD, the fifth of which adds one more elementwise pass over the output (a real
# regression of about one more read and write of it). The "build" copies the module into
# {out}/py, which each side imports through --python-path. orchestrate comes from PATH (the
# wheel's venv on the H200).
#   bench/gpu/bisect_triton.sh RESULTS_DIR
set -euo pipefail
results=$(realpath -m "${1:?give a results folder}")
mkdir -p "$results"
work=$(mktemp -d)
repo=$work/repo
git init -q "$repo"
cd "$repo"
git config user.email bisect@isobench.invalid
git config user.name "isobench bisect"

# The module at revision $1: EXTRA_PASS from revision 5 on; every revision changes a comment, so
# every commit is a commit of the kernel file.
module() {
  local extra=False
  [ "$1" -ge 5 ] && extra=True
  cat <<EOF
"""A Triton softmax, revision $1 of the bisection's history."""
import torch
import triton
import triton.language as tl

EXTRA_PASS = $extra


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
    # revision $1
    return Softmax(rows, cols, seed, device)
EOF
}
for i in $(seq 0 8); do
  module "$i" >softmax_mod.py
  git add softmax_mod.py
  git commit -qm "softmax revision $i"
done
good=$(git rev-list --reverse HEAD | head -n 1)
bad=$(git rev-parse HEAD)
cat >sweep.yaml <<'EOF'
settings: {timer: graph}
benchmarks:
  - python: softmax_mod
    function: softmax
    axes: {rows: [4096, 16384], cols: 4096}
EOF
git log --format='%H %s' >"$results/commits.txt"
cp sweep.yaml "$results/sweep.yaml"
command=(orchestrate bisect --good "$good" --bad "$bad"
         --build 'mkdir -p {out}/py && cp {worktree}/softmax_mod.py {out}/py/' --python-path py
         --out "$results/bisection" sweep.yaml)
echo "${command[*]}" >"$results/command.txt"
began=$(date +%s%N)
set +e
"${command[@]}" >"$results/bisect.out" 2>"$results/bisect.err"
rc=$?
set -e
echo "rc=$rc wall_s=$(( ($(date +%s%N) - began) / 1000000 ))e-3" >"$results/bisect.rc"
cat "$results/bisect.out" "$results/bisect.err" "$results/bisect.rc"
