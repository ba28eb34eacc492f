#!/usr/bin/env bash
# Does the history find a real regression in a nightly series measured for real? RUNS runs (default
# 22) of bench/gpu/nightly_series.yaml, back to back, every run after the first `--like` the first:
# runs 1..RUNS/2 with the default worker, the rest with isobench-worker-slow3-cast-rmsnorm (a real
# 3% regression compiled into the cast and RMSNorm kernels only; tests/integration/CMakeLists.txt).
# The history, its regressions, compare and the report are read from the run directories afterwards
# (on any machine: nothing there touches the GPU; docs/results/ says where they ran).
#
#   ISOBENCH_BIN=build-stage/bin bench/gpu/nightly_series.sh OUT_DIR [RUNS]
#
# About 10-15 s a run (12 samples, process per batch: a fresh worker per sample). Stops within
# ISOBENCH_DEADLINE_S seconds (default 420): each run under `timeout` with what is left. Resumable:
# a complete run (run.json "complete") is kept, an incomplete one is moved to
# OUT_DIR/runs.partial/ (kept, in no figure) and measured again. The step is at run RUNS/2 + 1
# whichever call measures it; runs.txt lists each run with its build and the card it ran on.
out=${1:?usage: nightly_series.sh OUT_DIR [RUNS]}
runs=${2:-22}
source "$(dirname "$0")/preamble.sh"
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-420} ))
mkdir -p "$out/runs"
gpu=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | head -1)
first="$out/runs/r01"
for ((i = 1; i <= runs; i++)); do
  name=$(printf 'r%02d' "$i")
  dir="$out/runs/$name"
  if [ -d "$dir" ]; then
    if grep -q '"status": *"complete"' "$dir/run.json" 2>/dev/null; then continue; fi
    mkdir -p "$out/runs.partial"
    mv "$dir" "$out/runs.partial/$name-$(date -u +%Y%m%dT%H%M%SZ)"
    echo "# $name: incomplete, set aside in runs.partial/" >>"$log"
  fi
  worker="$bin/isobench-worker"
  (( i > runs / 2 )) && worker="$bin/isobench-worker-slow3-cast-rmsnorm"
  like=()
  (( i > 1 )) && like=(--like "$first")
  bounded "$name" 60 "$bin/orchestrate" --quiet --format none --worker "$worker" "${like[@]}" \
    --out "$dir" bench/gpu/nightly_series.yaml
  rc=$?
  echo "$name $(basename "$worker") exit=$rc gpu=$gpu" >>"$out/runs.txt"
  (( rc == 124 || rc == 130 || rc == 137 )) && break
done
gpu_state after
