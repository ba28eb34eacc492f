#!/usr/bin/env bash
# How long the pytest route takes to start against the python: route (the goal: within 1.2x).
# Both run `orchestrate ab` on the same two CPU benchmarks in a module whose import takes
# IMPORT_SECONDS (a time.sleep at import, standing in for torch and Triton), the two sides apart
# by their --baseline-pythonpath and --candidate-pythonpath: `ab --pytest` on a pytest-benchmark
# file, and a sweep of `python:` entries. The pytest route imports the file in its collection and
# in each side's zygote: one after the other the run starts after about twice the import, at
# once after about one (docs/python.md, "Existing pytest benchmarks"); the python: route imports
# it in the zygotes only. Prints per run the seconds from the command's start to the run log's
# run-start and first worker-start, and to its end; then the medians per route.
#   bench/python_pytest_start.sh BUILD_DIR [RUNS]
#   DEVICE=cpu IMPORT_SECONDS=2 PYTHON=python3 ROUTES="pytest python" bench/python_pytest_start.sh build 5
# BUILD_DIR holds bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so and python/
# (a build folder, or a copy of those four for a build measured before a change).
set -euo pipefail
build=$(realpath "${1:?usage: bench/python_pytest_start.sh BUILD_DIR [RUNS]}")
runs=${2:-5}
device=${DEVICE:-cpu}
import_seconds=${IMPORT_SECONDS:-2}
python=${PYTHON:-python3}
routes=${ROUTES:-pytest python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a" "$work/c"
for side in a c; do printf 'def work(n):\n    return sorted(range(n, 0, -1))\n' > "$work/$side/slow_helpers.py"; done
cat > "$work/test_slow_import.py" <<PY
import time

import slow_helpers

time.sleep($import_seconds)  # what importing torch and Triton costs, about


def test_sort(benchmark):
    benchmark(slow_helpers.work, 2000)


def test_sum(benchmark):
    benchmark(sum, range(2000))
PY
cat > "$work/slow_kernels.py" <<PY
import time

import slow_helpers

time.sleep($import_seconds)  # the same import as the pytest file's


def sort(seed, device, stream):
    return lambda: slow_helpers.work(2000)


def sum_range(seed, device, stream):
    return lambda: sum(range(2000))
PY
cat > "$work/slow_kernels.yaml" <<YAML
name: slow_kernels
benchmarks:
  - {python: slow_kernels.py, function: sort, device: $device}
  - {python: slow_kernels.py, function: sum_range, device: $device}
YAML

# Seconds since the epoch of a log.txt timestamp (2026-12-02T10:00:00.123Z).
since_epoch() { date -u -d "$(echo "$1" | sed 's/T/ /; s/Z$//')" +%s.%N; }

for route in $routes; do
  case $route in
    pytest) what=(--pytest "$work/test_slow_import.py" --device "$device") ;;
    python) what=(--device "$device" "$work/slow_kernels.yaml") ;;
    *) echo "python_pytest_start.sh: unknown route $route (pytest, python)" >&2; exit 2 ;;
  esac
  echo "route $route"
  printf '%-6s %14s %19s %10s %6s\n' run to-run-start to-first-worker wall exit
  : > "$work/times-$route.txt"
  for ((i = 1; i <= runs; i++)); do
    out=$work/run-$route-$i
    t0=$(date +%s.%N)
    code=0
    "$build/bin/orchestrate" ab --quiet --format none --python "$python" --baseline-pythonpath "$work/a" \
      --candidate-pythonpath "$work/c" --until-verdict --max-samples 16 --out "$out" "${what[@]}" \
      > "$work/out.txt" 2>&1 || code=$?
    t1=$(date +%s.%N)
    [ -f "$out/log.txt" ] || { cat "$work/out.txt"; exit 1; }
    start=$(since_epoch "$(grep -m1 '\[run-start\]' "$out/log.txt" | cut -d' ' -f1)")
    worker=$(since_epoch "$(grep -m1 '\[worker-start\]' "$out/log.txt" | cut -d' ' -f1)")
    row="$(echo "$start - $t0" | bc) $(echo "$worker - $t0" | bc) $(echo "$t1 - $t0" | bc)"
    echo "$row" >> "$work/times-$route.txt"
    printf '%-6d %14.2f %19.2f %10.2f %6d\n' "$i" $row "$code"
  done
  python3 - "$work/times-$route.txt" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
print("median %14.2f %19.2f %10.2f" % tuple(statistics.median(column) for column in zip(*rows)))
PY
done
echo "import ${import_seconds} s, device $device, $python, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
