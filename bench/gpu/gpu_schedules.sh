#!/usr/bin/env bash
# --gpus, one schedule per GPU (docs/results/2026-11-29-h200-f). One GPU (part one, the default):
# runs with --gpu 0, --gpus 0 and --gpus all must plan alike; every sample must carry the UUID and name
# NVML gives its GPU index; compare pairs runs of one GPU, refuses a run whose UUID differs
# (a copy of a run with its UUID rewritten stands in for another H200) unless --gpu-match model.
#   bench/gpu/gpu_schedules.sh OUT_DIR [one|two]
# two (for a 2-GPU machine): throughput of --gpus 0,1 against --gpu 0, and A/A across GPUs: the
# same sweep dealt 0,1 and 1,0 (every instance on the other GPU) compared --gpu-match model,
# against two runs dealt alike.
# (Named h200_measure_f.sh when session F ran part one; `h200_measure_f.sh OUT two`, as older
# notes call the two-GPU part, is `gpu_schedules.sh OUT two`.)
out=${1:?usage: gpu_schedules.sh OUT_DIR [one|two]}
part=${2:-one}
source "$(dirname "$0")/preamble.sh"
sweep=configs/cast.yaml
# Part two fixes the inner count, so that runs compare instance for instance (each run would
# otherwise calibrate its own, and compare skips instances whose plans differ in inner).
two_opts="--inner 200"
if [ "$part" = two ]; then
  nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1
  step gpu0 "$bin/orchestrate" --quiet --format none $two_opts --gpu 0 --out "$out/gpu0" $sweep
  step gpus01-a "$bin/orchestrate" --quiet --format none $two_opts --gpus 0,1 --out "$out/gpus01-a" $sweep
  step gpus01-b "$bin/orchestrate" --quiet --format none $two_opts --gpus 0,1 --out "$out/gpus01-b" $sweep
  step gpus10 "$bin/orchestrate" --quiet --format none $two_opts --gpus 1,0 --out "$out/gpus10" $sweep
  step same-deal "$bin/orchestrate" compare --json "$out/gpus01-a" "$out/gpus01-b"
  step other-gpu-refused "$bin/orchestrate" compare "$out/gpus01-a" "$out/gpus10"
  step other-gpu "$bin/orchestrate" compare --json --gpu-match model "$out/gpus01-a" "$out/gpus10"
  step check python3 bench/gpu/gpus_check.py "$out/gpu0" "$out/gpus01-a" "$out/gpus01-b" "$out/gpus10"
  step phases python3 bench/gpu/worker_phases.py "$out/gpu0" "$out/gpus01-a" "$out/gpus01-b" "$out/gpus10"
  gpu_state after
  exit 0
fi
step gpu0 "$bin/orchestrate" --quiet --format none --gpu 0 --out "$out/gpu0" $sweep
step gpus0 "$bin/orchestrate" --quiet --format none --gpus 0 --out "$out/gpus0" $sweep
step gpusall "$bin/orchestrate" --quiet --format none --gpus all --out "$out/gpusall" $sweep
step same-plan python3 -c "
import json, sys
plans = [json.load(open(f'$out/{r}/plan.json')) for r in ('gpu0', 'gpus0', 'gpusall')]
same = all(p['schedule'] == plans[0]['schedule'] and p['gpus'] == [0] for p in plans)
print('schedules identical and gpus [0]:', same); sys.exit(0 if same else 1)"
step ab "$bin/orchestrate" ab --quiet --format none --gpus all --samples 8 --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker-slow5" --out "$out/ab" $sweep
step check python3 bench/gpu/gpus_check.py "$out/gpu0" "$out/gpus0" "$out/gpusall" "$out/ab"
step compare-same-gpu "$bin/orchestrate" compare --json "$out/gpu0" "$out/gpus0"
# Another H200 stands in as a copy of gpus0 whose samples name another UUID (the same model).
mkdir -p "$out/other-uuid"
cp "$out/gpus0/plan.json" "$out/other-uuid/"
sed -E 's/"gpu_uuid":"GPU-[0-9a-f-]+"/"gpu_uuid":"GPU-00000000-0000-0000-0000-000000000001"/' \
  "$out/gpus0/samples.jsonl" >"$out/other-uuid/samples.jsonl"
step compare-other-uuid "$bin/orchestrate" compare "$out/gpu0" "$out/other-uuid"
step compare-other-uuid-model "$bin/orchestrate" compare --gpu-match model "$out/gpu0" "$out/other-uuid"
step phases python3 bench/gpu/worker_phases.py "$out/gpu0" "$out/gpus0" "$out/gpusall"
gpu_state after
