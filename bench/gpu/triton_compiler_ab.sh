#!/usr/bin/env bash
# Compiler A/B for Triton kernels on the H200 (docs/python.md "Two compilers in one
# A/B"): the repository's Triton softmax and layer norm and an autotuned matmul
# (examples/python/triton_kernels.py) over the shapes of bench/gpu/triton_compiler_ab.yaml.
#
#   compiler-ab  orchestrate ab, the candidate with TRITON_DEFAULT_FP_FUSION=0 (no mul+add -> fma
#                contraction), each side with its own Triton cache folder (the run directory's
#                triton-cache/side-<s>): verdict per shape; autotune choices pinned from the
#                baseline's first worker for both sides; each instance's IR as artifacts, and
#                compare's list of the instances whose TTGIR differs                      ~70 s
#   aa           the same with the same compiler on both sides (own cache folders)        ~60 s
#   python-run   the operator set as python: entries, one side                             ~35 s
#   pytest-run   the same set as pytest-benchmark tests (bench/gpu/test_triton_ops.py)
#                through the pytest bridge, one side                                       ~35 s
#   f32          the matmul on fp32 inputs (bench/gpu/triton_compiler_ab_f32.yaml), the candidate
#                with TRITON_F32_DEFAULT=ieee: a setting that changes the TTGIR (FP fusion changes
#                the PTX only); compare's TTGIR line and ir-diff of one instance           ~60 s
#
#   ISOBENCH_BIN=build-stage/bin bench/gpu/triton_compiler_ab.sh OUT_DIR [PART...]   (parts: compiler-ab aa python
#   pytest f32; default all)
#
# Needs bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so and python/isobench/ of a
# device build (scripts/build.sh device), laid out as build-device/ is ($ISOBENCH_BIN/..), and
# python3 on PATH with torch, triton and pytest (the zygotes and the pytest collector run it).
# Stops within ISOBENCH_DEADLINE_S seconds (default 300): each step under `timeout` with what is
# left. Every command's output is in OUT_DIR/<step>.out and .err, its exit code and duration in
# OUT_DIR/commands.log, the run directories (with both sides' Triton caches) are kept, and
# triton_compiler_summary.py writes OUT_DIR/summary.out (Markdown) and summary.json.
out=${1:?usage: triton_compiler_ab.sh OUT_DIR [PART...]}
shift
parts=${*:-compiler-ab aa python pytest f32}
for p in $parts; do
  case "$p" in
    compiler-ab|aa|python|pytest|f32) ;;
    *) echo "triton_compiler_ab.sh: unknown part '$p' (compiler-ab, aa, python, pytest, f32)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/preamble.sh"
# The summary reads each side's cache in the run directory: a fresh folder per run and side.
export ISOBENCH_TRITON_CACHE=run
out=$(cd "$out" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-300} ))
if ! python3 -c "import torch, triton, pytest" 2>"$out/python-check.err"; then
  echo "triton_compiler_ab.sh: python3 on PATH cannot import torch, triton and pytest (see $out/python-check.err)" >&2
  exit 2
fi
python3 -c "import torch, triton, pytest; print('torch', torch.__version__, 'triton', triton.__version__, 'pytest', pytest.__version__)" \
  >"$out/versions.txt" 2>&1
# Each side compiles into its own Triton cache in the run directory (triton-cache/side-<s>, the
# default) and keeps the IR of what each instance launched among its artifacts.
# Exit code 1 is a verdict (SLOWER), not a failure of the step.
for p in $parts; do
  case "$p" in
    compiler-ab)
      bounded compiler-ab 100 "$bin/orchestrate" ab --quiet --format json \
        --candidate-env TRITON_DEFAULT_FP_FUSION=0 --out "$out/compiler-ab" bench/gpu/triton_compiler_ab.yaml
      step compiler-ab-compare "$bin/orchestrate" compare "$out/compiler-ab"
      ;;
    aa)
      bounded aa 80 "$bin/orchestrate" ab --quiet --format json \
        --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker" --out "$out/aa" bench/gpu/triton_compiler_ab.yaml
      step aa-compare "$bin/orchestrate" compare "$out/aa"
      ;;
    python)
      bounded python-run 50 "$bin/orchestrate" --quiet --format json --out "$out/python-run" bench/gpu/triton_compiler_ab.yaml
      ;;
    pytest)
      bounded pytest-run 50 "$bin/orchestrate" --quiet --format json --out "$out/pytest-run" bench/gpu/triton_compiler_ab_pytest.yaml
      ;;
    f32)
      bounded f32-ab 90 "$bin/orchestrate" ab --quiet --format json --candidate-env TRITON_F32_DEFAULT=ieee \
        --out "$out/f32-ab" bench/gpu/triton_compiler_ab_f32.yaml
      step f32-ab-compare "$bin/orchestrate" compare "$out/f32-ab"
      step f32-ab-ir-diff "$bin/orchestrate" ir-diff "$out/f32-ab" "triton_matmul[m=1024,n=2048,k=2048,dtype=fp32]"
      ;;
  esac
done
gpu_state after
python3 "$(dirname "$0")/triton_compiler_summary.py" "$out" >"$out/summary.out" 2>"$out/summary.err"
cat "$out/summary.out"
