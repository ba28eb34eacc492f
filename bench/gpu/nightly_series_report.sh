#!/usr/bin/env bash
# What a nightly series must show to pass (bench/gpu/nightly_series.sh OUT_DIR
# measured it): the runs into one history (labelled by the build each ran), the change points
# (`history regressions`, exit 1 expected: the slowed instances are SLOWER), `compare` of two
# --like runs (every instance joined), the HTML report and its screenshot in headless Chromium.
# Nothing here touches the GPU; it runs wherever the run directories are.
#
#   bench/gpu/nightly_series_report.sh OUT_DIR [BIN]     (BIN: the orchestrate build, default build/bin)
#
# Writes into OUT_DIR: history.sqlite, history-list.out, regressions.out/.json (+ .rc),
# compare-first-second.out (+ .rc), compare-first-last.out, report/index.html, report.png.
set -u
out=${1:?usage: nightly_series_report.sh OUT_DIR [BIN]}
bin=${2:-build/bin}
h="--history $out/history.sqlite"
rm -f "$out/history.sqlite" "$out/history.sqlite-wal" "$out/history.sqlite-shm"
# Each run's build from runs.txt (the last line for a run wins: a resumed series lists it again).
declare -A build
while read -r name worker _; do build[$name]=$worker; done <"$out/runs.txt"
for dir in "$out"/runs/r*; do
  name=$(basename "$dir")
  "$bin/orchestrate" history add $h --label "${build[$name]:-unknown}" "$dir" || exit 2
done
"$bin/orchestrate" history list $h >"$out/history-list.out"
"$bin/orchestrate" history regressions $h >"$out/regressions.out"
echo $? >"$out/regressions.rc"
"$bin/orchestrate" history regressions $h --json >"$out/regressions.json"
runs=("$out"/runs/r*)
"$bin/orchestrate" compare --fail-on never "${runs[0]}" "${runs[1]}" >"$out/compare-first-second.out" 2>&1
echo $? >"$out/compare-first-second.rc"
"$bin/orchestrate" compare --fail-on never "${runs[0]}" "${runs[-1]}" >"$out/compare-first-last.out" 2>&1
"$bin/orchestrate" report --out "$out/report" $h || exit 2
browser=$(command -v chromium || command -v chromium-browser)
profile=$(mktemp -d)
"$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
  --enable-logging=stderr --v=0 --window-size=1280,3200 --screenshot="$out/report.png" \
  "file://$(cd "$out" && pwd)/report/index.html" 2>"$out/report-browser.err"
rm -rf "$profile"
grep -c ":CONSOLE(" "$out/report-browser.err" >"$out/report-console-messages.txt"
cat "$out/regressions.out"
