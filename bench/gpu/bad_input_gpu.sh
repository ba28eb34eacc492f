#!/usr/bin/env bash
# The bad-input battery's GPU cases, which the CPU battery
# (tests/integration/test_bad_input_battery) cannot reach: a GPU index or list the machine does
# not have, a sweep past the GPU's memory, a CPU kernel on --device cuda, and Ctrl-C during a GPU
# run followed by --resume. About a minute on one H200.
#
#   bench/gpu/bad_input_gpu.sh OUT
#
# Writes OUT/summary.tsv (case, exit code, expected, run directory left behind (yes/no), the
# first line of stderr), each case's stdout and stderr (OUT/CASE.out, .err), commands.log and
# nvidia-smi before and after. A case holds when its exit code is the expected one and a refused
# case (2) left no run directory; the last line of summary.tsv counts them.
out=${1:?usage: bench/gpu/bad_input_gpu.sh OUT}
source "$(dirname "$0")/preamble.sh"
work="$out/work"
mkdir -p "$work"
orch="$bin/orchestrate"

cat >"$work/gemm.yaml" <<'EOF'
settings: {samples: 20, warmup: 2}
benchmarks:
  - kernel: gemm
    axes: {m: 1024, n: 1024, k: 1024}
EOF
# 1048576^2 bf16 for A, B and D: 6 TiB, past any GPU.
cat >"$work/huge.yaml" <<'EOF'
benchmarks:
  - kernel: gemm
    axes: {m: 1048576, n: 1048576, k: 1048576}
EOF
cat >"$work/cpu.yaml" <<'EOF'
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: 5}
EOF

printf 'case\texit\texpected\tdir_left\tfirst_stderr_line\n' >"$out/summary.tsv"
held=0 total=0
# `check NAME EXPECTED RUN_DIR COMMAND...`
check() {
  local name=$1 expected=$2 dir=$3; shift 3
  step "$name" "$@"
  local rc=$? left=no
  [ -e "$dir" ] && left=yes
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$expected" "$left" "$(head -n1 "$out/$name.err")" >>"$out/summary.tsv"
  total=$((total + 1))
  if [ "$rc" = "$expected" ] && { [ "$expected" != 2 ] || [ "$left" = no ]; }; then held=$((held + 1)); fi
}

check gpu-index-absent 2 "$work/r1" "$orch" --device cuda --quiet --gpu 99 --out "$work/r1" "$work/gemm.yaml"
check gpus-list-absent 2 "$work/r2" "$orch" --device cuda --quiet --gpus 0,99 --out "$work/r2" "$work/gemm.yaml"
check gpu-index-negative 2 "$work/r3" "$orch" --device cuda --quiet --gpu -1 --out "$work/r3" "$work/gemm.yaml"
check past-gpu-memory 2 "$work/r4" "$orch" --device cuda --quiet --out "$work/r4" "$work/huge.yaml"
check cpu-kernel-on-cuda 2 "$work/r5" "$orch" --device cuda --quiet --out "$work/r5" "$work/cpu.yaml"
check ab-gpu-index-absent 2 "$work/r6" "$orch" ab --device cuda --quiet --gpu 99 --baseline "$bin/isobench-worker" \
  --candidate "$bin/isobench-worker" --out "$work/r6" "$work/gemm.yaml"

# Ctrl-C during a GPU run (per sample: a fresh worker each, so it lasts seconds), then --resume.
echo "\$ $orch --device cuda --quiet --per sample --out $work/int gemm.yaml (SIGINT after 5 samples)" >>"$log"
"$orch" --device cuda --quiet --isolation process --per sample --out "$work/int" "$work/gemm.yaml" \
  >"$out/interrupt.out" 2>"$out/interrupt.err" &
pid=$!
for _ in $(seq 1 600); do
  n=$(grep -c '"type":"sample"' "$work/int/samples.jsonl" 2>/dev/null || true)
  [ "${n:-0}" -ge 5 ] && break
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
status=$(python3 -c "import json; print(json.load(open('$work/int/run.json'))['status'])" 2>/dev/null)
printf 'interrupt\t%s\t130\t%s\t%s\n' "$rc" "status=$status" "$(head -n1 "$out/interrupt.err")" >>"$out/summary.tsv"
total=$((total + 1))
[ "$rc" = 130 ] && [ "$status" = interrupted ] && held=$((held + 1))
check resume-after-interrupt 0 "$work/int" "$orch" --quiet --resume "$work/int"
samples=$(grep -c '"type":"sample"' "$work/int/samples.jsonl" 2>/dev/null || true)
printf 'resumed-samples\t%s\t20\t-\t-\n' "$samples" >>"$out/summary.tsv"
total=$((total + 1))
[ "$samples" = 20 ] && held=$((held + 1))

printf '# %d of %d cases hold\n' "$held" "$total" >>"$out/summary.tsv"
cp -r "$work/int" "$out/interrupted-run" 2>/dev/null
gpu_state after
cat "$out/summary.tsv"
