#!/usr/bin/env bash
# The CUDA graph timer's chunked capture (--graph-chunk, docs/measurement.md "timer: graph") on
# Python benchmarks of tiny torch kernels (bench/gpu/graph_chunk.yaml, thousands of launches per
# sample): the same sweep with --graph-chunk 0 (one graph of all inner launches, captured launch
# by launch through Python) and at the default (1024: a smaller graph replayed), alternated:
#
#   pin                 a run that pins every instance's inner count; the others measure --like it,
#                       so every run times the same launches per sample and compare pairs them
#   full-N, chunk-N     N = 1..ISOBENCH_ROUNDS (default 2): --graph-chunk 0 and the default, the
#                       first of the two alternating from round to round
#   compare-N           orchestrate compare full-N chunk-N: chunking measures the same per-launch
#                       time (an A/A between the two settings: no verdict but SAME expected)
#   summary             bench/gpu/graph_chunk_summary.py: per instance the median per-launch value
#                       chunk/full, per run the workers' set-up phase (where each worker captures
#                       its graphs) and measuring phase from the journal (bench/gpu/worker_phases.py),
#                       and each run's wall time: OUT/summary.md, OUT/summary.json
#
#   ISOBENCH_BIN=build-device/bin bench/gpu/graph_chunk.sh OUT
#
# About 3 minutes on an H100 (ISOBENCH_DEADLINE_S, default 300, bounds it). python3 on PATH must
# import torch; without an NVIDIA GPU the script stops at once, exit 2.
out=${1:?usage: graph_chunk.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "graph_chunk.sh: no NVIDIA GPU here (nvidia-smi -L failed): this script times CUDA graphs on one" >&2
  exit 2
fi
# shellcheck source=bench/gpu/preamble.sh
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
deadline=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-300} ))
if [ ! -x "$bin/orchestrate" ]; then
  echo "graph_chunk.sh: no orchestrate in $bin (set ISOBENCH_BIN to a build's bin/)" >&2
  exit 2
fi
if ! python3 -c "import torch; assert torch.cuda.is_available()" 2>"$out/python-check.err"; then
  echo "graph_chunk.sh: python3 on PATH cannot use torch on the GPU (see $out/python-check.err)" >&2
  exit 2
fi
python3 -c "import sys, torch; print(sys.version); print('torch', torch.__version__, 'cuda', torch.version.cuda)" \
  >"$out/versions.txt" 2>&1
"$bin/orchestrate" --version >>"$out/versions.txt" 2>&1
run=("$bin/orchestrate" --quiet --format none)
sweep=$here/graph_chunk.yaml
runs=$out/runs
mkdir -p "$runs"

bounded pin 90 "${run[@]}" --graph-chunk 0 --samples 2 --out "$runs/pin" "$sweep" || {
  echo "graph_chunk.sh: the pinning run failed (see $out/pin.err)" >&2
  exit 1
}
full() { bounded "full-$1" 60 "${run[@]}" --graph-chunk 0 --like "$runs/pin" --out "$runs/full-$1" "$sweep"; }
chunk() { bounded "chunk-$1" 60 "${run[@]}" --like "$runs/pin" --out "$runs/chunk-$1" "$sweep"; }
for n in $(seq 1 "${ISOBENCH_ROUNDS:-2}"); do
  # Which setting goes first alternates from round to round, so drift does not favour one.
  if (( n % 2 )); then full "$n"; chunk "$n"; else chunk "$n"; full "$n"; fi
  # Exit 1 is a verdict other than SAME: what the step is there to see, not a failure of the script.
  bounded "compare-$n" 30 "$bin/orchestrate" compare --json "$runs/full-$n" "$runs/chunk-$n"
done
gpu_state after
step summary python3 "$here/graph_chunk_summary.py" "$out"
cat "$out/summary.out"
