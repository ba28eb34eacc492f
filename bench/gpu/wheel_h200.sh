#!/usr/bin/env bash
# The wheel on the H200: the CUDA wheel built on the development machine, installed offline into a
# fresh venv, and run from that venv alone (nothing else of isobench is on PATH): --version, the
# quick sweep (cuBLASLt found at run time), examples/python/gpu.yaml, and ab --pytest comparing
# two folders of a Triton kernel (the same file: SAME; one more pass: SLOWER). Then the
# bisection of a Triton kernel's history (bench/gpu/bisect_triton.sh) with the wheel's orchestrate.
#   bench/gpu/wheel_h200.sh WHEEL RESULTS_DIR
set -uo pipefail
wheel=$(realpath "${1:?give the wheel}")
results=$(realpath -m "${2:?give a results folder}")
here=$(realpath "$(dirname "$0")")
mkdir -p "$results"
cd "$results"
nvidia-smi --query-gpu=uuid,name,driver_version --format=csv >gpu.csv 2>&1
venv=$(mktemp -d)/venv
python3 -m venv --system-site-packages "$venv" >venv.out 2>&1
"$venv/bin/pip" install --no-index --no-deps "$wheel" >pip.out 2>&1
echo "pip rc=$?" >>pip.out
export PATH="$venv/bin:/usr/bin:/bin"
hash -r
{ command -v orchestrate; command -v python; python --version; } >where.out 2>&1
# torch may be visible only to the interpreter the venv was made from (itself a venv): the Python
# benchmarks then run under that one (--python), as docs/install.md says.
py_opts=()
if ! python -c "import torch" >/dev/null 2>&1; then
  base=$(python -c "import sys; print(sys._base_executable)")
  for candidate in /opt/torch/.venv/bin/python3 "$base"; do
    if "$candidate" -c "import torch" >/dev/null 2>&1; then py_opts=(--python "$candidate"); break; fi
  done
fi
echo "python options: ${py_opts[*]:-(the python of the venv)}" >>where.out
run() {  # run NAME COMMAND...: output in NAME.out, exit code and wall time in NAME.rc
  local name=$1 began
  shift
  began=$(date +%s%N)
  "$@" >"$name.out" 2>&1
  echo "rc=$? wall_s=$(( ($(date +%s%N) - began) / 1000000 ))e-3 command: $*" >"$name.rc"
}
run version orchestrate --version
run quick orchestrate --out "$results/runs/quick" "$(python -m isobench.examples quick)"
run python-gpu orchestrate "${py_opts[@]}" --out "$results/runs/python-gpu" "$(python -m isobench.examples python-gpu)"
folders=$(mktemp -d)
mkdir -p "$folders/a" "$folders/b" "$folders/c"
cp "$here/softmax_mod.py" "$folders/a/"
cp "$here/softmax_mod.py" "$folders/b/"
sed 's/^EXTRA_PASS = .*/EXTRA_PASS = True/' "$here/softmax_mod.py" >"$folders/c/softmax_mod.py"
cp "$here/test_softmax_mod.py" "$folders/"
run pytest-same orchestrate ab "${py_opts[@]}" --pytest "$folders/test_softmax_mod.py" --baseline-pythonpath "$folders/a" \
  --candidate-pythonpath "$folders/b" --out "$results/runs/pytest-same"
run pytest-slower orchestrate ab "${py_opts[@]}" --pytest "$folders/test_softmax_mod.py" --baseline-pythonpath "$folders/a" \
  --candidate-pythonpath "$folders/c" --out "$results/runs/pytest-slower"
for n in version quick python-gpu pytest-same pytest-slower; do cat "$n.rc"; tail -n 12 "$n.out"; done
