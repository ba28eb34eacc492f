#!/usr/bin/env bash
# Times scripts/quickstart.sh from a cold compiler cache: dependencies (already installed: only
# the check), the configure and build of what it runs, and the quick sweep to its table, in a
# scratch build folder, with JOBS compile jobs (default 2, a 2-core machine). Prints one line per
# phase and the total; docs/results/quickstart-time.md records what it measured.
#   bench/quickstart_time.sh [SCRATCH_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${1:-$(mktemp -d /tmp/isobench-quickstart.XXXXXX)}
mkdir -p "$scratch"
export BUILD_DIR=$scratch/build JOBS=${JOBS:-2} CCACHE_DISABLE=1
rm -rf "$BUILD_DIR"
now() { date +%s.%N; }
t0=$(now)
scripts/install-deps.sh --build >/dev/null
t1=$(now)
# CPU seconds too: on a machine shared with other builds the wall time says more about them; the
# CPU time over the cores is what an idle machine of that many cores would take, about.
/usr/bin/time -f "%U %S" -o "$scratch/build.cpu" scripts/build.sh quick >"$scratch/build.log" 2>&1 ||
  { tail -20 "$scratch/build.log"; exit 1; }
t2=$(now)
"$BUILD_DIR/bin/orchestrate" --isolation process --quiet --out "$scratch/run" configs/quick.yaml >"$scratch/table.txt"
t3=$(now)
cat "$scratch/table.txt"
targets=$(grep -c '^\[' "$scratch/build.log" || true)
read -r user sys <"$scratch/build.cpu"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$targets" -v j="$JOBS" -v cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" -v cores="$(nproc)" 'BEGIN {
  printf "install-deps --build  %7.1f s\n", b - a
  printf "build (%d steps, -j%d, no ccache)  %7.1f s wall, %.1f s CPU (%.1f s over %d cores)\n", n, j, c - b, cpu, cpu / cores, cores
  printf "quick sweep           %7.1f s\n", d - c
  printf "total                 %7.1f s (%.1f min)\n", d - a, (d - a) / 60 }'
echo "nvcc: $(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || echo none); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
