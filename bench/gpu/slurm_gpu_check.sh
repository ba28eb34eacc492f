#!/usr/bin/env bash
# The CUDA side of --executor slurm (docs/slurm.md) on a GPU host without Slurm. A stand-in
# sbatch runs the array's tasks itself, one at a time per GPU, each with the variables Slurm
# gives a task: SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_JOB_ID, SLURMD_NODENAME and, for
# the one GPU it "allocates", SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES as the node's index (task
# k on GPU k % GPUS: Slurm without ConstrainDevices); a stand-in squeue lists nothing, since
# sbatch returns when its tasks are done. It ignores #SBATCH lines: Slurm's scheduling, GRES and
# cgroups are not what this checks. What it checks is isobench's part: an A/B sweep of CUDA
# kernels sharded and merged, every sample naming the GPU its worker opened, that GPU the one
# the task's CUDA_VISIBLE_DEVICES names (its UUID as nvidia-smi lists that index), the one the
# task record names through NVML, both sides of every instance from one task, and compare
# reading the merged run (slurm_gpu_check.py).
#   bench/gpu/slurm_gpu_check.sh OUT_DIR      (from the repository root; build-device/ carried)
# Under a minute of device time on one H200 (the A/B step is cut at 100 s).
out=${1:?usage: slurm_gpu_check.sh OUT_DIR}
mkdir -p "$out/fake-bin"
out=$(cd "$out" && pwd)
source "$(dirname "$0")/preamble.sh"
# The batch script runs orchestrate by its absolute path, from the shard's folder.
bin=$(cd "$bin" && pwd)
nvidia-smi --query-gpu=index,uuid --format=csv,noheader >"$out/gpu-uuids.csv"
gpus=$(wc -l <"$out/gpu-uuids.csv")

cat >"$out/fake-bin/sbatch" <<'SBATCH'
#!/usr/bin/env bash
# Stand-in for sbatch --parsable --array=SPEC [options] SCRIPT: runs the tasks, prints the job id.
set -u
array="" script="${@: -1}"
for a in "$@"; do case "$a" in --array=*) array=${a#--array=} ;; esac; done
array=${array%%\%*}
here=$(dirname "$0")
job=$(( $(cat "$here/next-job" 2>/dev/null || echo 100) ))
echo $(( job + 100 )) >"$here/next-job"
indices=()
IFS=, read -ra parts <<<"$array"
for p in "${parts[@]}"; do
  if [[ $p == *-* ]]; then for ((k = ${p%-*}; k <= ${p#*-}; k++)); do indices+=("$k"); done; else indices+=("$p"); fi
done
gpus=$(nvidia-smi -L | wc -l)
run=$(dirname "$script")
for ((g = 0; g < gpus; g++)); do
  (
    for k in "${indices[@]}"; do
      ((k % gpus == g)) || continue
      env SLURM_ARRAY_JOB_ID=$job SLURM_ARRAY_TASK_ID=$k SLURM_JOB_ID=$((job + k + 1)) SLURMD_NODENAME=$(hostname -s) \
        SLURM_JOB_GPUS=$g CUDA_VISIBLE_DEVICES=$g bash "$script" >"$run/slurm-logs/${job}_${k}.out" 2>&1
    done
  ) &
done
wait
echo "$job"
SBATCH
printf '#!/bin/sh\n# Stand-in for squeue: the stand-in sbatch returns when its tasks are done.\nexit 0\n' >"$out/fake-bin/squeue"
chmod +x "$out/fake-bin/sbatch" "$out/fake-bin/squeue"
export PATH="$out/fake-bin:$PATH"

shards=$((2 * gpus))
# 8 samples a side cannot reach a verdict over 12 instances (ab refuses them unless --fail-on
# never): this checks where samples were taken, not verdicts. timeout: within 2 minutes whatever happens.
step ab timeout 100 "$bin/orchestrate" ab --executor slurm --device cuda --shards "$shards" --samples 8 --fail-on never --format json \
  --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker-slow5" --out "$out/ab" configs/cast.yaml
echo "ab exit code: $?" >>"$log"
step compare "$bin/orchestrate" compare --json "$out/ab"
echo "compare exit code: $?" >>"$log"
step check python3 bench/gpu/slurm_gpu_check.py "$out/ab" "$out/gpu-uuids.csv" "$out/ab.err"
gpu_state after
