#!/usr/bin/env bash
# --record-kernels on the H200: which kernels CUPTI records for GEMM, grouped GEMM and
# cast, what recording costs, whether it moves the samples, and that ab flags a side that ran other
# kernels. From the repository root, binaries in build-device/bin (scripts/build.sh device); about
# 2 minutes.
#   bench/gpu/record_kernels_check.sh OUT_DIR
# Reads: OUT_DIR/summary.txt (per instance: kernels, shares, kernel GPU time against the sample,
# host enqueue time, wall time of each run) and the run directories beside it.
out=${1:?usage: record_kernels_check.sh OUT_DIR}
source "$(dirname "$0")/preamble.sh"  # another build's bin/ through ISOBENCH_BIN
sweep=bench/gpu/record_kernels.yaml
ls -l /usr/local/cuda/lib64/libcupti* /usr/local/cuda/extras/CUPTI/lib64/libcupti* >"$out/cupti-libraries.txt" 2>&1
# 0. The recorder itself: cast, GEMM and both grouped GEMMs recorded, CUPTI detached and attached
#    again, the CUDA timer's host enqueue time (tests/worker/test_kernel_recorder.cpp).
step test_kernel_recorder "$bin/test_kernel_recorder" -s

# 1. The same sweep without and with recording, fresh workers per round, alternated twice so
#    drift does not pass for a cost: kernels.json, kernel_gpu_s beside every value, wall times.
for pass in 1 2; do
  step "plain-$pass" "$bin/orchestrate" --quiet --format none --out "$out/plain-$pass" "$sweep"
  step "record-$pass" "$bin/orchestrate" --quiet --format none --record-kernels --out "$out/record-$pass" "$sweep"
done
# Did recording move the samples? Same code, so SAME (or UNCERTAIN) is expected everywhere.
step compare-plain-record "$bin/orchestrate" compare --fail-on never "$out/plain-1" "$out/record-1"
step compare-record-record "$bin/orchestrate" compare --fail-on never "$out/record-1" "$out/record-2"

# 2. Per-sample workers: every worker loads CUPTI and records, so this is where its cost shows.
step per-sample-plain "$bin/orchestrate" --quiet --format none --per sample --samples 4 --out "$out/per-sample-plain" "$sweep"
step per-sample-record "$bin/orchestrate" --quiet --format none --per sample --samples 4 --record-kernels \
  --out "$out/per-sample-record" "$sweep"

# 3. ab: identical builds (the kernels must be the same), and a candidate forced onto the second
#    cuBLASLt heuristic result (algo=1) and onto the other grouped GEMM implementation: the report
#    must say "kernels differ" for those instances, beside verdicts it does not change.
step ab-aa "$bin/orchestrate" ab --quiet --record-kernels --samples 6 --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker" --out "$out/ab-aa" "$sweep"
step ab-other-kernels "$bin/orchestrate" ab --quiet --record-kernels --samples 6 \
  --baseline "$bin/isobench-worker" --candidate "$bin/isobench-worker" --candidate-set algo=1 \
  --candidate-set impl=lt_loop --out "$out/ab-other-kernels" "$sweep"
step ab-other-kernels-json "$bin/orchestrate" compare --json --fail-on never "$out/ab-other-kernels"
step ab-other-kernels-csv "$bin/orchestrate" compare --csv --fail-on never "$out/ab-other-kernels"

# 4. A worker not asked to record never loads libcupti; one asked does (the dynamic loader's log).
mkdir -p "$out/lddebug-plain" "$out/lddebug-record"
step lddebug-plain env LD_DEBUG=libs LD_DEBUG_OUTPUT="$out/lddebug-plain/ld" "$bin/orchestrate" --quiet --format none \
  --samples 2 --out "$out/lddebug-plain-run" "$sweep"
step lddebug-record env LD_DEBUG=libs LD_DEBUG_OUTPUT="$out/lddebug-record/ld" "$bin/orchestrate" --quiet --format none \
  --samples 2 --record-kernels --out "$out/lddebug-record-run" "$sweep"
{
  echo "processes that loaded libcupti without --record-kernels: $(grep -l 'calling init: .*libcupti' "$out"/lddebug-plain/ld.* 2>/dev/null | wc -l)"
  echo "processes that loaded libcupti with --record-kernels:    $(grep -l 'calling init: .*libcupti' "$out"/lddebug-record/ld.* 2>/dev/null | wc -l)"
} >"$out/cupti-loaded.txt"
rm -rf "$out/lddebug-plain" "$out/lddebug-record"  # megabytes of loader log; the counts are kept

# 5. The reading: per instance and run.
step summary python3 - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
def load(run):
    d = os.path.join(out, run)
    samples = [json.loads(l) for l in open(os.path.join(d, "samples.jsonl")) if '"type":"sample"' in l]
    kernels = json.load(open(os.path.join(d, "kernels.json")))["instances"] if os.path.exists(os.path.join(d, "kernels.json")) else {}
    info = json.load(open(os.path.join(d, "run.json")))
    return samples, kernels, info
lines = []
for run in ["plain-1", "record-1", "plain-2", "record-2", "per-sample-plain", "per-sample-record", "ab-aa", "ab-other-kernels"]:
    try:
        samples, kernels, info = load(run)
    except OSError as e:
        lines.append(f"{run}: missing ({e})"); continue
    # A measuring worker's set-up after its release (inputs, warm-up, and the record pass with
    # CUPTI's loading and detaching when recording): where recording's cost lands.
    workers = [json.loads(l) for l in open(os.path.join(out, run, "samples.jsonl")) if '"type":"worker"' in l]
    setup = [(w["measure_begin_ns"] - w["released_ns"]) / 1e6 for w in workers
             if w.get("what") == "measure" and w.get("released_ns") and w.get("measure_begin_ns")]
    lines.append(f"== {run}: status {info.get('status')}, {info.get('wall_seconds', 0):.1f} s wall, "
                 f"{info.get('workers_started')} workers, {len(samples)} samples, set-up after release "
                 f"median {statistics.median(setup) if setup else float('nan'):.1f} ms")
    ids = sorted({s["instance"] for s in samples})
    for i in ids:
        for side in sorted({s["side"] for s in samples if s["instance"] == i}):
            mine = [s for s in samples if s["instance"] == i and s["side"] == side]
            value = statistics.median(s["value"] for s in mine)
            host = statistics.median(s.get("host_enqueue_s", 0) for s in mine)
            gpu = [s["kernel_gpu_s"] for s in mine if "kernel_gpu_s" in s]
            text = f"  {i} side {side}: median {value*1e6:.2f} us/launch, host enqueue {host*1e6:.2f} us/launch"
            if gpu:
                text += f", kernel GPU {statistics.median(gpu)*1e6:.2f} us/launch ({statistics.median(gpu)/value:.3f} of the sample) in {len(gpu)}/{len(mine)} samples"
            lines.append(text)
            rec = kernels.get(i, [])
            if side < len(rec):
                r = rec[side]
                if "reason" in r:
                    lines.append(f"    no record: {r['reason']}")
                else:
                    lines.append(f"    {r.get('recorder')}: {r['kernels_per_launch']:.2f} kernels/launch, "
                                 f"{r['kernel_gpu_s_per_launch']*1e6:.2f} us GPU/launch, dropped {r['dropped_records']}, truncated {r['truncated_kernels']}")
                    for k in r["kernels"]:
                        lines.append(f"    {k['share']*100:5.1f}%  x{k['launches_per_sample']:<5} grid {k['grid']} block {k['block']}  {k['name'][:110]}")
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
cat "$out/cupti-loaded.txt" >>"$out/summary.txt"
