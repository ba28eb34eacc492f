#!/usr/bin/env bash
# What taking a do_bench test forward through its timing calls once per worker (the plan's
# call_chains, docs/python.md "do_bench suites") does to an A/B's wall time on the CPU, against a
# build that runs the test once per instance and more: `orchestrate ab --pytest` of
# tests/python/data/do_bench_softmax.py (one test, 30 timing calls, as FlagGems' test_softmax at
# --level core) with the stand-in triton.testing, the candidate's 8th call twice as slow
# (DO_BENCH_SLOW_CALL=8, a gems call: SLOWER expected there only), at ab's defaults with --inner 5.
# Each build runs at ab's warm-up (3 launches) and with --warmup 20: a call set up in its turn is
# timed right after its set-up, and on a 2-core machine 250 us samples taken within a millisecond
# of it read slower and wider than the warm-up lets settle (docs/results/2026-12-05-cpu-do-bench-chain).
# ROUNDS rounds (default 3), each running BEFORE then AFTER at each warm-up, so that the machine's
# load falls on both alike. commands.log has each run's exit code and wall time, then "# NAME: R
# test runs, S samples" (R: the lines the test appended to DO_BENCH_RUNS, the collection's run
# included); runs/ the run directories.
#   bench/python_do_bench_chain.sh BEFORE_BUILD AFTER_BUILD OUT
# A build folder holds bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so and python/.
set -uo pipefail
usage="usage: bench/python_do_bench_chain.sh BEFORE_BUILD AFTER_BUILD OUT"
before=$(realpath "${1:?$usage}")
after=$(realpath "${2:?$usage}")
out=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
tests=$(cd "$here/../tests/python" && pwd)
mkdir -p "$out/runs"
out=$(cd "$out" && pwd)
log=$out/commands.log
{ uname -srm; nproc; uptime; "$after/bin/orchestrate" --version; } >"$out/machine.txt" 2>&1
source "$here/step.sh"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for variant in before after before-w20 after-w20; do
    name=$variant-$round
    build=$before warmup=()
    [ "${variant%-w20}" = after ] && build=$after
    [ "$variant" != "${variant%-w20}" ] && warmup=(--warmup 20)
    DO_BENCH_RUNS=$out/$name.runs step "$name" "$build/bin/orchestrate" ab --device cpu --quiet --format json \
      --pytest "$tests/data/do_bench_softmax.py" --python-path "$tests/fake_triton" \
      --candidate-env DO_BENCH_SLOW_CALL=8 --inner 5 "${warmup[@]}" --out "$out/runs/$name"
    samples=$(grep -c '"type": *"sample"' "$out/runs/$name/samples.jsonl" 2>/dev/null)
    echo "# $name: $(wc -l <"$out/$name.runs") test runs, ${samples:-0} samples" >>"$log"
  done
done
cat "$log"
