#!/usr/bin/env bash
# On the H200: does the CUDA 12 wheel (scripts/build.sh wheel-cu12: CUDA 12.4 runtime
# inside, linked against glibc 2.28) install and measure where torch's CUDA 13 lives? Installed
# offline into a fresh venv and run from it alone: --version (its flavour and the driver it needs),
# the worker's --check-gpu, the quick sweep with the cuBLASLt GEMM (CUDA 12's cuBLASLt, joined from
# the pieces of bench/gpu/cu12_cublas_carry.sh and put on LD_LIBRARY_PATH: the machine has CUDA
# 13's only), examples/python/gpu.yaml, and the Python A/B of bench/gpu/python_ab_speed.sh (its
# `until` part: a Triton softmax against one more pass, SLOWER, and against itself, SAME), with
# the zygotes in the machine's torch (CUDA 13), beside the worker library's CUDA 12 runtime.
#   bench/gpu/wheel_cu12_h200.sh WHEEL CUBLAS_PIECES OUT
# CUBLAS_PIECES: the folder cu12_cublas_carry.sh filled (its numbered folders, carried one a call).
# Raw outputs in OUT (NAME.out and NAME.rc per step; python-ab/ as python_ab_speed.sh writes it);
# ISOBENCH_DEADLINE_S (default 540) bounds the whole script.
set -uo pipefail
wheel=$(realpath "${1:?give the wheel}")
pieces=$(realpath "${2:?give the folder of cuBLAS pieces}")
results=$(realpath -m "${3:?give a results folder}")
here=$(realpath "$(dirname "$0")")
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-540} ))
mkdir -p "$results"
cd "$results"
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv >gpu.csv 2>&1
nvidia-smi >nvidia-smi.txt 2>&1  # its header names the newest CUDA the driver runs

# CUDA 12's cuBLASLt: the pieces joined in order, checked against the sha256 of the whole .deb.
scratch=$(mktemp -d)
mapfile -t parts < <(find "$pieces" -name 'libcublaslt12.deb.part-*' | awk -F/ '{print $NF "\t" $0}' | sort | cut -f2)
[ ${#parts[@]} -gt 0 ] || { echo "wheel_cu12_h200.sh: no libcublaslt12.deb.part-* under $pieces" >&2; exit 2; }
cat "${parts[@]}" >"$scratch/libcublaslt12.deb"
sum=$(sha256sum "$scratch/libcublaslt12.deb" | cut -d' ' -f1)
{ echo "pieces: ${parts[*]}"; echo "sha256 $sum, expected $(cut -d' ' -f1 "$(dirname "${parts[0]}")/libcublaslt12.deb.sha256")"; } >cublas.out
if ! grep -q "$sum" "$(dirname "${parts[0]}")/libcublaslt12.deb.sha256"; then
  echo "wheel_cu12_h200.sh: the cuBLAS pieces do not make the .deb they were cut from (cublas.out): carry every folder" >&2
  exit 2
fi
dpkg-deb -x "$scratch/libcublaslt12.deb" "$scratch/cublas" >>cublas.out 2>&1
export LD_LIBRARY_PATH="$scratch/cublas/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ls -l "$scratch/cublas/usr/lib/x86_64-linux-gnu" >>cublas.out

venv=$scratch/venv
python3 -m venv --system-site-packages "$venv" >venv.out 2>&1
"$venv/bin/pip" install --no-index --no-deps "$wheel" >pip.out 2>&1
echo "pip rc=$?" >>pip.out
export PATH="$venv/bin:/usr/bin:/bin"
hash -r
{ command -v orchestrate; command -v python; python --version; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; } >where.out 2>&1
# The venv made from the machine's python3 (itself a venv) does not see torch: the Python
# benchmarks run under the interpreter that does (--python), as docs/install.md says.
torch_python=python3
for candidate in /opt/torch/.venv/bin/python3 "$(python -c 'import sys; print(sys._base_executable)')"; do
  if "$candidate" -c "import torch" >/dev/null 2>&1; then torch_python=$candidate; break; fi
done
echo "python for torch: $torch_python" >>where.out
"$torch_python" -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)" >>where.out 2>&1

run() {  # run NAME CAP COMMAND...: output in NAME.out, exit code and wall time in NAME.rc; at most CAP s
  local name=$1 cap=$2 began left
  shift 2
  left=$(( deadline - $(date +%s) ))
  (( left < cap )) && cap=$left
  if (( cap < 10 )); then echo "rc=skipped: the deadline" >"$name.rc"; return; fi
  began=$(date +%s%N)
  timeout -s TERM "$cap" "$@" >"$name.out" 2>&1
  echo "rc=$? wall_s=$(( ($(date +%s%N) - began) / 1000000 ))e-3 command: $*" >"$name.rc"
}
build=$(python -c 'import isobench._installed as i; print(i.BUILD)')
run version 10 orchestrate --version
run check-gpu 30 "$build/bin/isobench-worker" --check-gpu libcublasLt
run quick 150 orchestrate --out "$results/runs/quick" "$(python -m isobench.examples quick)"
run python-gpu 150 orchestrate --python "$torch_python" --out "$results/runs/python-gpu" "$(python -m isobench.examples python-gpu)"
left=$(( deadline - $(date +%s) ))
run python-ab "$left" env ISOBENCH_PYTHON="$torch_python" ISOBENCH_DEADLINE_S=$(( left - 15 )) \
  bash "$here/python_ab_speed.sh" "$results/python-ab" until
for n in version check-gpu quick python-gpu python-ab; do cat "$n.rc"; tail -n 12 "$n.out"; done
for n in until-slower until-same; do echo "== $n"; tail -n 8 "$results/python-ab/$n.out" "$results/python-ab/$n.err" 2>/dev/null; done
rm -rf "$scratch"
