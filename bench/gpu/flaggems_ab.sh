#!/usr/bin/env bash
# FlagGems' own benchmark file, unchanged, through the do_bench route (docs/python.md, "do_bench
# suites"; issue 47) on the H200: its native runs beside `orchestrate ab --pytest`.
#
#   bench/gpu/flaggems_ab.sh OUT_DIR [PART...]     PART: setup probe native aa ab amax
#                                                  (default: setup probe native aa ab)
#
#   setup   a venv (.flaggems/venv, --system-site-packages: the machine's torch and triton) with
#           FlagGems 5.3.4 installed offline from .flaggems/wheels (the flag_gems wheel and the
#           dependencies a torch environment lacks: packaging, PyYAML, SQLAlchemy, greenlet,
#           typing-extensions), FlagGems' benchmark/ unpacked from the tarball beside them into
#           .flaggems/src, and the planted copy: the installed flag_gems copied to
#           .flaggems/planted/flag_gems with its softmax computed twice (twice the GPU work of
#           FlagGems' softmax, and only of it)                                             ~30 s
#   probe   bench/gpu/deferred_cuda_probe.py on flag_gems and the benchmark's conftest and consts,
#           from .flaggems/src: whether they import with CUDA deferred, as a zygote imports them,
#           and whether children forked after it run FlagGems' softmax                   ~20 s
#   native  `pytest benchmark/test_softmax.py --level core --mode kernel -k SELECT` once per side
#           (the installed FlagGems, then the planted copy first on PYTHONPATH), timed   ~2 x 40 s
#   aa      orchestrate ab --pytest on the same file, both sides the installed FlagGems (the
#           candidate differs by an unused variable, as an ab run needs a difference)   ~3-5 min
#   ab      the same against the planted copy: SLOWER expected for softmax/gems/* only,
#           SAME for softmax/torch/* (the controls)                                     ~3-5 min
#   amax    ab --pytest on benchmark/test_amax.py (-k test_amax, A/A, --samples 10: at 6 no instance of 30 could be SLOWER or FASTER after Holm, and ab refuses it): its
#           amax_kernel is a FlagGems LibTuner, which test_softmax lacks, so this is the run that
#           shows the tuner replay (docs/python.md, "do_bench suites"); the summary prints each
#           side's python.json tuner_replay and the fallback warnings                     ~2-4 min
#
# Needs what bench/gpu/preamble.sh says (the device build, $bin), python3 3.12 with torch and
# triton, no network, and .flaggems/ carried: `.flaggems/wheels` as made on the development
# machine (docs/python.md says how). The venv and the unpacked benchmark stay in .flaggems/ (an
# ignored folder, kept while the machine is warm: carry .flaggems/wheels, not .flaggems), so the
# parts may be run as separate calls (aa and ab in the order given); a part finding no venv sets up first. SELECT (env) is pytest's -k (default: the one test test_softmax, 30 timing calls
# at --level core); SAMPLES the ab runs' --samples (default 12, as the H100 runs of 2026-12-06;
# SAMPLES=default gives no --samples: ab's own sequential design, issue 47's time goal at ab's
# defaults). AB_OPTS (env): more options for the aa and ab runs (e.g. --graph-chunk 0), split
# on spaces. Every command's output is in
# OUT_DIR/<step>.out/.err, durations in OUT_DIR/commands.log and OUT_DIR/times.txt, and
# OUT_DIR/summary.txt holds the wall times, the two runs' verdict counts, each run's zygote lines
# on the file's import (with CUDA deferred, or left to the workers and why) and how many workers
# imported it.
out=${1:?usage: flaggems_ab.sh OUT_DIR [setup|native|aa|ab]...}
shift
parts=${*:-setup probe native aa ab}
for p in $parts; do
  case "$p" in
    setup|probe|native|aa|ab|amax) ;;
    *) echo "flaggems_ab.sh: unknown part '$p' (setup, probe, native, aa, ab, amax)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: the native runs start in .flaggems/src
source "$(dirname "$0")/preamble.sh"
bin=$(cd "$bin" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-570} ))  # for preamble.sh's bounded
root=$PWD/.flaggems
wheels=$root/wheels
venv=$root/venv
py=$venv/bin/python
src=$root/src
planted=$root/planted
times=$out/times.txt
select=${SELECT:-test_softmax and not backward and not out}
samples=${SAMPLES:-12}
sampling=(--samples "$samples")
[ "$samples" = default ] && sampling=()
fg_args=(--level core --mode kernel)
mkdir -p "$root"
# A fresh machine (or a carried .flaggems that replaced the venv): set up first.
if [[ " $parts " != *" setup "* ]] && { [ ! -x "$py" ] || [ ! -d "$planted/flag_gems" ]; }; then
  parts="setup $parts"
fi

if [[ " $parts " == *" setup "* ]]; then
  if ! ls "$wheels"/flag_gems-5.3.4-*.whl >/dev/null 2>&1 || [ ! -f "$wheels/flaggems-5.3.4-benchmark.tar.gz" ]; then
    echo "flaggems_ab.sh: $wheels lacks the flag_gems 5.3.4 wheel or flaggems-5.3.4-benchmark.tar.gz: carry .flaggems" >&2
    exit 2
  fi
  rm -rf "$venv" "$src" "$planted"
  torch_venv "$venv" || exit 1
  # --no-index: offline, from the carried folder only; what the machine's torch environment has
  # already (numpy, typing-extensions) is kept.
  step pip-install "${pip[@]}" install --no-index --find-links "$wheels" flag_gems==5.3.4 || exit 1
  mkdir -p "$src" && tar -xzf "$wheels/flaggems-5.3.4-benchmark.tar.gz" -C "$src" || exit 1
  installed=$("$py" -c "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('flag_gems').origin))")
  mkdir -p "$planted" && cp -r "$installed" "$planted/flag_gems" || exit 1
  cat >>"$planted/flag_gems/ops/softmax.py" <<'PLANT'


