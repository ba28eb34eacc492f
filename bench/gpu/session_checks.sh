#!/usr/bin/env bash
# What every H200 session runs beside its own measurements (the GPU suites never run in CI),
# and the check that the sequential A/B stops early without losing the regression:
#   bench/gpu/session_checks.sh OUT_DIR [part]     part: suites | sequential | killed | all (default)
# suites:     the GPU test suites at HEAD (test_cuda_kernels, test_kernel_recorder,
#             test_allgather_gemm_ranks): about a minute.
# sequential: ab --until-verdict --max-samples 64 on configs/calibration.yaml, the build with a real
#             5% regression (isobench-worker-slow5) against the default build, twice, and the
#             default build against itself once: samples used per instance and the verdicts;
#             about 2-3 minutes.
# killed:     bench/gpu/killed_orchestrator_check.py (workers after a SIGKILL of orchestrate):
#             about 40 s.
out=${1:?usage: session_checks.sh OUT_DIR [suites|sequential|killed|all]}
part=${2:-all}
source "$(dirname "$0")/preamble.sh"

if [ "$part" = suites ] || [ "$part" = all ]; then
  for t in test_cuda_kernels test_kernel_recorder test_allgather_gemm_ranks; do
    step "$t" timeout 300 "$bin/$t"
  done
fi
if [ "$part" = sequential ] || [ "$part" = all ]; then
  for r in 1 2; do
    step "seq-slow5-r$r" timeout 300 "$bin/orchestrate" ab --until-verdict --max-samples 64 --seed "$r" --format json \
      --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker-slow5" --out "$out/seq-slow5-r$r" \
      configs/calibration.yaml
  done
  step seq-same timeout 300 "$bin/orchestrate" ab --until-verdict --max-samples 64 --format json \
    --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker" --out "$out/seq-same" configs/calibration.yaml
fi
if [ "$part" = killed ] || [ "$part" = all ]; then
  step killed timeout 120 python3 bench/gpu/killed_orchestrator_check.py "$out/killed" "$bin"
fi
gpu_state after
