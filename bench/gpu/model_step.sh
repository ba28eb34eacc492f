#!/usr/bin/env bash
# The BERT-large training step on the H200 (docs/model-workloads.md): the step in its
# three modes with the per-iteration accounting and one trace per instance, an A/B of a real
# change found at kernel level, and the step's checks. Sample counts are small to fit one short
# device call (6 samples per instance, 8 per side in the A/B): enough to see the modes and the
# accounting, not a calibration. Parts, in order of what matters most (device time estimated,
# not measured):
#
#   modes    bench/gpu/model_step.yaml: eager and graph at 8x128 and 8x512, one worker
#            (sequential), --record-kernels                                               ~40 s
#   ab       bench/gpu/model_step_ab.yaml: graph 8x128, fused AdamW against foreach AdamW
#            (--candidate-set adamw=foreach), a fresh worker per round, --record-kernels:
#            16 workers and one describe                                                ~130 s
#   aa       (not in the default) bench/gpu/model_step_aa.yaml: calibrate --modes ab of the graph
#            step against itself, ISOBENCH_AA_RUNS runs (default 3: 3 A/A comparisons), about
#            6 s a worker                                                                 ~300 s
#   compile  bench/gpu/model_step_compile.yaml: compile at 8x128 (a cold inductor compile of
#            BERT-large, about a minute), then model_step_summary.py's table of every run  ~90 s
#   checks   models/test_bert_training.py on the tiny configuration: the modes train alike, an
#            eager step does not synchronise                                          rest, <= 60 s
#
#   ISOBENCH_BIN=build-stage/bin bench/gpu/model_step.sh OUT_DIR [PART...]   (default: all, about 5.5 min)
#
# The whole script stops within ISOBENCH_DEADLINE_S seconds (default 330): each part runs under
# `timeout` with what is left (at most its own cap), and a part with less than 10 s left is
# skipped and logged in commands.log. Runs from the repository root with the binaries of
# scripts/build.sh device, laid out as in build-device/ (bin/orchestrate, bin/isobench-worker,
# lib/libisobench-worker.so, python/isobench/); python3 on PATH must import torch. What it writes
# in OUT_DIR: each command's .out and .err and commands.log (exit codes, durations); the run
# directories model-step/, model-step-compile/ and model-step-ab/ (kernels.json with the
# accounting, artifacts/side-*/*/isobench-iteration-trace.json); summary.out and summary.json
# (the table, the traces checked); ab-compare.out (the A/B's verdict with its kernels per
# iteration); checks.out.
out=${1:?usage: model_step.sh OUT_DIR [modes|ab|aa|compile|checks]...}
shift
parts=${*:-modes ab compile checks}
for p in $parts; do
  case "$p" in
    modes|ab|aa|compile|checks) ;;
    *) echo "model_step.sh: unknown part '$p' (modes, ab, aa, compile, checks)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/preamble.sh"
package="$bin/../python"
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-330} ))  # for preamble.sh's bounded
if ! python3 -c "import torch" 2>"$out/python-check.err"; then
  echo "model_step.sh: python3 on PATH cannot import torch (see $out/python-check.err)" >&2
  exit 2
fi
python3 -c "import sys, torch; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda)" \
  >"$out/versions.txt" 2>&1
gpu_state before
run="$bin/orchestrate --quiet --format none"

runs=()
for p in $parts; do
  case "$p" in
    modes)
      bounded model-step 70 $run --out "$out/model-step" bench/gpu/model_step.yaml
      runs+=("$out/model-step")
      ;;
    ab)
      bounded model-step-ab 150 "$bin/orchestrate" ab --quiet --fixed-n --baseline "$bin/isobench-worker" \
        --candidate "$bin/isobench-worker" --candidate-set adamw=foreach --fail-on never \
        --out "$out/model-step-ab" bench/gpu/model_step_ab.yaml
      step ab-compare "$bin/orchestrate" compare "$out/model-step-ab"
      ;;
    aa)
      bounded model-step-aa 330 env PYTHONPATH="$PWD/models" "$bin/orchestrate" calibrate --quiet --runs "${ISOBENCH_AA_RUNS:-3}" --modes ab \
        --out "$out/model-step-aa" bench/gpu/model_step_aa.yaml
      ;;
    compile)
      bounded model-step-compile 110 $run --out "$out/model-step-compile" bench/gpu/model_step_compile.yaml
      runs+=("$out/model-step-compile")
      ;;
    checks)
      bounded checks 60 env PYTHONPATH="$package:models" python3 -m unittest -v models/test_bert_training.py
      ;;
  esac
done
if ((${#runs[@]})); then
  step summary python3 bench/gpu/model_step_summary.py "${runs[@]}" --json "$out/summary.json"
fi
gpu_state after
cat "$out/summary.out" 2>/dev/null
cat "$out/ab-compare.out" 2>/dev/null