# isobench's planted regression (bench/gpu/flaggems_ab.sh): softmax computed twice.
_isobench_softmax_once = softmax


def softmax(self, dim, half_to_float=False):
    _isobench_softmax_once(self, dim, half_to_float)
    return _isobench_softmax_once(self, dim, half_to_float)
PLANT
  step versions "$py" -c "import sys, torch, triton, flag_gems; print(sys.version.split()[0], 'torch', torch.__version__, \
'triton', triton.__version__, 'flag_gems', flag_gems.__version__, flag_gems.__file__)"
  step planted-check env PYTHONPATH="$planted" "$py" -c "import sys, flag_gems; s = sys.modules['flag_gems.ops.softmax']; \
assert flag_gems.__file__.startswith('$planted'), flag_gems.__file__; assert hasattr(s, '_isobench_softmax_once')" || exit 1
fi

if [[ " $parts " == *" probe "* ]]; then
  (cd "$src" && bounded probe 60 "$py" "$OLDPWD/bench/gpu/deferred_cuda_probe.py" flag_gems benchmark.conftest \
     benchmark.consts)
fi

file=$src/benchmark/test_softmax.py
if [[ " $parts " == *" native "* ]]; then
  # FlagGems' own run, from the folder holding benchmark/ (its tests import `from . import base`).
  (cd "$src" && timed native-baseline bounded native-baseline 240 "$py" -m pytest -s benchmark/test_softmax.py \
     "${fg_args[@]}" -k "$select")
  (cd "$src" && timed native-candidate bounded native-candidate 240 env PYTHONPATH="$planted" "$py" -m pytest -s \
     benchmark/test_softmax.py "${fg_args[@]}" -k "$select")
fi

ab_run() {  # NAME CANDIDATE-OPTIONS...
  local name=$1; shift
  rm -rf "$out/$name-run"
  timed "$name" bounded "$name" "${AB_CAP_S:-560}" "$bin/orchestrate" ab --format table --python "$py" --pytest "$file" -k "$select" \
    --pytest-arg=--level --pytest-arg=core --pytest-arg=--mode --pytest-arg=kernel \
    "${sampling[@]}" ${AB_OPTS:-} --out "$out/$name-run" "$@"  # shellcheck disable=SC2086  # split on purpose
}
for p in $parts; do  # in the order given: the first gets the time when the deadline is short
  case "$p" in
    aa) ab_run aa --candidate-env ISOBENCH_FLAGGEMS_SIDE=candidate ;;
    ab) ab_run ab --candidate-pythonpath "$planted" ;;
    amax)
      rm -rf "$out/amax-run"
      timed amax bounded amax "${AB_CAP_S:-560}" "$bin/orchestrate" ab --format table --python "$py" \
        --pytest "$src/benchmark/test_amax.py" -k test_amax --pytest-arg=--level \
        --pytest-arg=core --pytest-arg=--mode --pytest-arg=kernel --samples 10 --out "$out/amax-run" \
        --candidate-env ISOBENCH_FLAGGEMS_SIDE=candidate ;;
  esac
done

{
  echo "flaggems_ab.sh $(date -u +%FT%TZ): parts $parts, -k '$select', --samples $samples"
  [ -f "$out/versions.out" ] && cat "$out/versions.out"
  [ -f "$times" ] && cat "$times"
  for name in aa ab; do
    [ -f "$out/$name.out" ] || continue
    echo "$name verdicts: $(grep -oE ' (SAME|SLOWER|FASTER|UNCERTAIN)$' "$out/$name.out" | sort | uniq -c | tr -s ' \n' ' ')"
    echo "$name SLOWER: $(grep -E ' SLOWER$' "$out/$name.out" | awk '{print $1}' | tr '\n' ' ')"
    grep -E '^outcome:' "$out/$name.out"
    # Where flag_gems was imported: by each side's zygote with CUDA deferred (its lines in
    # workers.log and log.txt), or by each worker (the fallback, and the zygote's note says why).
    grep -h "^isobench: zygote " "$out/$name-run/workers.log" 2>/dev/null | sort -u
    grep -hE "\[(zygote-deferred-cuda|zygote-note)\]" "$out/$name-run/log.txt" 2>/dev/null
    echo "$name workers that imported the file: $(grep -c " imported in worker " "$out/$name-run/workers.log" 2>/dev/null)"
    grep -h "imported in worker" "$out/$name-run/workers.log" 2>/dev/null | head -2
  done
  if [ -f "$out/amax.out" ]; then
    echo "amax verdicts: $(grep -oE ' (SAME|SLOWER|FASTER|UNCERTAIN)$' "$out/amax.out" | sort | uniq -c | tr -s ' \n' ' ')"
    # The tuner replay: each side's record (on, chosen_by, instances_replayed, fallbacks), and
    # the warning a side with fallbacks gets.
    "$py" -c "import json, sys; p = json.load(open(sys.argv[1])); [print('amax side', i, json.dumps(s.get('tuner_replay'))) for i, s in enumerate(p['sides'])]" \
      "$out/amax-run/python.json" 2>&1
    grep -h "tuner replay fell back" "$out/amax.err" "$out/amax.log" 2>/dev/null
  fi
  [ -f "$out/probe.out" ] && { echo "probe:"; cat "$out/probe.out"; }
} >>"$out/summary.txt"
cat "$out/summary.txt"
