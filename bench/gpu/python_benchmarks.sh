#!/usr/bin/env bash
# Python benchmarks on the H200 (docs/python.md): torch and Triton kernels as python:
# benchmarks, run by a zygote per side that forks a worker per sample or batch. What it checks,
# part by part (device time estimated, to plan the calls):
#
#   checks    the examples' outputs against references on small shapes (pytest,
#             examples/python/test_examples.py)                                          ~20 s
#   cost      torch's bf16 4096^3 matmul per sample and per batch (12 forked workers each: the
#             sweep is that one instance, so a batch is one sample of it), three torch ops per
#             batch (8), the C++ worker on the built-in gemm of that shape per sample (12), one
#             worker at a time (--prestart 0), and 3 fresh interpreters that import torch and run
#             the matmul                                                                 ~60 s
#   fidelity  a Triton softmax and torch's matmul (10 samples each), against triton.testing called
#             5 times: on the defaults (--timer events --cold-cache true against do_bench,
#             --timer graph against do_bench_cudagraph; fidelity.json), and on triton.testing's
#             own method and duty cycle (--cold-launches true --min-sample-time-ms 100 against
#             do_bench's flush before every launch for 100 ms; --timer graph
#             --min-sample-time-ms 200 against do_bench_cudagraph's 10 replays of 20 ms;
#             fidelity-matched.json); and the probes: the worker's stream is torch's, a syncing
#             launch falls back                                                          ~90 s
#   slowdown  one ab run whose candidate adds an elementwise pass                     ~40 s
#   validity  orchestrate calibrate --runs 6 --modes process,ab on 10 instances (210 A/A
#             comparisons; about 6 x 20 s process and 6 x 40 s ab runs)                ~400 s
#
#   bench/gpu/python_benchmarks.sh OUT_DIR [PART...]      (default: every part, about 10 min)
#
# The whole script stops within ISOBENCH_DEADLINE_S seconds (default 345, under the 6 minutes one
# device call is given): each step runs under `timeout` with what is left of that (at most its
# own cap), a step with less than 10 s left is skipped and logged as such, and the summary says
# which figures are missing. The calibration comes last because it is the longest: when it is
# cut short, run `python_benchmarks.sh OUT2 validity` on its own (ISOBENCH_DEADLINE_S=560), or
# finish it with `orchestrate calibrate --resume OUT/calibrate`.
# Runs from the repository root with the binaries of scripts/build.sh device: preamble.sh's
# $bin is build-device/bin, or $ISOBENCH_BIN for a staged copy. What it needs of the build, laid
# out as in build-device/ (the orchestrator finds the worker library and the package beside the
# worker, BIN/../lib and BIN/../python): bin/orchestrate, bin/isobench-worker,
# lib/libisobench-worker.so, python/isobench/*.py. `python3` on PATH must be the interpreter with
# torch and triton: the zygotes run it (calibrate takes no --python). Every command's output is in
# OUT_DIR/<step>.out and .err, its exit code and duration in OUT_DIR/commands.log; the run
# directories are kept; python_summary.py prints the figures against the issue's targets
# (OUT_DIR/summary.out, summary.json).
out=${1:?usage: python_benchmarks.sh OUT_DIR [checks|cost|fidelity|slowdown|validity]...}
shift
parts=${*:-checks cost fidelity slowdown validity}
for p in $parts; do
  case "$p" in
    checks|cost|fidelity|slowdown|validity) ;;
    *) echo "python_benchmarks.sh: unknown part '$p' (checks, cost, fidelity, slowdown, validity)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/preamble.sh"
package="$bin/../python"
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-345} ))  # for preamble.sh's bounded
if ! python3 -c "import torch, triton" 2>"$out/python-check.err"; then
  echo "python_benchmarks.sh: python3 on PATH cannot import torch and triton (see $out/python-check.err)" >&2
  exit 2
