#!/usr/bin/env bash
# Liger-Kernel's own benchmark script, unchanged, through the script route (docs/python.md, "do_bench
# scripts"; issue 47) on the H200: its native runs beside `orchestrate ab --script`.
#
#   bench/gpu/liger_ab.sh OUT_DIR [PART...]     PART: setup native aa ab (default: all four)
#
#   setup   a venv (.liger/venv, --system-site-packages: the machine's torch, triton and
#           transformers) with liger-kernel 0.8.2 installed offline from .liger/wheels (--no-deps:
#           its requirements are torch and triton; packaging is carried in case), Liger-Kernel's
#           benchmark/ of tag v0.8.2 unpacked from the tarball beside it into .liger/src, and the
#           planted copy: the installed liger_kernel copied to .liger/planted/liger_kernel with its
#           rms_norm_forward computed twice (twice the GPU work of Liger's RMSNorm forward, and only
#           of it)                                                                         ~20 s
#   native  `python benchmark/scripts/benchmark_rms_norm.py --model llama_2_7b` once per side (the
#           installed Liger, then the planted copy first on PYTHONPATH), from .liger/src: 18 speed
#           calls (x 1024, 2048, 4096 tokens; forward, backward, full; huggingface, liger), then its
#           memory runs; the summary prints the medians it printed, per call and side  ~2 x 30-60 s
#   aa      orchestrate ab --script on the same script and arguments, both sides the installed Liger
#           (the candidate differs by an unused variable, as an ab run needs a difference) ~2-3 min
#   ab      the same against the planted copy: SLOWER expected for rms_norm/liger/forward/* and
#           rms_norm/liger/full/* only; SAME (or UNCERTAIN) for rms_norm/liger/backward/* (its
#           forward ran once, in the set-up) and for every huggingface call (the controls) ~2-3 min
#
# Needs what bench/gpu/preamble.sh says (the device build, $bin), python3 3.12 with torch and
# triton, no network, and .liger/wheels carried (made on the development machine: docs/python.md,
# "do_bench scripts", says how). The venv, the unpacked benchmark and the planted copy stay in
# .liger/ (ignored by git, kept while the machine is warm: carry .liger/wheels, not .liger), so the
# parts may be run as separate calls; a part finding no venv sets up first. MODEL (env) is the
# script's --model (default llama_2_7b: x-values up to its 4096 positions); SAMPLES the ab runs'
# --samples (default 12); TIMER their --timer (default: isobench's, a CUDA graph; `events` where
# a backward's capture fails and its samples fall back, or to time as do_bench does). Every command's output is in OUT_DIR/<step>.out/.err, durations in
# OUT_DIR/commands.log and OUT_DIR/times.txt; OUT_DIR/summary.txt holds the wall times, the native
# medians, the two runs' verdict counts and SLOWER instances, their controls line, where the
# script's imports were done (each zygote with CUDA deferred, or each worker), the graph fallbacks,
# and whether the runs wrote the script's CSV (they must not: it stays as the native runs left it).
out=${1:?usage: liger_ab.sh OUT_DIR [setup|native|aa|ab]...}
shift
parts=${*:-setup native aa ab}
for p in $parts; do
  case "$p" in
    setup|native|aa|ab) ;;
    *) echo "liger_ab.sh: unknown part '$p' (setup, native, aa, ab)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: the native runs start in .liger/src
source "$(dirname "$0")/preamble.sh"
bin=$(cd "$bin" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-570} ))  # for preamble.sh's bounded
root=$PWD/.liger
wheels=$root/wheels
venv=$root/venv
py=$venv/bin/python
src=$root/src/liger-kernel-0.8.2
planted=$root/planted
times=$out/times.txt
model=${MODEL:-llama_2_7b}
samples=${SAMPLES:-12}
timer=(${TIMER:+--timer "$TIMER"})
script=$src/benchmark/scripts/benchmark_rms_norm.py
csv=$src/benchmark/data/all_benchmark_data.csv
mkdir -p "$root"
if [[ " $parts " != *" setup "* ]] && { [ ! -x "$py" ] || [ ! -d "$planted/liger_kernel" ] || [ ! -f "$script" ]; }; then
  parts="setup $parts"
fi

if [[ " $parts " == *" setup "* ]]; then
  if ! ls "$wheels"/liger_kernel-0.8.2-*.whl >/dev/null 2>&1 || [ ! -f "$wheels/liger-kernel-0.8.2-benchmark.tar.gz" ]; then
    echo "liger_ab.sh: $wheels lacks the liger_kernel 0.8.2 wheel or liger-kernel-0.8.2-benchmark.tar.gz: carry .liger/wheels" >&2
    exit 2
  fi
  rm -rf "$venv" "$root/src" "$planted"
  torch_venv "$venv" || exit 1
  # --no-index --no-deps: offline, from the carried folder; torch and triton are the machine's.
  step pip-install "${pip[@]}" install --no-index --no-deps --find-links "$wheels" liger-kernel==0.8.2 || exit 1
  "$py" -c "import packaging" 2>/dev/null ||
    step pip-packaging "${pip[@]}" install --no-index --no-deps --find-links "$wheels" packaging || exit 1
  mkdir -p "$root/src" && tar -xzf "$wheels/liger-kernel-0.8.2-benchmark.tar.gz" -C "$root/src" || exit 1
  installed=$("$py" -c "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('liger_kernel').origin))")
  mkdir -p "$planted" && cp -r "$installed" "$planted/liger_kernel" || exit 1
  # LigerRMSNormFunction.forward looks rms_norm_forward up among the module's globals when called.
  cat >>"$planted/liger_kernel/ops/rms_norm.py" <<'PLANT'


