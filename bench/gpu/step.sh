# Sourced by the H200 scripts in bench/gpu/. `step NAME COMMAND...` runs COMMAND with its stdout
# and stderr in "$out/NAME.out" and "$out/NAME.err", and appends the command line, exit code,
# duration and end time to "$log"; it returns the command's exit code.
step() {
  local name=$1; shift
  local t0
  t0=$(date +%s%N)
  echo "\$ $*" >>"$log"
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  echo "# $name: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms, ended $(date -u +%FT%TZ)" >>"$log"
  return $rc
}
