#!/usr/bin/env python3
"""What the zygote saves: a module whose import takes a second, measured 12 times, one fresh
worker per sample (docs/results/python-import-once.md records the output).

    python3 bench/python_import_once.py --bin build/bin [--samples 12] [--import-seconds 1] [--out DIR]

Three ways to take `samples` samples of one instance of a benchmark in that module:
  python:   orchestrate --isolation process --per sample on a `python:` benchmark: the zygote
            imports the module once, each sample is a worker forked from it;
  command:  the same sweep as a `command:` benchmark (docs/command-protocol.md), the only way in
            for Python before the zygote: one fresh interpreter per sample, which imports it;
  imports:  `samples` fresh interpreters that only import the module, one after another: the
            floor of any way that starts an interpreter per sample;
and, for scale, the C++ worker spawned per sample on the built-in cpu_spin of the same length.
For each: wall time of the whole command; for the python: run also the zygote's import time
(python.json) and, from the journals, each worker's life (started to exit seen) and the gap
between one sample's timed region and the next one's. The launch is a 100 us spin, inner 1.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

MODULE = """import os, sys, time, json
time.sleep({seconds})  # stands in for `import torch` (4.6-5.3 s on the H200)


def spin(us, seed, device, stream):
    def launch():
        end = time.perf_counter() + us * 1e-6
        while time.perf_counter() < end:
            pass
    return launch


if __name__ == "__main__":  # the command: benchmark, one interpreter per sample
    us = json.loads(os.environ["ISOBENCH_PARAMS"])["us"]
    t0 = time.perf_counter()
    spin(us, 0, "cpu", None)()
    print(json.dumps({{"isobench": 1, "value": time.perf_counter() - t0}}))
"""


def timed(command, cwd):
    t0 = time.monotonic()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(command), done.returncode, done.stderr.strip()))
    return wall


def worker_lives(run_dir):
    """Per worker: fork (spawned_ns) to the exit the orchestrator saw; and the gaps between one
    sample's timed region and the next one's."""
    spawned, exited, samples = {}, {}, []
    for line in open(os.path.join(run_dir, "samples.jsonl")):
        record = json.loads(line)
        kind = record.get("type", "sample")
        if kind == "worker":
            spawned[record["serial"]] = record["spawned_ns"]
        elif kind == "worker_exit":
            exited[record["serial"]] = record["exited_ns"]
        elif kind == "sample":
            samples.append((record["begin_ns"], record["end_ns"]))
    lives = [(exited[s] - spawned[s]) / 1e6 for s in spawned if s in exited]
    samples.sort()
    gaps = [(b[0] - a[1]) / 1e6 for a, b in zip(samples, samples[1:])]
    return lives, gaps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the build's bin/ (orchestrate, isobench-worker)")
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--import-seconds", type=float, default=1.0)
    ap.add_argument("--out", help="keep the runs here (default: a temporary folder)")
    a = ap.parse_args()
    orchestrate = os.path.abspath(os.path.join(a.bin, "orchestrate"))
    work = a.out or tempfile.mkdtemp(prefix="isobench-import-once-")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "slow_import.py"), "w") as f:
        f.write(MODULE.format(seconds=a.import_seconds))
    settings = "settings: {samples: %d, inner: 1, warmup: 0}\n" % a.samples
    with open(os.path.join(work, "python.yaml"), "w") as f:
        f.write(settings + "benchmarks:\n  - python: slow_import.py\n    function: spin\n    device: cpu\n"
                "    axes: {us: 100}\n")
    with open(os.path.join(work, "kernel.yaml"), "w") as f:
        f.write(settings + "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: 100}\n")
    with open(os.path.join(work, "command.yaml"), "w") as f:
        f.write(settings + "benchmarks:\n  - command: [%s, slow_import.py]\n    name: spin\n    axes: {us: 100}\n"
                % sys.executable)
    common = ["--device", "cpu", "--quiet", "--format", "none", "--isolation", "process", "--per", "sample"]
    rows = {}
    rows["python"] = timed([orchestrate] + common + ["--python", sys.executable, "--out", "run-python", "python.yaml"],
                           work)
    rows["command"] = timed([orchestrate] + common + ["--out", "run-command", "command.yaml"], work)
    rows["kernel"] = timed([orchestrate] + common + ["--out", "run-kernel", "kernel.yaml"], work)
    t0 = time.monotonic()
    for _ in range(a.samples):
        timed([sys.executable, "-c", "import slow_import"], work)
    rows["imports"] = time.monotonic() - t0

    zygote = json.load(open(os.path.join(work, "run-python", "python.json")))["sides"][0]["zygote"]
    result = {"samples": a.samples, "import_seconds": a.import_seconds, "python": sys.version.split()[0],
              "wall_s": rows, "zygote_import_s": zygote["imports"][0]["seconds"]}
    for run in ("python", "kernel"):
        lives, gaps = worker_lives(os.path.join(work, "run-" + run))
        result[run + "_worker_life_ms"] = {"median": statistics.median(lives), "min": min(lives), "max": max(lives)}
        result[run + "_gap_between_samples_ms"] = {"median": statistics.median(gaps), "max": max(gaps)}
    print("%d samples, one fresh worker each, of a benchmark whose module takes %.1f s to import (Python %s):"
          % (a.samples, a.import_seconds, result["python"]))
    print("%-62s %8s %12s" % ("", "wall s", "per sample s"))
    labels = {"python": "python: benchmark (zygote imports once, a fork per sample)",
              "command": "command: benchmark (a fresh interpreter per sample)",
              "imports": "%d fresh interpreters that only import the module" % a.samples,
              "kernel": "kernel: cpu_spin (the C++ worker, spawned per sample)"}
    for key in ("python", "command", "imports", "kernel"):
        print("%-62s %8.3f %12.3f" % (labels[key], rows[key], rows[key] / a.samples))
    print("python: run / %d imports: %.3f; the zygote's import: %.3f s" % (a.samples, rows["python"] / rows["imports"],
                                                                         result["zygote_import_s"]))
    for run, what in (("python", "forked Python worker"), ("kernel", "spawned C++ worker")):
        life, gap = result[run + "_worker_life_ms"], result[run + "_gap_between_samples_ms"]
        print("%s, started to exit: median %.2f ms (min %.2f, max %.2f); timed region to the next: median %.2f ms"
              % (what, life["median"], life["min"], life["max"], gap["median"]))
    with open(os.path.join(work, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("runs and result.json in", work)


if __name__ == "__main__":
    main()
