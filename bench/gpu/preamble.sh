# Sourced by every H200 script in bench/gpu/, run from the repository root on the device machine
# with the device build carried there (scripts/build.sh device on the development machine):
#
#   out=${1:?usage: ...}; part=${2:-...}        # the script's own arguments (part is optional)
#   source "$(dirname "$0")/preamble.sh"
#
# It creates $out, puts the CUDA toolkit's libraries on LD_LIBRARY_PATH, sets `bin` (the device
# build's bin/, or $ISOBENCH_BIN for another build) and `log` ($out/commands.log, or
# $out/commands-PART.log when the script was given a part, so parts run into one folder keep
# their own logs), defines `step`, `bounded`, `timed`, `torch_venv` and `gpu_state`, and records
# the GPU's state before anything runs.
# shellcheck shell=bash disable=SC2154,SC2034  # $out comes from the sourcing script, $bin is for it
set -u
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
bin=${ISOBENCH_BIN:-build-device/bin}
log="$out/commands${part:+-$part}.log"

# `step NAME COMMAND...` runs COMMAND with its stdout and stderr in "$out/NAME.out" and
# "$out/NAME.err", and appends the command line, exit code, duration and end time to "$log"; it
# returns the command's exit code.
step() {
  local name=$1; shift
  local t0
  t0=$(date +%s%N)
  echo "\$ $*" >>"$log"
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  echo "# $name: exit $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms, ended $(date -u +%FT%T.%3NZ)" >>"$log"
  return $rc
}

# `bounded NAME CAP COMMAND...`: step NAME under timeout, at most CAP seconds and never past
# $deadline (epoch seconds, set by the sourcing script; SIGTERM, as an interrupted run: orchestrate
# stops its workers and zygotes and exits 130). With less than 10 s left the step is skipped and
# logged as such.
bounded() {
  local name=$1 cap=$2; shift 2
  local left=$(( deadline - $(date +%s) ))
  (( left < cap )) && cap=$left
  if (( cap < 10 )); then
    echo "# $name: skipped, ${left} s left before the deadline" >>"$log"
    return 124
  fi
  step "$name" timeout --kill-after=5 "$cap" "$@"
}

# `timed NAME COMMAND...` runs COMMAND with its output appended to "$out/NAME.log" and one line
# "NAME: S s (exit E)" appended to "$times" (set by the sourcing script).
timed() {
  local name=$1; shift
  local t0 rc
  t0=$(date +%s%N)
  "$@" >>"$out/$name.log" 2>&1
  rc=$?
  printf '%s: %.3f s (exit %d)\n' "$name" "$(( $(date +%s%N) - t0 ))e-9" "$rc" >>"$times"
}

# `torch_venv VENV` makes a venv at VENV that sees the machine's torch and triton
# (--system-site-packages), as steps `venv` (or `venv-without-pip`), and sets `pip` (an array) to
# the command that installs into it.
torch_venv() {
  local venv=$1 base_site venv_site
  # Without ensurepip (no python3-venv), a venv without pip, filled by the machine's pip (--python).
  step venv python3 -m venv --system-site-packages "$venv" ||
    step venv-without-pip python3 -m venv --without-pip --system-site-packages "$venv" || return 1
  # The machine's torch may live in a venv of its own (python3 on PATH), whose packages a venv made
  # from it does not see: a .pth file puts them on the new venv's path.
  base_site=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  venv_site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  [ "$base_site" != "$venv_site" ] && echo "$base_site" >"$venv_site/_isobench_torch_env.pth"
  pip=("$venv/bin/python" -m pip)
  "$venv/bin/python" -m pip --version >/dev/null 2>&1 || pip=(python3 -m pip --python "$venv/bin/python")
}

# `gpu_state WHEN` keeps nvidia-smi's view of the GPUs (processes, memory, clocks, power) in
# "$out/nvidia-smi-WHEN[-PART].txt" and its clock, power and performance detail in
# "$out/nvidia-smi-q-WHEN[-PART].txt".
gpu_state() {
  nvidia-smi >"$out/nvidia-smi-$1${part:+-$part}.txt" 2>&1
  nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$out/nvidia-smi-q-$1${part:+-$part}.txt" 2>&1
}

gpu_state before
