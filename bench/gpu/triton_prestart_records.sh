#!/usr/bin/env bash
# The same kernels timed by isobench and by triton.testing, where a fresh worker's time goes with
# and without pre-start, and kernel records (docs/results/2026-11-29-h200-c), in three parts, each
# one device call:
#   main: the GPU tests; triton agreement (events, graph, cold L2); worker phases per sample and
#         per batch at pre-start 0, 4 and 8; A/B with recorded and pinned algorithms, the forced
#         second algorithm, replay of an earlier run's algorithms.
#   records: kernel records (bench/gpu/record_kernels_check.sh), grouped GEMM with records, the
#         battery of isolation measures (bench/gpu/calibrate_battery.sh).
#   followup: the GEMM's gap to triton against the duty cycle (100 ms samples, triton rep 10 ms),
#         the real 5% A/B without pre-start and with a 50 ms idle gap, the A/A with the gap.
#   bench/gpu/triton_prestart_records.sh OUT_DIR [part]     part: main (default) | records | followup
# Binaries in build-device/bin (scripts/build.sh device), the kernel C API in build-device/lib.
# (Named h200_measure_c.sh when session C ran it.)
out=${1:?usage: triton_prestart_records.sh OUT_DIR [main|records|followup]}
part=${2:-main}
source "$(dirname "$0")/preamble.sh"
if [ "$part" = followup ]; then
  # Is the GEMM's gap to triton the duty cycle? isobench with 100 ms samples (triton's
  # do_bench_cudagraph loops ~100 ms) against triton with its default rep, and isobench's 10 ms
  # samples against triton with rep 10 ms.
  step agree-graph "$bin/orchestrate" --quiet --timer graph --out "$out/agree-graph" bench/gpu/triton_agreement.yaml
  step agree-cold "$bin/orchestrate" --quiet --cold-cache true --out "$out/agree-cold" bench/gpu/triton_agreement.yaml
  step agree-graph-100ms "$bin/orchestrate" --quiet --timer graph --inner auto --min-sample-time-ms 100 \
    --out "$out/agree-graph-100ms" bench/gpu/triton_agreement.yaml
  step agree-triton-100ms python3 bench/gpu/same_kernel_timings.py --lib build-device/lib/libisobench_kernel_capi.so \
    --graph-run "$out/agree-graph-100ms" --cold-run "$out/agree-cold" --out "$out/agree-triton-100ms.json"
  step agree-triton-rep10 python3 bench/gpu/same_kernel_timings.py --lib build-device/lib/libisobench_kernel_capi.so \
    --rep-ms 10 --graph-run "$out/agree-graph" --cold-run "$out/agree-cold" --out "$out/agree-triton-rep10.json"
  # Does pre-start or its absence hide the regression? The 5% A/B without pre-start, and with a
  # 50 ms idle gap (the battery's best).
  step ab-slow5-prestart0 "$bin/orchestrate" ab --quiet --prestart 0 --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker-slow5" --out "$out/ab-slow5-prestart0" configs/calibration.yaml
  step ab-slow5-gap50 "$bin/orchestrate" ab --quiet --idle-gap-ms 50 --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker-slow5" --out "$out/ab-slow5-gap50" configs/calibration.yaml
  step ab-aa-gap50 "$bin/orchestrate" ab --quiet --idle-gap-ms 50 --baseline "$bin/isobench-worker" \
    --candidate "$bin/isobench-worker" --out "$out/ab-aa-gap50" configs/calibration.yaml
  exit 0
fi
if [ "$part" = records ]; then
  # Kernel records (names, cost) for GEMM, grouped GEMM and cast.
  step record-kernels bash bench/gpu/record_kernels_check.sh "$out/record-kernels"
  # Grouped GEMM, both implementations, with kernel records.
  step grouped-gemm "$bin/orchestrate" --quiet --record-kernels --samples 8 --out "$out/grouped-gemm" \
    bench/gpu/grouped_gemm_impls.yaml
  # The battery of isolation measures in calibrate.
  step battery bash bench/gpu/calibrate_battery.sh "$out/battery"
  exit 0
fi
# Kernels against references, the timer modes, the 5% slowdown's accuracy, algorithm replay.
step test_cuda_kernels "$bin/test_cuda_kernels" -s
# The same kernels timed by isobench and by triton.testing: do the two tools agree?
for how in "events:--timer events" "graph:--timer graph" "cold:--cold-cache true"; do
  name=${how%%:*}; flags=${how#*:}
  # shellcheck disable=SC2086
  step "agree-$name" "$bin/orchestrate" --quiet $flags --out "$out/agree-$name" bench/gpu/triton_agreement.yaml
done
step agree-triton python3 bench/gpu/same_kernel_timings.py --lib build-device/lib/libisobench_kernel_capi.so \
  --events-run "$out/agree-events" --graph-run "$out/agree-graph" --cold-run "$out/agree-cold" \
  --out "$out/agree-triton.json"
# Where a fresh worker's time goes: pre-start with cuBLAS loaded only by GEMM workers, per sample
# and per batch; the journal's worker milestones show it for each fresh process. Then per sample
# with a deeper pre-start.
for per in sample batch; do
  for ps in 0 4; do
    step "prestart-$per-$ps" "$bin/orchestrate" --quiet --isolation process --per "$per" --prestart "$ps" \
      --out "$out/prestart-$per-$ps" configs/calibration.yaml
  done
done
step prestart-sample-8 "$bin/orchestrate" --quiet --isolation process --per sample --prestart 8 \
  --out "$out/prestart-sample-8" configs/calibration.yaml
# (The measured build also ran prestart-sample-4-fastexit: ISOBENCH_WORKER_FAST_EXIT=1 made workers
# leave through _exit, skipping the CUDA runtime's teardown. It changed neither samples per minute
# nor the context-creation times, and the hook was removed; see the results README.)
# A/B with pinned algorithms: identical builds, and a real 5% regression (slowdown now a
# timed spin per sample).
step ab-aa "$bin/orchestrate" ab --quiet --record-kernels --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker" --out "$out/ab-aa" configs/calibration.yaml
step ab-slow5 "$bin/orchestrate" ab --quiet --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker-slow5" --out "$out/ab-slow5" configs/calibration.yaml
# The candidate forced onto the heuristic's second algorithm; the report flags it.
step ab-algo1 "$bin/orchestrate" ab --quiet --record-kernels --samples 8 --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker" --candidate-set algo=1 --out "$out/ab-algo1" bench/gpu/triton_agreement.yaml
step ab-algo1-compare "$bin/orchestrate" compare --markdown "$out/ab-algo1"
# Replaying an earlier run's algorithms.
step replay "$bin/orchestrate" --quiet --samples 4 --replay-from "$out/ab-aa" --out "$out/replay" configs/calibration.yaml
