#!/usr/bin/env bash
# Every test: installs the dependencies, builds Release (with CUDA when the toolkit is there)
# and the sanitizer build of the host code, and runs ctest on both. GPU suites (label gpu) run
# only where a GPU is present; elsewhere ctest reports them skipped. Each step's wall time is
# printed at the end (README, "What CI runs").
set -euo pipefail
cd "$(dirname "$0")/.."

steps=()
step() {  # step NAME COMMAND...: runs it and keeps its wall time
  local name=$1 began=$SECONDS
  shift
  "$@"
  steps+=("$(printf '%-16s %5d s' "$name" $((SECONDS - began)))")
}
report() {
  echo "test.sh: wall time per step"
  for s in "${steps[@]}"; do echo "  $s"; done
  echo "  total            $(printf '%5d' "$SECONDS") s"
}

step deps scripts/install-deps.sh
step build-release scripts/build.sh release
# The Slurm suites (label slurm, docs/slurm.md) run in this pass only, on a one-host cluster
# that ctest's fixture starts (scripts/slurm-cluster.sh) and stops when they are done; the trap
# stops it too when ctest itself is killed.
trap 'scripts/slurm-cluster.sh stop >/dev/null 2>&1 || true' EXIT
step test-release ctest --test-dir build --output-on-failure -j "$(nproc)"
# The sanitizer pass hunts memory and undefined-behaviour errors. ASan must not turn a worker's
# SIGSEGV into an ordinary exit (the fault tests check how crashes are reported), and the suites
# that judge timing verdicts (label timing) run in the Release pass only: a build under ASan is
# not what one benchmarks.
step build-sanitize scripts/build.sh sanitize
export ASAN_OPTIONS=detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1
step test-sanitize ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" -L "unit|integration" -LE timing
unset ASAN_OPTIONS UBSAN_OPTIONS
# The wheel (CPU-only here), installed into a fresh venv and run from it alone: a sweep, a Python
# benchmark, ab --pytest, --version, and a GPU sweep refused in one line (docs/install.md).
step wheel scripts/wheel-check.sh
report
