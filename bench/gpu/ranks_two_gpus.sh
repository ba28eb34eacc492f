#!/usr/bin/env bash
# Multi-rank instances on two GPUs (docs/results/2026-11-29-h200x2): the all-gather + GEMM family
# checked across 2 GPUs, the family's sweep in process mode (the overlap's speed-up per shape),
# and an A/A calibration of it.
#   bench/gpu/ranks_two_gpus.sh OUT_DIR [part]    part: all (default) | family
# The first call (session-x1) ran all; its family run failed: the calibration worker set up every
# instance at once and ran out of device memory. With calibration split by memory group, the
# second call (session-x2) ran the family again. (Named h200x2_measure.sh when those ran.)
out=${1:?usage: ranks_two_gpus.sh OUT_DIR [all|family]}
part=${2:-all}
source "$(dirname "$0")/preamble.sh"
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1
if [ "$part" = family ]; then
  step family timeout 420 "$bin/orchestrate" --quiet --samples 8 --out "$out/family" configs/allgather_gemm.yaml
  gpu_state after
  exit 0
fi
step check-2gpu timeout 120 "$bin/test_allgather_gemm_ranks" -s
step family timeout 300 "$bin/orchestrate" --quiet --samples 8 --out "$out/family" configs/allgather_gemm.yaml
step calibrate timeout 240 "$bin/orchestrate" calibrate --quiet --device cuda --modes process --runs 6 \
  --out "$out/calibrate" bench/gpu/allgather_gemm_aa.yaml
gpu_state after