fi
python3 -c "import sys, torch, triton; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda); \
print('triton', triton.__version__)" >"$out/versions.txt" 2>&1
run="$bin/orchestrate --quiet --format none"

for p in $parts; do
  case "$p" in
    checks)
      bounded checks 60 env PYTHONPATH="$package" python3 -m pytest -q -p no:cacheprovider examples/python/test_examples.py
      ;;
    cost)
      # --prestart 0: one worker at a time, so that a worker's life (start to exit) is its own cost,
      # with no wait for a permit behind the measuring one.
      bounded python-matmul-sample 60 $run --prestart 0 --per sample --out "$out/python-matmul-sample" \
        bench/gpu/python_matmul.yaml
      bounded python-matmul-batch 60 $run --prestart 0 --per batch --out "$out/python-matmul-batch" \
        bench/gpu/python_matmul.yaml
      bounded python-ops-batch 60 $run --prestart 0 --per batch --out "$out/python-ops-batch" bench/gpu/python_torch_ops.yaml
      bounded cpp-gemm-sample 40 $run --prestart 0 --per sample --out "$out/cpp-gemm-sample" bench/gpu/cpp_gemm.yaml
      bounded fresh-interpreter 45 python3 bench/gpu/python_fresh_interpreter.py --runs 3 --out "$out/fresh-interpreter.json"
      ;;
    fidelity)
      bounded fidelity-cold 60 $run --timer events --cold-cache true --out "$out/fidelity-cold" bench/gpu/python_fidelity.yaml
      bounded fidelity-graph 60 $run --timer graph --out "$out/fidelity-graph" bench/gpu/python_fidelity.yaml
      bounded fidelity 60 env PYTHONPATH="$package" python3 bench/gpu/python_do_bench.py \
        --cold-run "$out/fidelity-cold" --graph-run "$out/fidelity-graph" --out "$out/fidelity.json"
      # triton.testing's method and duty cycle (docs/python.md, "Fidelity"): do_bench flushes
      # before every launch and times each alone, back to back for 100 ms; do_bench_cudagraph
      # replays about 200 ms at a stretch (the card at its power limit), where isobench's
      # default samples are 10 ms, one single cold launch for --cold-cache.
      bounded fidelity-cold-launches 60 $run --timer events --cold-launches true --min-sample-time-ms 100 \
        --out "$out/fidelity-cold-launches" bench/gpu/python_fidelity.yaml
      bounded fidelity-graph-long 60 $run --timer graph --min-sample-time-ms 200 \
        --out "$out/fidelity-graph-long" bench/gpu/python_fidelity.yaml
      bounded fidelity-matched 60 env PYTHONPATH="$package" python3 bench/gpu/python_do_bench.py \
        --cold-run "$out/fidelity-cold-launches" --graph-run "$out/fidelity-graph-long" \
        --out "$out/fidelity-matched.json"
      bounded python-probes 40 $run --retries 0 --out "$out/python-probes" bench/gpu/python_probes.yaml
      ;;
    slowdown)
      # Exit code 1 is the verdict SLOWER this step is after.
      bounded slowdown 60 "$bin/orchestrate" ab --quiet --fixed-n --format json --candidate-env ISOBENCH_EXAMPLE_SOFTMAX_VARIANT=extra_pass \
        --out "$out/slowdown-run" bench/gpu/python_slowdown.yaml
      ;;
    validity)
      # One Triton cache for every A/A run (one compiler): each run would otherwise compile its
      # kernels afresh into its own run directory (docs/python.md, "Two compilers in one A/B").
      bounded calibrate 540 env PYTHONPATH="$PWD/examples/python" TRITON_CACHE_DIR="$out/calibrate-triton-cache" \
        "$bin/orchestrate" calibrate --quiet --runs 6 \
        --modes process,ab --out "$out/calibrate" bench/gpu/python_validity.yaml
      ;;
  esac
done
gpu_state after
step summary python3 bench/gpu/python_summary.py "$out"
cat "$out/summary.out"
