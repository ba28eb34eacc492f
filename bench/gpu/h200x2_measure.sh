#!/usr/bin/env bash
# Two H200s (docs/results/2026-11-29-h200x2): issue 8's evidence. The all-gather + GEMM family
# checked across 2 GPUs, the family's sweep in process mode (the overlap's speed-up per shape),
# and an A/A calibration of it.
#   bench/gpu/h200x2_measure.sh OUT_DIR [part]    part: all (default) | family
# The first call (session-x1) ran all; its family run failed: the calibration worker set up every
# instance at once and ran out of device memory. With calibration split by memory group, the
# second call (session-x2) ran the family again.
set -u
out=${1:?usage: h200x2_measure.sh OUT_DIR [all|family]}
part=${2:-all}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
bin=build-device/bin
log="$out/commands.log"
source "$(dirname "$0")/step.sh"
nvidia-smi >"$out/nvidia-smi-before.txt" 2>&1
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1
if [ "$part" = family ]; then
  step family timeout 420 "$bin/orchestrate" --quiet --samples 8 --out "$out/family" configs/allgather_gemm.yaml
  nvidia-smi >"$out/nvidia-smi-after.txt" 2>&1
  exit 0
fi
step check-2gpu timeout 120 "$bin/test_allgather_gemm_ranks" -s
step family timeout 300 "$bin/orchestrate" --quiet --samples 8 --out "$out/family" configs/allgather_gemm.yaml
step calibrate timeout 240 "$bin/orchestrate" calibrate --quiet --device cuda --modes process --runs 6 \
  --out "$out/calibrate" bench/gpu/allgather_gemm_aa.yaml
nvidia-smi >"$out/nvidia-smi-after.txt" 2>&1
