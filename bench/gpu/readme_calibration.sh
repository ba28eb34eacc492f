#!/usr/bin/env bash
# The README's headline calibration re-measured on the current defaults (README.md, "Measured on
# an H200"): no measurement flag is given, so every setting is the default of the build carried
# (timer, inner count, pre-start, context gate), and the run records which.
#   bench/gpu/readme_calibration.sh OUT_DIR [part]     part: modes | ab | all (default)
# modes: A/A calibration of sequential, interleave and process (per batch), K = 8 runs each, with
#        8 more runs per mode at the injected 5% slowdown (252 A/A comparisons per mode): about
#        2-3 minutes of device time on configs/calibration.yaml.
# ab:    A/A calibration of ab, K = 56 runs: 56 x 9 = 504 within-run A/A comparisons, enough for
#        a Wilson upper bound of 0.76% at 0 hits (issue 17 asks for at least 500): about 5
#        minutes.
# Each calibration is resumable: a call cut short by the device's limit leaves a directory that
# the next call of the same part finishes (calibrate --resume); nothing is measured twice.
# The folder OUT_DIR then becomes a session of a results folder: docs/results/README.md says how.
out=${1:?usage: readme_calibration.sh OUT_DIR [modes|ab|all]}
part=${2:-all}
source "$(dirname "$0")/preamble.sh"

# calibrate_or_resume NAME FLAGS...: start the calibration in $out/NAME, or finish it.
calibrate_or_resume() {
  local name=$1; shift
  if [ -f "$out/$name/experiment.json" ]; then
    step "$name-resume" timeout 560 "$bin/orchestrate" calibrate --resume "$out/$name"
  else
    step "$name" timeout 560 "$bin/orchestrate" calibrate "$@" --out "$out/$name" configs/calibration.yaml
  fi
}

if [ "$part" = modes ] || [ "$part" = all ]; then
  calibrate_or_resume calibrate --runs 8 --modes sequential,interleave,process --real-slowdown 5
fi
if [ "$part" = ab ] || [ "$part" = all ]; then
  calibrate_or_resume calibrate-ab --runs 56 --modes ab
fi
gpu_state after
