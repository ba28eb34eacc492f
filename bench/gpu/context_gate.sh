#!/usr/bin/env bash
# The context gate (docs/results/2026-11-29-h200-d), each part in one call so the
# machine starts once: throughput, disturbance, power and an A/A calibration with the gate. Every worker now creates its CUDA context only while no worker
# measures, and is released into measuring only once every earlier worker has exited.
#   bench/gpu/context_gate.sh OUT_DIR [part]     part: gate (default) | overlap
# gate: the first gate, which let a context be created only while nobody measured or set up
# (session-d1). overlap: the gate as committed, where the next worker creates its context while
# the measuring one sets up and warms up, untimed (session-d2).
# Binaries in build-device/bin (scripts/build.sh device). Most important first: the call may be
# cut short by the device's time limit. (Named h200_measure_d.sh when session D ran it.)
out=${1:?usage: context_gate.sh OUT_DIR [gate|overlap]}
part=${2:-gate}
source "$(dirname "$0")/preamble.sh"
# A/B of a real 5% regression: ab_slow5 NAME PRESTART
ab_slow5() {
  step "$1" "$bin/orchestrate" ab --quiet --fixed-n --prestart "$2" --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker-slow5" --out "$out/$1" configs/calibration.yaml
}
# A/A calibration of process mode with a real 5% slowdown (K = 8, n = 12): calibrate_process PRESTART
calibrate_process() {
  step "calibrate-$1" "$bin/orchestrate" calibrate --quiet --device cuda --modes process --runs 8 \
    --real-slowdown 5 --prestart "$1" --out "$out/calibrate-$1" configs/calibration.yaml
}
if [ "$part" = overlap ]; then
  # Throughput, disturbance and power with the next context made beside the set-up.
  for ps in 0 1 2; do
    step "batch-$ps" "$bin/orchestrate" --quiet --format none --isolation process --per batch --samples 24 \
      --prestart "$ps" --out "$out/batch-$ps" configs/calibration.yaml
  done
  for ps in 0 1; do
    step "sample-$ps" "$bin/orchestrate" --quiet --format none --isolation process --per sample \
      --prestart "$ps" --out "$out/sample-$ps" configs/calibration.yaml
  done
  ab_slow5 ab-slow5-1-r1 1
  ab_slow5 ab-slow5-0-r1 0
  ab_slow5 ab-slow5-1-r2 1
  calibrate_process 1
  calibrate_process 0
  gpu_state after
  # The 5% slowdown check with bounds widened by the plain medians' own disagreement.
  step test_cuda_kernels timeout 120 "$bin/test_cuda_kernels"
  exit 0
fi

# 1. Throughput and disturbance. Per batch (24 samples per instance, 24 workers) and per sample
# (12 per instance, 108 workers): gated at pre-start 0, 1 and 2; ungated at 0 (the last default)
# and 4 (the last session's pre-start).
for cfg in "0 on" "1 on" "2 on" "0 off" "4 off"; do
  set -- $cfg
  step "batch-$1-gate-$2" "$bin/orchestrate" --quiet --format none --isolation process --per batch --samples 24 \
    --prestart "$1" --context-gate "$2" --out "$out/batch-$1-gate-$2" configs/calibration.yaml
done
for cfg in "0 on" "1 on" "4 off"; do
  set -- $cfg
  step "sample-$1-gate-$2" "$bin/orchestrate" --quiet --format none --isolation process --per sample \
    --prestart "$1" --context-gate "$2" --out "$out/sample-$1-gate-$2" configs/calibration.yaml
done

# 2. Power: A/B of a real 5% regression, gated, pre-start 1 and 0, twice each in alternation.
for rep in 1 2; do
  for ps in 1 0; do
    ab_slow5 "ab-slow5-$ps-r$rep" "$ps"
  done
done

# 3. Validity and power together: A/A calibration of process mode with a real 5% slowdown, gated,
# pre-start 1 against 0 (same sweep, K = 8, n = 12).
calibrate_process 1
calibrate_process 0
gpu_state after

# 4. The GPU tests, the 5% slowdown bounds (3-9%) among them, last run before they were widened.
step test_cuda_kernels timeout 120 "$bin/test_cuda_kernels"
