# Sourced by the CPU bench scripts (bench/setup_batches.sh, bench/zygote_seeds.sh): step NAME
# COMMAND... runs the command with its output in $out/NAME.out and .err and writes it to $log with
# its exit code, wall time and the load average at its end, as bench/gpu/preamble.sh's step does.
step() {
  local name=$1; shift
  local t0 rc
  t0=$(date +%s%N)
  echo "\$ $*" >>"$log"
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  rc=$?
  echo "# $name: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms, ended $(date -u +%FT%T.%3NZ), load $(cut -d' ' -f1 /proc/loadavg)" >>"$log"
}
