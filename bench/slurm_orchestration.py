#!/usr/bin/env python3
"""What sharding a sweep over Slurm costs isobench itself: submitting a sweep of 10,000
instances as a job array of 100 shards, and merging the shards back into one run, each timed
(wall clock) with its peak memory (the process's max RSS from wait4). The measuring in between
runs on the cluster and is timed too, but it is Slurm and the kernels, not isobench's
orchestration. Not a test; docs/results/slurm-orchestration.md records its output.

Needs a running cluster (scripts/slurm-cluster.sh start; SLURM_CONF pointing at it) and a
Release build:

    SLURM_CONF=/tmp/isobench-slurm/slurm.conf bench/slurm_orchestration.py build [instances] [shards]

The instances are cpu_spin of 1 to 2 microseconds (one per value), 2 samples, inner 1, no
warm-up, so that each task's measuring is short against its orchestration.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time


def timed(argv):
    """Runs argv to its end; returns its exit code, stderr and {"wall_s", "cpu_s" (user + system:
    on a machine shared with other work, the wall time includes waiting for a core), "max_rss_mib"}."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    cost = {"wall_s": round(time.monotonic() - start, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "max_rss_mib": round(usage.ru_maxrss / 1024, 1)}
    return os.waitstatus_to_exitcode(status), err, cost


def queued(job):
    out = subprocess.run(["squeue", "--me", "--noheader", "--array", "--format=%F"],
                         capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.split() if line == job)


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    instances = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    shards = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    orchestrate = os.path.abspath(os.path.join(build, "bin", "orchestrate"))
    load_at_start = os.getloadavg()[0]
    work = tempfile.mkdtemp(prefix="isobench-slurm-bench-")
    try:
        values = ", ".join(f"{1 + i / instances:.6f}" for i in range(instances))
        sweep = os.path.join(work, "sweep.yaml")
        with open(sweep, "w") as f:
            f.write("name: slurm-bench\nsettings: {samples: 2, warmup: 0, inner: 1, seed: 1, "
                    "isolation: process, per: batch}\nbenchmarks:\n  - kernel: cpu_spin\n"
                    f"    axes: {{microseconds: [{values}]}}\n")
        run = os.path.join(work, "run")
        code, err, submit = timed(
            [orchestrate, "--device", "cpu", "--quiet", "--executor", "slurm", "--shards", str(shards),
             "--no-wait", "--sbatch-option=--cpus-per-task=1", "--out", run, sweep])
        if code != 0:
            sys.exit(f"submission failed ({code}): {err}")
        with open(os.path.join(run, "slurm.json")) as f:
            job = json.load(f)["submissions"][0]["job_id"]
        start = time.monotonic()
        while queued(job):
            time.sleep(0.2)
        tasks_s = time.monotonic() - start
        merges = []
        for _ in range(3):  # a merge is a pure function of the shards: the same each time
            code, err, merge = timed([orchestrate, "slurm", "merge", "--format", "none", run])
            if code != 0:
                sys.exit(f"merge failed ({code}): {err}")
            merges.append(merge)
        with open(os.path.join(run, "run.json")) as f:
            run_info = json.load(f)
        slurm_version = subprocess.run(["sinfo", "--version"], capture_output=True, text=True).stdout.strip()
        print(json.dumps({
            "instances": instances, "shards": shards, "samples": run_info["samples_recorded"],
            "samples_expected": run_info["samples_expected"], "status": run_info["status"],
            "submit": submit, "tasks_wall_s": round(tasks_s, 1), "merges": merges,
            "merged_journal_bytes": os.path.getsize(os.path.join(run, "samples.jsonl")),
            "run_directory_bytes": folder_bytes(run),
            "load_average_1min": [load_at_start, os.getloadavg()[0]], "cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(), "slurm": slurm_version,
        }, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
