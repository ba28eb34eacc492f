#!/usr/bin/env python3
"""The card's peak memory in use during each run of a bench script, from nvidia-smi's log
(`nvidia-smi --query-gpu=timestamp,memory.used --format=csv -lms 200 > memory.csv`, started
beside the script) and the script's commands.log (`# NAME: exit N, MS ms, ended ISO-TIME` lines,
bench/gpu/preamble.sh): the largest sample taken between a run's start (its end less its wall
time) and its end, with the number of samples in that window. Both clocks are the machine's, in
UTC. Usage: memory_peaks.py MEMORY_CSV COMMANDS_LOG
"""
import datetime as dt
import re
import sys


def memory_samples(path):
    samples = []
    with open(path) as f:
        for line in f:
            m = re.match(r"(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+), (\d+) MiB", line)
            if m:
                samples.append((dt.datetime.strptime(m[1], "%Y/%m/%d %H:%M:%S.%f"), int(m[2])))
    return samples


def runs(path):
    with open(path) as f:
        for line in f:
            m = re.match(r"# (\S+): exit \d+, (\d+) ms, ended (\S+)Z$", line.strip())
            if m:
                end = dt.datetime.strptime(m[3], "%Y-%m-%dT%H:%M:%S.%f")
                yield m[1], end - dt.timedelta(milliseconds=int(m[2])), end


def main(memory_csv, commands_log):
    samples = memory_samples(memory_csv)
    print("| run | peak memory used, MiB | samples |")
    print("| --- | --- | --- |")
    for name, begin, end in runs(commands_log):
        inside = [mib for t, mib in samples if begin <= t <= end]
        if len(inside) < 2:
            continue  # a step too short for the log (phases, timelines)
        print(f"| {name} | {max(inside)} | {len(inside)} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
