#!/usr/bin/env bash
# What set-up batches (--setup-batch K) do to a Python A/B's time to its verdict when each fresh
# worker's set-up costs more than its measuring, on the CPU (the H200's question is
# bench/gpu/setup_cadence.sh's): `orchestrate ab` at its defaults on a module whose set-up function
# sleeps SETUP_SECONDS (default 0.15: a stand-in for inputs, a first launch and a check, work that
# waits rather than computes) before it returns a spin of 100-400 us, four instances; `c` spins 1.5
# times as long (SLOWER), `b` is `a` again (SAME). ROUNDS rounds (default 3), each running every K
# of KS (default "1 4") on a/c and a/b, alternated so that the machine's load falls on every K
# alike. commands.log has each run's exit code and wall time, runs/ the run directories,
# phases.md bench/gpu/worker_phases.py's table over all of them and timelines.md
# bench/run_timeline.py's (a run's wall time from its start to its exit, part by part).
#   bench/setup_batches.sh BUILD_DIR[:BUILD_DIR...] OUT
#   ROUNDS=3 KS="1 4" SETUP_SECONDS=0.15 bench/setup_batches.sh build /tmp/sb
# BUILD_DIR holds bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so and python/.
# Several builds (before and after a change) take turns within each round, run names ending
# -b1, -b2, ... in the order given. IMPORT_SECONDS (default 0) makes the module's import sleep, a
# stand-in for `import torch` in each side's zygote; OPTIONS adds orchestrate ab options to every
# run (the GPU's defaults on the CPU: OPTIONS="--prestart 1 --zygotes per-run").
set -uo pipefail
IFS=: read -r -a builds <<<"${1:?usage: bench/setup_batches.sh BUILD_DIR[:BUILD_DIR...] OUT}"
for i in "${!builds[@]}"; do builds[i]=$(realpath "${builds[i]}"); done
out=${2:?usage: bench/setup_batches.sh BUILD_DIR[:BUILD_DIR...] OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/folders/a" "$out/folders/b" "$out/folders/c" "$out/runs"
out=$(cd "$out" && pwd)
log=$out/commands.log
module() {  # module FACTOR: the benchmark module, its spin FACTOR times as long
  cat <<PY
import time

SETUP_SECONDS = ${SETUP_SECONDS:-0.15}
time.sleep(${IMPORT_SECONDS:-0})  # what importing torch would take, once per zygote


def spin(us, seed, device, stream):
    time.sleep(SETUP_SECONDS)  # a careful set-up: seeded inputs, a first launch, a check
    seconds = us * 1e-6 * $1

    def launch():
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
    return launch
PY
}
module 1 >"$out/folders/a/setup_spin.py"
module 1 >"$out/folders/b/setup_spin.py"
module 1.5 >"$out/folders/c/setup_spin.py"
cat >"$out/setup_spin.yaml" <<'YAML'
name: setup_spin
settings: {samples: 20, statistic: min, seed: 3}
benchmarks:
  - python: setup_spin
    function: spin
    device: cpu
    axes: {us: [100, 200, 300, 400]}
YAML
{ uname -srm; nproc; uptime; for b in "${builds[@]}"; do "$b/bin/orchestrate" --version; done; } >"$out/machine.txt" 2>&1
source "$here/step.sh"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for k in ${KS:-1 4}; do
    for pair in slower:c same:b; do
      for i in "${!builds[@]}"; do
        name=k$k-${pair%%:*}-$round
        (( ${#builds[@]} > 1 )) && name=$name-b$((i + 1))
        # shellcheck disable=SC2086  # OPTIONS splits into words
        step "$name" "${builds[i]}/bin/orchestrate" ab --device cpu --quiet --format json --setup-batch "$k" \
          ${OPTIONS:-} --baseline-pythonpath "$out/folders/a" --candidate-pythonpath "$out/folders/${pair#*:}" \
          --out "$out/runs/$name" "$out/setup_spin.yaml"
      done
    done
  done
done
python3 "$here/gpu/worker_phases.py" "$out"/runs/* >"$out/phases.md"
python3 "$here/run_timeline.py" "$out"/runs/* --commands "$log" --json "$out/timelines.json" >"$out/timelines.md"
cat "$log"
