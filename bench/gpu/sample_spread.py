#!/usr/bin/env python3
"""How disturbed a run's samples are: per run directory, the share of samples more than 4% above
their instance's (and side's) median, and the median over instances of the median absolute
deviation relative to the median. Used to compare pre-start depths and isolation measures on the
H200 (docs/results/2026-11-29-h200-c). Usage: sample_spread.py RUN_DIR..."""
import json
import statistics
import sys


def spread_of(samples):
    """{samples, above_share, median_relative_mad} of one run's samples (journal records)."""
    groups = {}
    for s in samples:
        groups.setdefault((s["instance"], s["side"]), []).append(s["value"])
    above = total = 0
    mads = []
    for values in groups.values():
        m = statistics.median(values)
        above += sum(1 for x in values if x > 1.04 * m)
        total += len(values)
        mads.append(statistics.median(abs(x - m) for x in values) / m)
    return {"samples": total, "above_share": above / total, "median_relative_mad": statistics.median(mads)}


def main():
    print("| run | samples | share > 4% above median | median relative MAD |")
    print("| --- | --- | --- | --- |")
    for run in sys.argv[1:]:
        with open(f"{run}/samples.jsonl") as journal:
            records = [json.loads(line) for line in journal]
        s = spread_of([r for r in records if r.get("type") == "sample"])
        print(f"| {run.rstrip('/')} | {s['samples']} | {s['above_share'] * 100:.1f}% | "
              f"{s['median_relative_mad'] * 100:.2f}% |")


if __name__ == "__main__":
    main()
