#!/usr/bin/env bash
# Does the CUDA timer's injected slowdown (--slowdown-pct, worker/cuda/cuda_timer.cu:
# calibrate_slowdown) land within a point of its target on every instance of
# configs/calibration.yaml, on the current defaults (graph timer, inner auto)? One short
# calibration of the process mode, 2 A/A runs and 2 runs at the injected 5%, then target against
# realised per instance from its calibration.json (realised_slowdowns: ratio of medians and the
# Hodges-Lehmann interval, "missed" when more than a point off). About a minute of device time.
#   bench/gpu/slowdown_check.sh OUT_DIR
# Writes OUT_DIR/calibrate/ (the calibration directory), OUT_DIR/realised.txt (the table) and
# OUT_DIR/commands.log; each worker's setup note (what the timer's own calibration reached) is in
# the runs' journals.
out=${1:?usage: slowdown_check.sh OUT_DIR}
source "$(dirname "$0")/preamble.sh"

step calibrate timeout 300 "$bin/orchestrate" calibrate --runs 2 --modes process --real-slowdown 5 \
  --power-repetitions 50 --max-n 32 --out "$out/calibrate" configs/calibration.yaml
python3 - "$out/calibrate/calibration.json" >"$out/realised.txt" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
print(f"{'instance':60} {'target':>7} {'realised':>9} {'HL [interval]':>26}  missed")
for mode in data["modes"]:
    for r in mode["realised_slowdowns"]["instances"]:
        hl = r.get("hodges_lehmann")
        realised = f"{(r['median_ratio'] - 1) * 100:+.2f}%" if r["median_ratio"] else "-"
        interval = f"{(hl['ratio'] - 1) * 100:+.2f}% [{(hl['ci'][0] - 1) * 100:+.2f}, {(hl['ci'][1] - 1) * 100:+.2f}]" if hl else "-"
        print(f"{r['instance'][:60]:60} {r['target'] * 100:+6.1f}% {realised:>9} {interval:>26}  {r['missed_target']}")
PY
cat "$out/realised.txt"
