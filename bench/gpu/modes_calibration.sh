#!/usr/bin/env bash
# What each isolation mode buys, calibrated (session B of docs/results/2026-11-29-h200): the A/A
# calibration of sequential, interleave, process (per batch and per sample) and ab with a real 5%
# slowdown (part calibrate); the process-mode run after the normalization fix, pre-start depth
# against throughput, A/B runs with pre-start 4, and a process-mode calibration without pre-start
# (part runs).
#   bench/gpu/modes_calibration.sh OUT_DIR part   (part: runs | calibrate)
# (Named h200_measure_b.sh when session B ran it.)
out=${1:?usage: modes_calibration.sh OUT_DIR runs|calibrate}
part=${2:?usage: modes_calibration.sh OUT_DIR runs|calibrate}
source "$(dirname "$0")/preamble.sh"
if [ "$part" = runs ]; then
  step modes-process "$bin/orchestrate" --quiet --isolation process --per batch --prestart 1 --out "$out/modes-process" configs/calibration.yaml
  for per in batch sample; do
    for ps in 0 1 4; do
      [ "$per" = sample ] && [ "$ps" != 4 ] && continue   # per-sample 0 and 1 ran in the first session
      step "prestart-$per-$ps" "$bin/orchestrate" --quiet --isolation process --per "$per" --prestart "$ps" \
        --out "$out/prestart-$per-$ps" configs/calibration.yaml
    done
  done
  step ab-aa "$bin/orchestrate" ab --quiet --fixed-n --prestart 4 --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker" --out "$out/ab-aa" configs/calibration.yaml
  step ab-slow5 "$bin/orchestrate" ab --quiet --fixed-n --prestart 4 --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker-slow5" --out "$out/ab-slow5" configs/calibration.yaml
  step calibrate-prestart0 "$bin/orchestrate" calibrate --quiet --runs 8 --modes process --prestart 0 \
    --out "$out/calibrate-prestart0" configs/calibration.yaml
else
  step calibrate "$bin/orchestrate" calibrate --runs 8 --modes sequential,interleave,process,process-sample,ab \
    --real-slowdown 5 --prestart 4 --out "$out/calibrate" configs/calibration.yaml
fi
