#!/usr/bin/env bash
# The H200 measurements behind docs/results/: run on the device machine from the repository root,
# with build-device/ built by `scripts/build.sh device` on the development machine and carried.
#   bench/gpu/h200_measure.sh OUT_DIR
# Writes one folder per experiment into OUT_DIR and a log of every command with its timing.
set -u
out=${1:?usage: h200_measure.sh OUT_DIR}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bin=build-device/bin
log="$out/commands.log"
step() {  # step NAME COMMAND...: run, keep stdout/stderr, record the command and its wall time
  local name=$1; shift
  local t0=$(date +%s.%N)
  echo "\$ $*" >>"$log"
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  echo "# $name: exit $rc, $(echo "$(date +%s.%N) - $t0" | bc) s, $(date -u +%FT%TZ)" >>"$log"
}
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$out/nvidia-smi-q.txt" 2>&1
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
step ab-aa "$bin/orchestrate" ab --quiet --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker" \
  --out "$out/ab-aa" configs/calibration.yaml
step ab-slow5 "$bin/orchestrate" ab --quiet --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker-slow5" \
  --out "$out/ab-slow5" configs/calibration.yaml

# The kernels against independent references, in the same call.
step perf-events "$bin/orchestrate" --quiet --out "$out/perf-events" configs/perf.yaml
step perf-graph "$bin/orchestrate" --quiet --timer graph --out "$out/perf-graph" configs/perf.yaml
step perf-cold "$bin/orchestrate" --quiet --cold-cache true --out "$out/perf-cold" configs/perf.yaml
step reference env PYTHONUNBUFFERED=1 python3 bench/gpu/reference_timings.py --quick
