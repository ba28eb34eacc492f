#!/usr/bin/env python3
"""The card's peak memory in use during each run of a bench script, from nvidia-smi's log
(`nvidia-smi --query-gpu=timestamp,memory.used --format=csv -lms 200 > memory.csv`, started
beside the script) and the script's commands.log (read by bench/run_timeline.py's
read_commands): the largest sample taken between a run's start (its end less its wall time) and
its end, with the number of samples in that window. Both clocks are the machine's, in UTC.
Usage: memory_peaks.py MEMORY_CSV COMMANDS_LOG
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from run_timeline import read_commands, utc_seconds  # noqa: E402


def memory_samples(path):
    """[(UTC seconds, MiB in use)] of an nvidia-smi log ("2026/12/07 04:59:28.238, 0 MiB")."""
    samples = []
    with open(path) as f:
        for line in f:
            m = re.match(r"(\d{4})/(\d\d)/(\d\d) (\d\d:\d\d:\d\d\.\d+), (\d+) MiB", line)
            if m:
                samples.append((utc_seconds(f"{m[1]}-{m[2]}-{m[3]}T{m[4]}"), int(m[5])))
    return samples


def main(memory_csv, commands_log):
    samples = memory_samples(memory_csv)
    print("| run | peak memory used, MiB | samples |")
    print("| --- | --- | --- |")
    for name, (wall_s, end, _) in read_commands(commands_log).items():
        inside = [mib for t, mib in samples if end - wall_s <= t <= end]
        if len(inside) < 2:
            continue  # a step too short for the log (phases, timelines)
        print(f"| {name} | {max(inside)} | {len(inside)} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
