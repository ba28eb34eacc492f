#!/usr/bin/env bash
# Time to a verdict of a Python A/B on the H200: a Triton row softmax over 4
# shapes (bench/gpu/python_ab_speed.yaml; bench/gpu/softmax_mod.py in three folders: a and b the
# same file, c with an extra pass), each command's wall time in OUT/commands.log:
#
#   do-bench-a, do-bench-c   what a user runs without isobench: one fresh process per side of
#                            triton.testing.do_bench_cudagraph over the 4 shapes
#                            (bench/gpu/softmax_do_bench.py)
#   cold-slower, cold-same   ab --until-verdict, a against c and a against b, the first runs of
#                            these environments: every side compiles its kernels
#   until-slower, until-same the same again: each side's Triton cache warm from the cold runs
#                            (the folder of its compile environment under OUT/triton-cache)
#   fixed-slower, fixed-same ab --fixed-n: every instance at the sweep's samples
#   default-slower, default-same
#                            ab with no sampling option: sequential, as --until-verdict (the default
#                            since 2026-12-03, docs/measurement.md)
#   pytest-until-slower, pytest-until-same, pytest-fixed-slower
#                            the same through the pytest bridge (bench/gpu/test_softmax_speed.py;
#                            the last with --fixed-n)
#   phases                   bench/gpu/worker_phases.py over every run: where a worker's time goes
#   probe                    bench/gpu/worker_setup_probe.py: a worker's set-up step by step, in 5
#                            children forked from a zygote-like parent (the first compiles into
#                            OUT/probe-cache, the others load), the last one profiled; each
#                            child records the instances' IR as a side's first worker does
#   probe-warm               the same from a parent that did the zygote's warm-up before forking
#   repeat                   ISOBENCH_REPEATS (default 3) rounds of until-slower, pytest-until-slower,
#                            until-same, pytest-until-same, back to back: the spread of each and
#                            the pytest route's ratio to the python: route's
#   repeat-fixed             the same with --fixed-n (fixed-slower-N, pytest-fixed-slower-N, fixed-same-N,
#                            pytest-fixed-same-N): both routes take the same samples, so a pair's
#                            ratio is the routes' own difference
#   bytecode                 ISOBENCH_REPEATS rounds of until-slower-off-N, until-slower-kept-N,
#                            until-same-off-N, until-same-kept-N: the python: route with the zygotes'
#                            bytecode not kept (ISOBENCH_BYTECODE_CACHE=off) and kept (as the
#                            environment says; python/isobench/bytecode.py), alternated
#   cpp-batch                the C++ batch throughput of configs/calibration.yaml (item 4)
#   zygotes                  ISOBENCH_REPEATS rounds of until-slower-per-run-N, until-slower-per-round-N,
#                            until-same-per-run-N, until-same-per-round-N: ab --until-verdict with one
#                            zygote per side for the run (--zygotes per-run, the GPU default) and fresh
#                            zygotes per round sharing a drawn hash seed (per-round), alternated: what a
#                            round's zygote start costs on the H200, and whether the verdicts stay
#
#   bench/gpu/python_ab_speed.sh OUT [PART...]     (parts: do-bench probe probe-warm cold until
#                                                   fixed default pytest repeat repeat-fixed bytecode cpp-batch zygotes; default
#                                                   the first six and pytest)
#
# The Triton caches live under OUT/triton-cache (ISOBENCH_TRITON_CACHE), empty at the start. With
# ISOBENCH_TRITON_CACHE=run in the environment instead, every run compiles into its own run
# directory, as isobench did before caches were kept per environment (that is how the runs of
# docs/results/2026-12-02-h200-python-ab/before were made, with the wheel of that time).
#
# orchestrate is taken from PATH (a wheel installed into a venv, or ISOBENCH_BIN/orchestrate),
# the zygotes' interpreter from ISOBENCH_PYTHON (default python3); it must import torch and triton.
out=${1:?usage: python_ab_speed.sh OUT [PART...]}
shift
parts=${*:-do-bench probe probe-warm cold until fixed pytest}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-480} ))
orchestrate=${ISOBENCH_BIN:+$ISOBENCH_BIN/}orchestrate
py=${ISOBENCH_PYTHON:-python3}
folders=$out/folders
mkdir -p "$folders/a" "$folders/b" "$folders/c"
cp "$here/softmax_mod.py" "$folders/a/"
cp "$here/softmax_mod.py" "$folders/b/"
sed 's/^EXTRA_PASS = .*/EXTRA_PASS = True/' "$here/softmax_mod.py" >"$folders/c/softmax_mod.py"
# The pytest file away from any softmax_mod.py: pytest puts a test file's folder first on sys.path,
# and a module beside it would shadow each side's own copy (both sides would measure that one).
cp "$here/test_softmax_speed.py" "$folders/"
if [ "${ISOBENCH_TRITON_CACHE:-}" != run ]; then export ISOBENCH_TRITON_CACHE=$out/triton-cache; fi
"$py" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >"$out/versions.txt" 2>&1
"$orchestrate" --version >>"$out/versions.txt" 2>&1
ab() {  # ab NAME CAP CANDIDATE_FOLDER [orchestrate ab options...]: exit 1 is a SLOWER verdict, not a failure
  local name=$1 cap=$2 candidate=$3; shift 3
  bounded "$name" "$cap" "$orchestrate" ab --python "$py" --baseline-pythonpath "$folders/a" \
    --candidate-pythonpath "$folders/$candidate" --out "$out/runs/$name" "$@"
}
runs=()
rounds() {  # rounds MODE OPTION CAP PYTEST_CAP: ISOBENCH_REPEATS rounds of MODE-slower-N, pytest-MODE-slower-N,
            # MODE-same-N and pytest-MODE-same-N, back to back, each ab given OPTION
  local mode=$1 option=$2 cap=$3 pytest_cap=$4 i kind candidate
  for i in $(seq 1 "${ISOBENCH_REPEATS:-3}"); do
    for kind in slower same; do
      candidate=$([ $kind = slower ] && echo c || echo b)
      ab "$mode-$kind-$i" "$cap" "$candidate" "$option" "$here/python_ab_speed.yaml"
      ab "pytest-$mode-$kind-$i" "$pytest_cap" "$candidate" "$option" --pytest "$folders/test_softmax_speed.py"
      runs+=("$mode-$kind-$i" "pytest-$mode-$kind-$i")
    done
  done
}
for p in $parts; do
  case "$p" in
    do-bench)
      for side in a c; do bounded "do-bench-$side" 60 "$py" "$here/softmax_do_bench.py" "$folders/$side"; done ;;
    cold)
      ab cold-slower 90 c --until-verdict "$here/python_ab_speed.yaml"
      ab cold-same 90 b --until-verdict "$here/python_ab_speed.yaml"
      runs+=(cold-slower cold-same) ;;
    until)
      ab until-slower 90 c --until-verdict "$here/python_ab_speed.yaml"
      ab until-same 90 b --until-verdict "$here/python_ab_speed.yaml"
      runs+=(until-slower until-same) ;;
    fixed)
      ab fixed-slower 120 c --fixed-n "$here/python_ab_speed.yaml"
      ab fixed-same 120 b --fixed-n "$here/python_ab_speed.yaml"
      runs+=(fixed-slower fixed-same) ;;
    default)
      ab default-slower 90 c "$here/python_ab_speed.yaml"
      ab default-same 90 b "$here/python_ab_speed.yaml"
      runs+=(default-slower default-same) ;;
    pytest)
      ab pytest-until-slower 120 c --until-verdict --pytest "$folders/test_softmax_speed.py"
      ab pytest-until-same 120 b --until-verdict --pytest "$folders/test_softmax_speed.py"
      ab pytest-fixed-slower 150 c --fixed-n --pytest "$folders/test_softmax_speed.py"
      runs+=(pytest-until-slower pytest-until-same pytest-fixed-slower) ;;
    repeat)
      # Back-to-back pairs of the python: and pytest routes, for the spread and their ratio.
      rounds until --until-verdict 90 120 ;;
    repeat-fixed)
      rounds fixed --fixed-n 120 150 ;;
    bytecode)
      for i in $(seq 1 "${ISOBENCH_REPEATS:-3}"); do
        for kind in slower same; do
          candidate=$([ $kind = slower ] && echo c || echo b)
          ISOBENCH_BYTECODE_CACHE=off ab "until-$kind-off-$i" 90 "$candidate" --until-verdict "$here/python_ab_speed.yaml"
          ab "until-$kind-kept-$i" 90 "$candidate" --until-verdict "$here/python_ab_speed.yaml"
          runs+=("until-$kind-off-$i" "until-$kind-kept-$i")
        done
      done ;;
    zygotes)
      for i in $(seq 1 "${ISOBENCH_REPEATS:-3}"); do
        for kind in slower same; do
          candidate=$([ $kind = slower ] && echo c || echo b)
          for zygotes in per-run per-round; do
            ab "until-$kind-$zygotes-$i" 120 "$candidate" --until-verdict --zygotes "$zygotes" "$here/python_ab_speed.yaml"
            runs+=("until-$kind-$zygotes-$i")
          done
        done
      done ;;
    cpp-batch)
      # Item 4: the C++ batch throughput of the built-in kernels, with the settings of
      # docs/results/2026-11-29-h200-d (session-d2, batch-1) twice, then at the defaults.
      for i in 1 2; do
        bounded "cpp-batch-old-$i" 120 "$orchestrate" --quiet --format none --isolation process --per batch \
          --samples 24 --inner 20 --timer events --out "$out/runs/cpp-batch-old-$i" "$here/../../configs/calibration.yaml"
        runs+=("cpp-batch-old-$i")
      done
      bounded cpp-batch-defaults 120 "$orchestrate" --quiet --format none --isolation process --per batch \
        --samples 24 --out "$out/runs/cpp-batch-defaults" "$here/../../configs/calibration.yaml"
      runs+=(cpp-batch-defaults) ;;
    probe)
      bounded probe 60 env TRITON_CACHE_DIR="$out/probe-cache" "$py" "$here/worker_setup_probe.py" "$folders/a" --ir ;;
    probe-warm)
      bounded probe-warm 60 env TRITON_CACHE_DIR="$out/probe-cache" "$py" "$here/worker_setup_probe.py" "$folders/a" \
        --ir --warm-up ;;
    *) echo "python_ab_speed.sh: unknown part '$p' (do-bench, cold, until, fixed, default, pytest, repeat, repeat-fixed, bytecode," \
         "cpp-batch, zygotes, probe, probe-warm)" >&2; exit 2 ;;
  esac
done
dirs=()
for r in "${runs[@]}"; do [ -f "$out/runs/$r/samples.jsonl" ] && dirs+=("$out/runs/$r"); done
[ ${#dirs[@]} -gt 0 ] && step phases python3 "$here/worker_phases.py" "${dirs[@]}" --json "$out/phases.json"
gpu_state after
cat "$log"
