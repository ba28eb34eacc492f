#!/usr/bin/env bash
# The time before a run starts (orchestrate's start to log.txt's run-start) of an A/B of a do_bench
# file whose import asks torch about the device, as FlagGems' does (issue 47): the CPU stand-in
# (tests/python/data/do_bench_cuda_props.py with tests/python/fake_torch's torch), its import made
# to cost FAKE_IMPORT_SECONDS (default 2), so that what the start pays for each import shows.
#
#   bench/deferred_prerun.sh BUILD_BIN OUT [RUNS]
#
# Writes OUT/run-N/ and prints per run: the seconds before the run started, and how many processes
# imported the file (the collector, the zygotes started while it collected, the run's zygotes).
set -euo pipefail
bin=$1 out=$2 runs=${3:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$here/tests/python
mkdir -p "$out"
for n in $(seq 1 "$runs"); do
  run=$out/run-$n imports=$out/imports-$n.txt
  rm -rf "$run" "$imports"
  env -u PYTHONPATH DO_BENCH_IMPORTS="$imports" FAKE_IMPORT_SECONDS="${FAKE_IMPORT_SECONDS:-2}" \
    "$bin/orchestrate" ab --format none --device cpu --pytest "$data/data/do_bench_cuda_props.py" \
    --python-path "$data/fake_triton" --python-path "$data/fake_torch" --candidate-env X=1 \
    --samples 8 --inner 5 --out "$run" >"$out/run-$n.out" 2>"$out/run-$n.err"
  python3 - "$run" "$imports" <<'EOF'
import datetime, json, sys
run, imports = sys.argv[1], sys.argv[2]
def at(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
began = at(json.load(open(run + "/run.json"))["process_started"])
start = next(at(line.split()[0]) for line in open(run + "/log.txt") if "[run-start]" in line)
importers = open(imports).read().split()
print("%s: %.2f s before the run started, the file imported by %d processes"
      % (run, (start - began).total_seconds(), len(importers)))
EOF
done
