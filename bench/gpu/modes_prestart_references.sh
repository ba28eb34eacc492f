#!/usr/bin/env bash
# The isolation modes, pre-start, A/B and the kernels against independent references on the GPU
# (session A of docs/results/2026-11-29-h200): the GPU tests; configs/calibration.yaml in each
# isolation mode and in process mode with and without pre-start, per batch and per sample; an A/A
# and a real 5% A/B; configs/perf.yaml with events, graph and cold-L2 timers beside PyTorch's own
# kernels timed by triton.testing (bench/gpu/reference_timings.py).
#   bench/gpu/modes_prestart_references.sh OUT_DIR
# Writes one folder per experiment into OUT_DIR and a log of every command with its timing.
# (Named h200_measure.sh when session A ran it; its log then gave durations in seconds.)
out=${1:?usage: modes_prestart_references.sh OUT_DIR}
source "$(dirname "$0")/preamble.sh"
step test_cuda_kernels "$bin/test_cuda_kernels"

# The isolation modes on the nine-kernel calibration sweep (GPU).
for mode in sequential interleave process; do
  step "modes-$mode" "$bin/orchestrate" --quiet --isolation "$mode" --out "$out/modes-$mode" configs/calibration.yaml
done

# Pre-start: throughput in process mode, per batch and per sample, with and without.
for per in batch sample; do
  for ps in 0 1; do
    step "prestart-$per-$ps" "$bin/orchestrate" --quiet --isolation process --per "$per" --prestart "$ps" \
      --out "$out/prestart-$per-$ps" configs/calibration.yaml
  done
done

# A/B: identical builds, and a candidate with a real 5% regression compiled in.
step ab-aa "$bin/orchestrate" ab --quiet --fixed-n --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker" \
  --out "$out/ab-aa" configs/calibration.yaml
step ab-slow5 "$bin/orchestrate" ab --quiet --fixed-n --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker-slow5" \
  --out "$out/ab-slow5" configs/calibration.yaml

# The kernels against independent references, in the same call.
step perf-events "$bin/orchestrate" --quiet --out "$out/perf-events" configs/perf.yaml
step perf-graph "$bin/orchestrate" --quiet --timer graph --out "$out/perf-graph" configs/perf.yaml
step perf-cold "$bin/orchestrate" --quiet --cold-cache true --out "$out/perf-cold" configs/perf.yaml
step reference env PYTHONUNBUFFERED=1 python3 bench/gpu/reference_timings.py --quick
