#!/usr/bin/env python3
"""How long CUDA workers live on after their orchestrator is killed with SIGKILL (a run that dies
must leave no worker behind; the CPU side is tests/integration/test_killed_orchestrator.cpp). For
each case it starts a real run of a small CUDA sweep, waits until samples are journaled and the
case's workers are alive, kills orchestrate with SIGKILL and watches /proc in a loop (a pass takes a
few ms): the time from the kill until each process below it has ended (or is a zombie), and what
nvidia-smi lists as compute processes afterwards. It is the processes' subreaper
(PR_SET_CHILD_SUBREAPER), so orphans stay visible.

Cases: per-sample with two workers pre-started (waiting for release, with their CUDA contexts),
per-batch in the middle of a round of samples that last seconds, and SIGTERM sent to one measuring
worker of a live run (one was once seen to ignore SIGTERM for seconds): the time until it is gone.

Usage, from the repository root on the GPU machine, after `scripts/build.sh device`:
    python3 bench/gpu/killed_orchestrator_check.py OUT_DIR [BIN_DIR]   (BIN_DIR: build-device/bin)
Writes OUT_DIR/killed_orchestrator.json (also printed) and one run directory per case; exits 1
when a process outlived its orchestrator by more than 10 s or a GPU process is left. About 40 s.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

BOUND_S = 10.0
SWEEP = """name: killed
settings: {samples: 400, warmup: 2, inner: 50, seed: 1}
benchmarks:
  - kernel: cast
    axes: {conversion: fp32_bf16, n: 16777216}
  - kernel: gemm
    axes: {m: 4096, n: 4096, k: 4096, dtype: bf16}
"""


def processes():
    """{pid: (ppid, state, cmdline)} of every process visible in /proc."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(name)] = (int(fields[1]), fields[0], cmd)
    return out


def live_below(root):
    procs = processes()
    below, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state, cmd) in procs.items():
            if ppid == parent:
                frontier.append(pid)
                if state not in "ZX":
                    below[pid] = cmd
    return below


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def journaled(run):
    try:
        with open(f"{run}/samples.jsonl") as f:
            return sum('"type":"sample"' in line for line in f)
    except OSError:
        return 0


def gpu_processes():
    r = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv,noheader"],
                       capture_output=True, text=True)
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def start(bin_dir, out, name, args):
    run = f"{out}/{name}"
    sweep = f"{out}/killed.yaml"
    with open(sweep, "w") as f:
        f.write(SWEEP)
    err = open(f"{out}/{name}.err", "w")
    orch = subprocess.Popen([f"{bin_dir}/orchestrate", "--quiet", "--format", "none", "--out", run, *args, sweep],
                            stdout=subprocess.DEVNULL, stderr=err)
    return orch, run


def wait_until(orch, run, min_samples, min_workers, limit_s=120):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        workers = {p: c for p, c in live_below(orch.pid).items() if " --segment isobench-" in c}
        if journaled(run) >= min_samples and len(workers) >= min_workers:
            return workers
        if orch.poll() is not None:
            break
        time.sleep(0.005)
    return None


def watch_until_gone(pids, t_kill):
    """Seconds from t_kill until each pid ended (None: alive after BOUND_S)."""
    ended = {}
    while time.monotonic() - t_kill < BOUND_S and len(ended) < len(pids):
        reap()
        procs = processes()
        now = time.monotonic()
        for pid in pids:
            if pid not in ended and (pid not in procs or procs[pid][1] in "ZX"):
                ended[pid] = now - t_kill
        time.sleep(0.001)
    return {pid: ended.get(pid) for pid in pids}


def kill_orchestrator_case(bin_dir, out, name, args, min_samples, min_workers):
    orch, run = start(bin_dir, out, name, args)
    workers = wait_until(orch, run, min_samples, min_workers)
    if workers is None:
        orch.kill()
        return {"case": name, "error": "the run never reached the state to kill it in", "samples": journaled(run)}
    below = live_below(orch.pid)
    t_kill = time.monotonic()
    os.kill(orch.pid, signal.SIGKILL)
    orch.wait()
    lived = watch_until_gone(list(below), t_kill)
    left = live_below(os.getpid())
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    reap()
    time.sleep(1.0)  # the driver may list a context a moment after its process is gone
    return {"case": name, "args": args, "samples_at_kill": journaled(run),
            "alive_at_kill": {str(p): c for p, c in below.items()},
            "lived_on_s": {str(p): s for p, s in lived.items()},
            "max_lived_on_s": max((s for s in lived.values() if s is not None), default=0.0),
            "outlived_bound": [str(p) for p, s in lived.items() if s is None],
            "gpu_processes_after": gpu_processes()}


def sigterm_case(bin_dir, out):
    name = "sigterm-worker"
    orch, run = start(bin_dir, out, name, ["--isolation", "process", "--per", "batch", "--prestart", "0"])
    workers = wait_until(orch, run, 3, 1)
    result = {"case": name}
    if workers is None:
        result["error"] = "the run never reached the state to signal a worker in"
    else:
        pid = next(iter(workers))
        t0 = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        while time.monotonic() - t0 < BOUND_S:
            procs = processes()
            if pid not in procs or procs[pid][1] in "ZX":
                break
            time.sleep(0.001)
        result["worker"] = pid
        result["gone_after_s"] = time.monotonic() - t0 if time.monotonic() - t0 < BOUND_S else None
    orch.send_signal(signal.SIGINT)  # the run stops cleanly (interrupted)
    try:
        orch.wait(timeout=60)
    except subprocess.TimeoutExpired:
        orch.kill()
        orch.wait()
    result["orchestrate_exit"] = orch.returncode
    reap()
    return result


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = os.path.abspath(sys.argv[1])
    bin_dir = sys.argv[2] if len(sys.argv) > 2 else "build-device/bin"
    os.makedirs(out, exist_ok=True)
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_CHILD_SUBREAPER = 36
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("cannot become a child subreaper", file=sys.stderr)
        sys.exit(2)
    results = {"gpu_processes_before": gpu_processes(), "cases": []}
    results["cases"].append(kill_orchestrator_case(
        bin_dir, out, "per-sample-prestart", ["--isolation", "process", "--per", "sample", "--prestart", "2"], 3, 3))
    # 20000 launches per sample: about 3 s of GEMM, so the worker is killed seconds before its
    # round would end.
    results["cases"].append(kill_orchestrator_case(
        bin_dir, out, "per-batch", ["--isolation", "process", "--per", "batch", "--prestart", "0", "--inner", "20000"],
        1, 1))
    results["cases"].append(sigterm_case(bin_dir, out))
    failed = any(c.get("error") or c.get("outlived_bound") or c.get("gpu_processes_after")
                 or ("gone_after_s" in c and c["gone_after_s"] is None) for c in results["cases"])
    results["ok"] = not failed
    text = json.dumps(results, indent=1)
    with open(f"{out}/killed_orchestrator.json", "w") as f:
        f.write(text + "\n")
    print(text)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
