#!/usr/bin/env bash
# The headline calibration re-measured on the current defaults (docs/evidence.md, "Measured on
# an H200"): no measurement flag is given, so every setting is the default of the build carried
# (timer, inner count, pre-start, context gate), and the run records which.
#   bench/gpu/readme_calibration.sh OUT_DIR [part]     part: modes | ab | all (default)
# modes: A/A calibration of sequential, interleave and process (per batch), K = 8 runs each, with
#        8 more runs per mode at the injected 5% slowdown (252 A/A comparisons per mode): about
#        2-3 minutes of device time on configs/calibration.yaml.
# ab:    A/A calibration of ab, K = 56 runs: 56 x 9 = 504 within-run A/A comparisons, enough for
#        a Wilson upper bound of 0.76% at 0 hits (the goal for `ab`: at least 500): about 21
#        minutes, so three device calls.
# Each calibration is resumable: a call cut short by the device's limit (or by
# ISOBENCH_DEADLINE_S, seconds, default 560: calibrate is interrupted then, as by Ctrl-C) leaves a
# directory that the next call of the same part finishes (calibrate --resume); nothing complete is
# measured twice. A run that the cut left partial is not continued: the next call may get another
# card (the device tool does not promise the same one), and one run's samples must come from one
# card and one stretch of time. It is moved, as it is, to OUT_DIR/NAME.partial/ (kept, in no figure)
# and measured again from its start.
# The folder OUT_DIR then becomes a session of a results folder: docs/results/README.md says how.
out=${1:?usage: readme_calibration.sh OUT_DIR [modes|ab|all]}
part=${2:-all}
source "$(dirname "$0")/preamble.sh"
cap=${ISOBENCH_DEADLINE_S:-560}

# set_aside_partial NAME: move every run directory of $out/NAME whose run.json does not say
# "complete" to $out/NAME.partial/<call time>/, logging each.
set_aside_partial() {
  local name=$1 stamp
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  python3 - "$out/$name" "$out/$name.partial/$stamp" >>"$log" <<'PY'
import json, pathlib, shutil, sys
root, aside = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for run in sorted(root.glob("**/run-*")):
    if not run.is_dir():
        continue
    try:
        status = json.loads((run / "run.json").read_text()).get("status")
    except (OSError, ValueError):
        status = None
    if status != "complete":
        target = aside / run.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(run), str(target))
        print(f"# set aside (status {status}): {run} -> {target}")
PY
}

# calibrate_or_resume NAME FLAGS...: start the calibration in $out/NAME, or finish it.
calibrate_or_resume() {
  local name=$1; shift
  if [ -f "$out/$name/experiment.json" ]; then
    set_aside_partial "$name"
    step "$name-resume-$(date -u +%H%M%S)" timeout -s INT --kill-after=30 "$cap" "$bin/orchestrate" calibrate --resume "$out/$name"
  else
    step "$name" timeout -s INT --kill-after=30 "$cap" "$bin/orchestrate" calibrate "$@" --out "$out/$name" \
      configs/calibration.yaml
  fi
}

if [ "$part" = modes ] || [ "$part" = all ]; then
  calibrate_or_resume calibrate --runs 8 --modes sequential,interleave,process --real-slowdown 5
fi
if [ "$part" = ab ] || [ "$part" = all ]; then
  calibrate_or_resume calibrate-ab --runs 56 --modes ab
fi
gpu_state after
