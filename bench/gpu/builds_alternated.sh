#!/usr/bin/env bash
# Two device builds' time to a verdict, alternated round by round on one card (issue 44's "within
# 20% of today's"): bench/gpu/python_ab_speed.sh's `repeat` part (until-slower, pytest-until-slower,
# until-same, pytest-until-same) once per build per round, the builds' order swapped every round so
# that a drift of the machine over the call falls on both alike.
#
#   bench/gpu/builds_alternated.sh OUT NAME_A BIN_A NAME_B BIN_B [ROUNDS]     (ROUNDS default 3)
#
# Each build first runs the `cold` part (its own empty Triton cache, under OUT/NAME/triton-cache),
# so that every timed round finds its kernels compiled. Round R's runs are moved to
# OUT/NAME/runs/KIND-rR; OUT/NAME/commands.log has every command's wall time ("# KIND-1: exit E,
# N ms" once per round, in round order) and OUT/order.txt the order the builds ran in.
# ISOBENCH_DEADLINE_S bounds the whole call (default 560 s); a round that would start past it is
# skipped and said.
out=${1:?usage: builds_alternated.sh OUT NAME_A BIN_A NAME_B BIN_B [ROUNDS]}
name_a=${2:?}; bin_a=${3:?}; name_b=${4:?}; bin_b=${5:?}; rounds=${6:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
end=$(( $(date +%s) + ${ISOBENCH_DEADLINE_S:-560} ))
left() { echo $(( end - $(date +%s) )); }
run_part() {  # NAME BIN PART
  local name=$1 bin=$2 part=$3
  echo "$(date -u +%T) $name $part" >>"$out/order.txt"
  ISOBENCH_BIN=$(cd "$bin" && pwd) ISOBENCH_REPEATS=1 ISOBENCH_DEADLINE_S=$(left) \
    "$here/python_ab_speed.sh" "$out/$name" "$part" >>"$out/$name.$part.log" 2>&1
}
run_part "$name_a" "$bin_a" cold
run_part "$name_b" "$bin_b" cold
for r in $(seq 1 "$rounds"); do
  if (( $(left) < 120 )); then echo "round $r skipped: $(left) s left" >>"$out/order.txt"; break; fi
  order=("$name_a:$bin_a" "$name_b:$bin_b")
  (( r % 2 == 0 )) && order=("$name_b:$bin_b" "$name_a:$bin_a")
  for entry in "${order[@]}"; do
    name=${entry%%:*}; bin=${entry#*:}
    run_part "$name" "$bin" repeat
    for k in until-slower pytest-until-slower until-same pytest-until-same; do
      [ -d "$out/$name/runs/$k-1" ] && mv "$out/$name/runs/$k-1" "$out/$name/runs/$k-r$r"
    done
  done
done
cat "$out/order.txt"
for name in "$name_a" "$name_b"; do echo "== $name"; grep -E "^# " "$out/$name/commands.log"; done
