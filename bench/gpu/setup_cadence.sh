#!/usr/bin/env bash
# Where a Python A/B's time goes when each fresh worker's set-up costs about a second (four Triton
# kernels, inputs from a seeded generator, a correctness check per shape: bench/gpu/setup_mod.py
# over the 4 shapes of setup_cadence.yaml), and what each part of the per-worker cadence buys:
#
#   cold              ab a against c (EXTRA_PASS: slower) with empty Triton and bytecode caches:
#                     the first run on a fresh machine (run it first in a call)
#   until             ISOBENCH_REPEATS rounds (default 2) of ab a/c and a/b (the same file) at ab's
#                     defaults, and the same through the pytest route (bench/gpu/test_setup_mod.py)
#   gate-off          the same a/c and a/b with --context-gate off (contexts and exits beside
#                     measurements)
#   prestart-2, prestart-3  the same with 2 and 3 workers started ahead
#   no-calibration    the same with --inner 1 (no calibration worker)
#   batch-K           the same with set-up batches of K workers (--setup-batch K); batch-K-gate-off
#                     without the context gate, batch-K-prestart-N with N batches started ahead
#   until-VARIANT     ISOBENCH_REPEATS rounds of a variant as `until` runs them, the pytest route
#                     included (until-batch-4: the time goals' "after" with batches of 4)
#   cold-VARIANT      cold with a variant's options (run it first in a call, into a fresh OUT)
#   aa-VARIANT        ISOBENCH_AA (default 6) more a/b runs of a variant (default, gate-off,
#                     prestart-3, batch-K...): A/A false verdicts of the variant
#   phases            (always, after the other parts; naming it adds nothing)
#                     bench/gpu/worker_phases.py over every run: each phase of a worker's life and
#                     the measuring share of the cadence; and bench/run_timeline.py: each run's wall
#                     time from orchestrate's start to its exit, part by part (timelines.out); and
#                     bench/gpu/batch_cadence.py: a batched run's batches, the contexts beside each
#                     set-up and how long a set-up batch waited for them (cadence.out)
#
# ISOBENCH_BIN_ALT (a second build's bin/): every round of `until` and `until-VARIANT` runs its
# runs with that build's orchestrate too, right after this build's, named alt-NAME (its zygotes
# run its own package and worker library), so that two builds alternate round by round on one
# card with the same Triton cache (a before/after of a change to the orchestrator).
# ISOBENCH_ALT_VARIANT (a variant's name, `default` for none): the alt- runs take that variant's
# options instead of the part's, so that two variants of one build alternate round by round:
# ISOBENCH_BIN_ALT=. ISOBENCH_ALT_VARIANT=default ... until-batch-18 (batches of 18 against the
# default; `.` names this build).
#
#   bench/gpu/setup_cadence.sh OUT [PART...]   (default: cold until gate-off prestart-2 prestart-3
#                                               no-calibration)
#
# orchestrate from PATH (a wheel installed into a venv) or ISOBENCH_BIN; ISOBENCH_PYTHON imports torch.
out=${1:?usage: setup_cadence.sh OUT [PART...]}
shift
parts=${*:-cold until gate-off prestart-2 prestart-3 no-calibration}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-480} ))
orchestrate=${ISOBENCH_BIN:+$ISOBENCH_BIN/}orchestrate
py=${ISOBENCH_PYTHON:-python3}
folders=$out/folders
mkdir -p "$folders/a" "$folders/b" "$folders/c"
cp "$here/setup_mod.py" "$folders/a/"
cp "$here/setup_mod.py" "$folders/b/"
sed 's/^EXTRA_PASS = .*/EXTRA_PASS = True/' "$here/setup_mod.py" >"$folders/c/setup_mod.py"
cp "$here/test_setup_mod.py" "$folders/"
export ISOBENCH_TRITON_CACHE=$out/triton-cache ISOBENCH_BYTECODE_CACHE=$out/bytecode-cache
"$py" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >"$out/versions.txt" 2>&1
"$orchestrate" --version >>"$out/versions.txt" 2>&1
[ -n "${ISOBENCH_BIN_ALT:-}" ] && [ "$ISOBENCH_BIN_ALT" != . ] && "$ISOBENCH_BIN_ALT/orchestrate" --version >>"$out/versions.txt" 2>&1
runs=()
orch=$orchestrate  # the build ab() runs: ISOBENCH_BIN's, or ISOBENCH_BIN_ALT's in an alt- round
ab() {  # ab NAME CANDIDATE_FOLDER [orchestrate ab options...]: exit 1 is a SLOWER verdict, not a failure
  local name=$1 candidate=$2; shift 2
  bounded "$name" 120 "$orch" ab --python "$py" --baseline-pythonpath "$folders/a" \
    --candidate-pythonpath "$folders/$candidate" --out "$out/runs/$name" "$@"
  runs+=("$name")
}
pair() {  # pair NAME [options...]: NAME-slower (a/c) and NAME-same (a/b), the python: route
  local name=$1; shift
  ab "$name-slower" c "$@" "$here/setup_cadence.yaml"
  ab "$name-same" b "$@" "$here/setup_cadence.yaml"
}
variant_options() {
  case "$1" in
    default) ;;
    gate-off) echo --context-gate off ;;
    prestart-2) echo --prestart 2 ;;
    prestart-3) echo --prestart 3 ;;
    no-calibration) echo --inner 1 ;;
    batch-[0-9]*)
      local rest=${1#batch-}
      local k=${rest%%-*}
      case "${rest#"$k"}" in
        "") echo --setup-batch "$k" ;;
        -gate-off) echo --setup-batch "$k" --context-gate off ;;
        -prestart-[0-9]*) echo --setup-batch "$k" --prestart "${rest#"$k"-prestart-}" ;;
        *) echo "setup_cadence.sh: unknown variant '$1'" >&2; return 2 ;;
      esac ;;
    *) echo "setup_cadence.sh: unknown variant '$1'" >&2; return 2 ;;
  esac
}
until_rounds() {  # until_rounds NAME [options...]: ISOBENCH_REPEATS rounds of both routes, a/c and a/b
  local name=$1 prefix; shift
  local this=("$@") alt=("$@")
  if [ -n "${ISOBENCH_ALT_VARIANT:-}" ]; then
    # shellcheck disable=SC2207  # the options split into words
    alt=($(variant_options "$ISOBENCH_ALT_VARIANT")) || exit 2
  fi
  for i in $(seq 1 "${ISOBENCH_REPEATS:-2}"); do
    for prefix in "" ${ISOBENCH_BIN_ALT:+alt-}; do
      orch=$orchestrate
      set -- "${this[@]}"
      [ -n "$prefix" ] && orch=${ISOBENCH_BIN_ALT:-}/orchestrate && set -- "${alt[@]}"
      [ -n "$prefix" ] && [ "$ISOBENCH_BIN_ALT" = . ] && orch=$orchestrate
      pair "$prefix$name-$i" "$@"
      ab "${prefix}pytest-$name-$i-slower" c "$@" --pytest "$folders/test_setup_mod.py"
      ab "${prefix}pytest-$name-$i-same" b "$@" --pytest "$folders/test_setup_mod.py"
    done
  done
  orch=$orchestrate
}
for p in $parts; do
  case "$p" in
    cold) ab cold-slower c "$here/setup_cadence.yaml" ;;
    cold-*)
      opts=$(variant_options "${p#cold-}") || exit 2
      # shellcheck disable=SC2086  # the options split into words
      ab "$p-slower" c $opts "$here/setup_cadence.yaml" ;;
    until) until_rounds until ;;
    until-*)
      opts=$(variant_options "${p#until-}") || exit 2
      # shellcheck disable=SC2086
      until_rounds "$p" $opts ;;
    gate-off|prestart-2|prestart-3|no-calibration|batch-*)
      opts=$(variant_options "$p") || exit 2
      # shellcheck disable=SC2086
      pair "$p" $opts ;;
    aa-*)
      v=${p#aa-}
      opts=$(variant_options "$v") || exit 2
      # shellcheck disable=SC2086
      for i in $(seq 1 "${ISOBENCH_AA:-6}"); do ab "aa-$v-$i" b $opts "$here/setup_cadence.yaml"; done ;;
    phases) ;;  # runs after every part by itself (below)
    *) echo "setup_cadence.sh: unknown part '$p'" >&2; exit 2 ;;
  esac
done
dirs=()
for r in "${runs[@]}"; do [ -f "$out/runs/$r/samples.jsonl" ] && dirs+=("$out/runs/$r"); done
[ ${#dirs[@]} -gt 0 ] && step phases python3 "$here/worker_phases.py" "${dirs[@]}" --json "$out/phases.json"
[ ${#dirs[@]} -gt 0 ] && step timelines python3 "$here/../run_timeline.py" "${dirs[@]}" --commands "$log" \
  --json "$out/timelines.json"
[ ${#dirs[@]} -gt 0 ] && step cadence python3 "$here/batch_cadence.py" "${dirs[@]}"
gpu_state after
cat "$log"