# isobench's planted regression (bench/gpu/liger_ab.sh): the RMSNorm forward computed twice.
_isobench_rms_norm_forward_once = rms_norm_forward


def rms_norm_forward(*args, **kwargs):
    _isobench_rms_norm_forward_once(*args, **kwargs)
    return _isobench_rms_norm_forward_once(*args, **kwargs)
PLANT
  step versions "$py" -c "import sys, torch, triton, transformers, liger_kernel.transformers.rms_norm as r; \
from importlib.metadata import version; print(sys.version.split()[0], 'torch', torch.__version__, 'triton', \
triton.__version__, 'transformers', transformers.__version__, 'liger-kernel', version('liger-kernel'), r.__file__)"
  step planted-check env PYTHONPATH="$planted" "$py" -c "import liger_kernel.ops.rms_norm as r; \
assert r.__file__.startswith('$planted'), r.__file__; assert hasattr(r, '_isobench_rms_norm_forward_once')" || exit 1
fi

script_args=(--model "$model")
if [[ " $parts " == *" native "* ]]; then
  # Liger's own run, as its README runs it: from the checkout's root. Each writes (appends to) the
  # script's CSV, benchmark/data/all_benchmark_data.csv; the ab runs below must leave it alone.
  (cd "$src" && timed native-baseline bounded native-baseline 240 "$py" "$script" "${script_args[@]}")
  (cd "$src" && timed native-candidate bounded native-candidate 240 env PYTHONPATH="$planted" "$py" "$script" \
     "${script_args[@]}")
fi
csv_before=$( [ -f "$csv" ] && sha256sum "$csv" | cut -c1-16 || echo none)

ab_run() {  # NAME CANDIDATE-OPTIONS...
  local name=$1; shift
  rm -rf "$out/$name-run"
  timed "$name" bounded "$name" "${AB_CAP_S:-400}" "$bin/orchestrate" ab --format table --python "$py" \
    --script "$script" --script-arg=--model --script-arg="$model" --samples "$samples" "${timer[@]}" \
    --out "$out/$name-run" "$@"
}
for p in $parts; do  # in the order given: the first gets the time when the deadline is short
  case "$p" in
    aa) ab_run aa --candidate-env ISOBENCH_LIGER_SIDE=candidate ;;
    ab) ab_run ab --candidate-pythonpath "$planted" ;;
  esac
done
csv_after=$( [ -f "$csv" ] && sha256sum "$csv" | cut -c1-16 || echo none)

{
  echo "liger_ab.sh $(date -u +%FT%TZ): parts $parts, --model $model, --samples $samples ${timer[*]}"
  [ -f "$out/versions.out" ] && cat "$out/versions.out"
  [ -f "$times" ] && cat "$times"
  # The medians the script printed (its "Benchmark Data" JSON), per call, each side, and their ratio.
  "$py" - "$out/native-baseline.out" "$out/native-candidate.out" <<'MEDIANS' 2>&1
import json, os, sys
def medians(path):
    found = {}
    if not os.path.exists(path):
        return found
    text, decoder = open(path).read(), json.JSONDecoder()
    for chunk in text.split("********** Benchmark Data **********")[1:]:
        try:
            runs = decoder.raw_decode(chunk.strip())[0]
        except ValueError:
            continue
        for run in runs:
            if run.get("metric_name") != "speed":
                continue
            for x, y in zip(run["x_values"], run["y_values_50"]):
                found["%s/%s/%s/%s" % (run["kernel_name"], run["kernel_provider"], run["kernel_operation_mode"], x)] = y
    return found
a, b = medians(sys.argv[1]), medians(sys.argv[2])
for call in sorted(set(a) | set(b)):
    ratio = b[call] / a[call] if call in a and call in b and a[call] else float("nan")
    print("native %-40s baseline %8.4f ms  candidate %8.4f ms  B/A %.3f" % (call, a.get(call, float("nan")),
                                                                           b.get(call, float("nan")), ratio))
MEDIANS
  for name in aa ab; do
    [ -f "$out/$name.out" ] || continue
    echo "$name verdicts: $(grep -oE ' (SAME|SLOWER|FASTER|UNCERTAIN)$' "$out/$name.out" | sort | uniq -c | tr -s ' \n' ' ')"
    echo "$name SLOWER: $(grep -E ' SLOWER$' "$out/$name.out" | awk '{print $1}' | tr '\n' ' ')"
    grep -hE '^(controls|outcome|warning: control)' "$out/$name.out" "$out/$name.err"
    # Where the script's imports were done: by each side's zygote with CUDA deferred (Liger's utils
    # ask torch.cuda.is_available(), which initialises the driver), or by each worker, and why.
    grep -h "^isobench: zygote " "$out/$name-run/workers.log" 2>/dev/null | sort -u
    grep -hE "\[(zygote-deferred-cuda|zygote-note)\]" "$out/$name-run/log.txt" 2>/dev/null
    echo "$name workers that did the imports: $(grep -c "done in worker" "$out/$name-run/workers.log" 2>/dev/null)"
    echo "$name samples timed by events after a failed graph capture: $(grep -c graph_fallback \
"$out/$name-run/samples.jsonl" 2>/dev/null)"
    grep -hiE "error|Traceback" "$out/$name-run/workers.log" 2>/dev/null | sort | uniq -c | head -5
  done
  echo "the script's CSV before the ab runs: $csv_before, after: $csv_after (the same: the runs wrote nothing there)"
} >>"$out/summary.txt"
cat "$out/summary.txt"
