#!/usr/bin/env bash
# A one-host Slurm cluster for the tests (docs/slurm.md, "The test cluster"): munged, slurmctld
# and slurmd from Debian 12's packages, configured and kept in one folder, CPU only, no GRES.
#
#   scripts/slurm-cluster.sh start    installs what is missing, starts the three daemons and waits
#                                     until the node takes jobs; a running cluster is left as it is
#   scripts/slurm-cluster.sh stop     cancels the cluster's jobs, stops the daemons this script
#                                     started (by the pids in their pid files), keeps the logs
#   scripts/slurm-cluster.sh status   says whether it runs; exit code 0 when it does
#
# Clients (sbatch, squeue, scancel, and orchestrate through them) find it through
# SLURM_CONF=$ISOBENCH_SLURM_DIR/slurm.conf (default /tmp/isobench-slurm). Nothing under /etc is
# changed and no system service is used: CI has no systemd, so the daemons are started by hand,
# as root (through sudo when not root). One such cluster can run on a machine at a time: it
# listens on Slurm's own ports, 6817 and 6818.
set -euo pipefail

dir=${ISOBENCH_SLURM_DIR:-/tmp/isobench-slurm}
export SLURM_CONF=$dir/slurm.conf
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

say() { echo "slurm-cluster: $*" >&2; }

# The last lines of every daemon's log: what a failure report needs.
show_logs() {
  for log in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [ -f "$log" ] || continue
    echo "----- last lines of $log" >&2
    $SUDO tail -n 25 "$log" >&2 || true
  done
}

fail() {
  say "$*"
  show_logs
  exit 1
}

install_packages() {
  local missing=()
  for p in munge slurmctld slurmd slurm-client; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  say "installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The pid in a daemon's pid file, when that process is alive (a zombie is not: a container's
# init may be slow to reap a daemon that died).
live_pid() {
  local file=$dir/$1.pid pid state
  [ -f "$file" ] || return 1
  pid=$(cat "$file" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  state=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
}

node_state() { sinfo --noheader --format=%T 2>/dev/null | head -n 1; }

# All three daemons alive and answering: the controller to ping, slurmd to a status query (the
# controller reports a dead slurmd only after SlurmdTimeout), and the node taking jobs.
running() {
  live_pid munged >/dev/null && live_pid slurmctld >/dev/null && live_pid slurmd >/dev/null &&
    scontrol ping 2>/dev/null | grep -q UP && scontrol show slurmd >/dev/null 2>&1 &&
    [[ $(node_state) =~ ^(idle|mixed|allocated) ]]
}

# Stops daemons by the pids in their pid files, all at once (each takes about 2 s to shut down):
# SIGTERM, then SIGKILL for any still there after 10 s.
stop_daemons() {
  local name pid pids=()
  for name in "$@"; do
    if pid=$(live_pid "$name"); then
      $SUDO kill -TERM "$pid" 2>/dev/null || true
      pids+=("$name:$pid")
    fi
  done
  for _ in $(seq 100); do
    local alive=()
    for entry in "${pids[@]}"; do $SUDO kill -0 "${entry#*:}" 2>/dev/null && alive+=("$entry"); done
    ((${#alive[@]})) || return 0
    pids=("${alive[@]}")
    sleep 0.1
  done
  for entry in "${pids[@]}"; do
    say "${entry%%:*} (pid ${entry#*:}) did not stop in 10 s: SIGKILL"
    $SUDO kill -KILL "${entry#*:}" 2>/dev/null || true
  done
}

write_config() {
  local host node
  host=$(hostname -s)
  # slurmd -C reports this machine's CPUs, sockets, cores and memory as slurmd will see them.
  node=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh: a one-host test cluster (docs/slurm.md).
ClusterName=isobench-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: a CI container may not let slurmd use them. Job processes are tracked by their
# parentage, and scancel still reaches the orchestrator and its workers.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# A cancelled task gets SIGTERM, then SIGKILL 5 s later (Slurm's default is 30 s).
KillWait=5
# Finished jobs leave squeue's answer after 30 s (default 300): tests look at live jobs only.
MinJobAge=30
SlurmctldTimeout=30
SlurmdTimeout=30
$node State=UNKNOWN NodeAddr=127.0.0.1
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

start() {
  install_packages
  if running; then
    say "running already ($dir)"
    return 0
  fi
  # Whatever is left of an earlier start (a daemon that died, a stale pid file) goes first.
  stop_daemons slurmd slurmctld
  stop_daemons munged
  $SUDO rm -rf "$dir"
  mkdir -p "$dir/ctld" "$dir/spool"
  chmod 0755 "$dir"
  write_config
  # munged checks that its key and folders are private to the user it runs as.
  $SUDO dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
  $SUDO chmod 0600 "$dir/munge.key"
  $SUDO munged --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
    fail "munged did not start"
  for _ in $(seq 50); do [ -S "$dir/munge.socket" ] && break; sleep 0.1; done
  [ -S "$dir/munge.socket" ] || fail "munged made no socket in 5 s"
  $SUDO env SLURM_CONF="$SLURM_CONF" slurmctld || fail "slurmctld did not start"
  $SUDO env SLURM_CONF="$SLURM_CONF" slurmd -N "$(hostname -s)" || fail "slurmd did not start"
  for _ in $(seq 300); do
    if running; then
      say "running: node $(hostname -s) is $(node_state) ($dir; export SLURM_CONF=$SLURM_CONF)"
      return 0
    fi
    sleep 0.1
  done
  fail "the node is not taking jobs after 30 s (state: '$(node_state)')"
}

stop() {
  if live_pid slurmctld >/dev/null; then
    # Jobs first, so that no task's processes outlive the daemons.
    scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 150); do
      [ -z "$(squeue --noheader --format=%i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  # The Slurm daemons together, munged (which they authenticate through) after them.
  stop_daemons slurmd slurmctld
  stop_daemons munged
  say "stopped (logs kept in $dir)"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status)
    if running; then say "running: node $(hostname -s) is $(node_state) ($dir)"; else say "not running"; exit 1; fi
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
