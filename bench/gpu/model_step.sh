#!/usr/bin/env bash
# The BERT-large training step on the H200 (issue 20, docs/model-workloads.md): the step in its
# three modes with the per-iteration accounting and one trace per instance, then an A/B of a real
# change found at kernel level. Sample counts are small to fit one short device call (6 samples
# per instance, 8 per side in the A/B): enough to see the modes and the accounting, not a
# calibration. Parts, in order (device time estimated, not measured):
#
#   checks  models/test_bert_training.py on the tiny configuration: the modes train alike, an
#           eager step does not synchronise                                              ~30 s
#   modes   bench/gpu/model_step.yaml: eager and graph at 8x128 and 8x512, compile at 8x128, one
#           worker (sequential), --record-kernels; model_step_summary.py's table     ~100 s
#   ab      bench/gpu/model_step_ab.yaml: eager 8x128, fused AdamW against foreach AdamW
#           (--candidate-set adamw=foreach), a fresh worker per round, --record-kernels ~60 s
#
#   ISOBENCH_BIN=build-stage/bin bench/gpu/model_step.sh OUT_DIR [PART...]   (default: all, < 4 min)
#
# The whole script stops within ISOBENCH_DEADLINE_S seconds (default 230): each part runs under
# `timeout` with what is left, and a part with less than 10 s left is skipped and logged. Runs
# from the repository root with the binaries of scripts/build.sh device, laid out as in
# build-device/ (bin/orchestrate, bin/isobench-worker, lib/libisobench-worker.so,
# python/isobench/); python3 on PATH must import torch. What it writes in OUT_DIR: each command's
# .out and .err and commands.log (exit codes, durations); the run directories model-step/ and
# model-step-ab/ (kernels.json with the accounting, artifacts/side-*/*/isobench-iteration-trace.json);
# summary.out and summary.json (the table); ab-compare.out (the A/B's verdict with its kernels).
out=${1:?usage: model_step.sh OUT_DIR [checks|modes|ab]...}
shift
parts=${*:-checks modes ab}
for p in $parts; do
  case "$p" in
    checks|modes|ab) ;;
    *) echo "model_step.sh: unknown part '$p' (checks, modes, ab)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/preamble.sh"
package="$bin/../python"
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-230} ))  # for preamble.sh's bounded
if ! python3 -c "import torch" 2>"$out/python-check.err"; then
  echo "model_step.sh: python3 on PATH cannot import torch (see $out/python-check.err)" >&2
  exit 2
fi
python3 -c "import sys, torch; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda)" \
  >"$out/versions.txt" 2>&1
gpu_state before
run="$bin/orchestrate --quiet --format none"

for p in $parts; do
  case "$p" in
    checks)
      bounded checks 60 env PYTHONPATH="$package:models" python3 -m unittest -v models/test_bert_training.py
      ;;
    modes)
      bounded model-step 150 $run --out "$out/model-step" bench/gpu/model_step.yaml
      step summary python3 bench/gpu/model_step_summary.py "$out/model-step" --json "$out/summary.json"
      ;;
    ab)
      bounded model-step-ab 90 "$bin/orchestrate" ab --quiet --baseline "$bin/isobench-worker" \
        --candidate "$bin/isobench-worker" --candidate-set adamw=foreach --fail-on never \
        --out "$out/model-step-ab" bench/gpu/model_step_ab.yaml
      step ab-compare "$bin/orchestrate" compare "$out/model-step-ab"
      ;;
  esac
done
gpu_state after
cat "$out/summary.out" 2>/dev/null
cat "$out/ab-compare.out" 2>/dev/null
