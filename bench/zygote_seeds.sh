#!/usr/bin/env bash
# What a worker inherits from its zygote, on the CPU (docs/python.md, "What a worker inherits"):
# A/A runs of a host-timed pure-Python workload whose time depends on the hash seed
# (configs/hash_seed_lookup.py, two instances), `orchestrate ab` at its defaults (sequential
# looks, at most 20 per side) with --zygotes per-run and per-round alternated in each of ROUNDS
# rounds (default 8), so that the machine's load falls on both alike; then `orchestrate calibrate
# --modes ab` of configs/calibration-python-cpu.yaml over CAL_RUNS runs (default 20) at the default
# (per-round on the CPU). commands.log has each run's exit code and wall time (exit 1 or a
# SLOWER/FASTER in an A/A run is a false verdict), runs/ the run directories, calibrate/ the
# calibration.
#   bench/zygote_seeds.sh BUILD_DIR OUT
#   ROUNDS=8 CAL_RUNS=20 bench/zygote_seeds.sh build /tmp/zs
# BUILD_DIR holds bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so and python/.
set -uo pipefail
build=$(realpath "${1:?usage: bench/zygote_seeds.sh BUILD_DIR OUT}")
out=${2:?usage: bench/zygote_seeds.sh BUILD_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
configs=$(cd "$here/../configs" && pwd)
mkdir -p "$out/runs"
out=$(cd "$out" && pwd)
log=$out/commands.log
cp "$configs/hash_seed_lookup.py" "$configs/calibration-python-cpu.yaml" "$out/"
cat >"$out/aa.yaml" <<'YAML'
name: hash_seed_aa
settings: {samples: 20, inner: 200, warmup: 3, statistic: min}
benchmarks:
  - python: hash_seed_lookup.py
    function: first_in_set
    device: cpu
    axes: {names: [300, 1000]}
YAML
{ uname -srm; nproc; uptime; python3 --version; "$build/bin/orchestrate" --version; } >"$out/machine.txt" 2>&1
source "$here/step.sh"
w=$build/bin/isobench-worker
for round in $(seq 1 "${ROUNDS:-8}"); do
  for zygotes in per-run per-round; do
    name=$zygotes-$round
    step "$name" "$build/bin/orchestrate" ab --device cpu --quiet --format json --fail-on any-change \
      --baseline "$w" --candidate "$w" --zygotes "$zygotes" --out "$out/runs/$name" "$out/aa.yaml"
  done
done
step calibrate "$build/bin/orchestrate" calibrate --device cpu --modes ab --runs "${CAL_RUNS:-20}" \
  --out "$out/calibrate" "$out/calibration-python-cpu.yaml"
cat "$log"
