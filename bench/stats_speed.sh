#!/usr/bin/env bash
# Wall time of the statistics through the command line (docs/results/stats-speed.md):
#   bench/stats_speed.sh BUILD_DIR [RAW_TAR]
# `orchestrate compare --samples` on seeded lognormal samples (5% noise) at 50 and 200 per side,
# A/A and 4% slower, and 54 vs 49 at 4% (p about 3e-5 in issue 30); then `orchestrate calibrate
# --resume` on a fresh copy of the 12-run Python calibration of docs/results/2026-12-01-h200-d
# (raw.tar.xz, session-d2/python/calibrate). Each command runs 3 times; every time is printed.
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

timed() {  # label, command...
  local label=$1; shift
  for i in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" > "$work/out.txt" 2>&1 || true
    end=$(date +%s.%N)
    printf '%-40s run %d: %6.3f s\n' "$label" "$i" "$(echo "$end - $start" | bc)"
  done
  grep -E "^(Brunner-Munzel studentized|verdict)" "$work/out.txt" | sed 's/^/    /'
}

cd "$work"
for n in 50 200; do
  timed "compare --samples, $n per side, A/A" "$orchestrate" compare --samples "a$n.txt" "aa$n.txt"
  timed "compare --samples, $n per side, 4% slower" "$orchestrate" compare --samples "a$n.txt" "b$n.txt"
done
timed "compare --samples, 54 vs 49, 4% slower" "$orchestrate" compare --samples a54.txt b49.txt

tar -xJf "$raw" -C "$work" session-d2/python/calibrate
for i in 1 2 3; do
  rm -rf "$work/calibrate"
  cp -r "$work/session-d2/python/calibrate" "$work/calibrate"
  start=$(date +%s.%N)
  "$orchestrate" calibrate --resume "$work/calibrate" > "$work/calibrate.out" 2>&1
  end=$(date +%s.%N)
  printf '%-40s run %d: %6.3f s\n' "calibrate --resume (12 Python runs)" "$i" "$(echo "$end - $start" | bc)"
done
head -4 "$work/calibrate.out" | sed 's/^/    /'
