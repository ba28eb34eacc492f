#!/usr/bin/env bash
# Wall time of the statistics through the command line (docs/results/stats-speed.md):
#   bench/stats_speed.sh BUILD_DIR [RAW_TAR]
# `orchestrate compare --samples` on seeded lognormal samples (5% noise) at 50 and 200 per side, A/A
# and 4% slower, and 54 vs 49 at 4% (its p lies a hair from alpha, so the permutation draws run
# longest); then `orchestrate calibrate --resume` on a fresh copy of the 12-run Python calibration
# of docs/results/2026-12-01-h200-d (raw.tar.xz, session-d2/python/calibrate). Each compare runs 3
# times, the calibration once; every time is printed, with the CPU time (user + system) beside the
# wall time.
set -euo pipefail
build=${1:?usage: bench/stats_speed.sh BUILD_DIR [RAW_TAR]}
raw=$(realpath "${2:-docs/results/2026-12-01-h200-d/raw.tar.xz}")
orchestrate=$(realpath "$build/bin/orchestrate")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import random, sys
out = sys.argv[1]
def write(name, n, factor, seed):
    r = random.Random(seed)
    with open(f"{out}/{name}", "w") as f:
        for _ in range(n):
            f.write(f"{1e-5 * factor * r.lognormvariate(0, 0.05):.9e}\n")
for n in (50, 200):
    write(f"a{n}.txt", n, 1.0, 1000 + n)
    write(f"aa{n}.txt", n, 1.0, 2000 + n)
    write(f"b{n}.txt", n, 1.04, 3000 + n)
write("a54.txt", 54, 1.0, 4054)
write("b49.txt", 49, 1.04, 5049)
PY

timed() {  # label, runs, command...
  local label=$1 runs=$2; shift 2
  for ((i = 1; i <= runs; i++)); do
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" > "$work/out.txt" 2>&1 || true
    read -r wall user system < <(tail -n 1 "$work/time.txt")
    printf '%-42s run %d: %8.3f s wall, %8.3f s CPU\n' "$label" "$i" "$wall" "$(echo "$user + $system" | bc)"
  done
  grep -E "^(Brunner-Munzel studentized|verdict)" "$work/out.txt" | sed 's/^/    /'
}

cd "$work"
for n in 50 200; do
  timed "compare --samples, $n per side, A/A" 3 "$orchestrate" compare --samples "a$n.txt" "aa$n.txt"
  timed "compare --samples, $n per side, 4% slower" 3 "$orchestrate" compare --samples "a$n.txt" "b$n.txt"
done
timed "compare --samples, 54 vs 49, 4% slower" 3 "$orchestrate" compare --samples a54.txt b49.txt

tar -xJf "$raw" -C "$work" session-d2/python/calibrate
cp -r "$work/session-d2/python/calibrate" "$work/calibrate"
timed "calibrate --resume (12 Python runs)" 1 "$orchestrate" calibrate --resume "$work/calibrate"
head -4 "$work/out.txt" | sed 's/^/    /'
