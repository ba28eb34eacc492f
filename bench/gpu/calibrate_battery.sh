#!/usr/bin/env bash
# The battery of isolation measures on the H200: which of cold_cache, idle_gap_ms and realloc
# lowers the A/A false-positive rate of the process and interleave modes on this GPU
# (docs/calibration.md, "Comparing isolation measures"). Run from the repository root with the
# device build in build-device/bin:
#   bench/gpu/calibrate_battery.sh OUT_DIR
#
# Cost, from docs/results/2026-11-29-h200 (a process-mode run of 12 workers with pre-start 4
# about 3 s, an interleave run about 1 s): configs/calibration-battery.yaml has 6 instances x 12
# samples = 72 samples per run; idle_gap_ms=50 adds 72 x 50 ms = 3.6 s per run, realloc one
# setup and warm-up per sample (a few ms each), cold_cache about nothing. K = 8 runs x 4 variants
# x (process + interleave) = 64 runs: about 130 s of process runs and 65 s of interleave runs,
# about 3.5 minutes in all. Interrupted or cut short, it finishes with the resume line it logs.
out=${1:?usage: calibrate_battery.sh OUT_DIR}
source "$(dirname "$0")/preamble.sh"
step calibrate "$bin/orchestrate" calibrate --device cuda --runs 8 --modes process,interleave \
  --variants baseline,cold_cache,idle_gap_ms=50,realloc --prestart 4 \
  --out "$out/calibrate" configs/calibration-battery.yaml
rc=$?
gpu_state after
if [ "$rc" -ne 0 ]; then
  echo "# not finished (exit $rc): $bin/orchestrate calibrate --resume $out/calibrate" >>"$log"
fi
cat "$out/calibrate.out"
exit "$rc"
