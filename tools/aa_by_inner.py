#!/usr/bin/env python3
"""A/A comparisons across runs of one calibration mode, split by whether the two runs pinned the
same inner count for the instance: does a differing inner count explain the false positives?

    python3 tools/aa_by_inner.py CALIBRATION_DIR/MODE [--alpha 0.001]

CALIBRATION_DIR/MODE is a mode folder of an unpacked calibration (run-0, run-1, ... with plan.json
and samples.jsonl). The test is tools/results' own Brunner-Munzel (t approximation; exact at
complete separation), the one its figures re-derive with, not the tool's permutation test.
"""
import argparse
import itertools
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from results.stats import brunner_munzel  # noqa: E402


def samples(run, index):
    out = []
    with open(run / "samples.jsonl") as f:
        for line in f:
            row = json.loads(line)
            if row.get("type", "sample") == "sample" and row["instance_index"] == index:
                out.append(row["value"])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode_dir", type=pathlib.Path)
    parser.add_argument("--alpha", type=float, default=0.001)
    a = parser.parse_args()
    runs = sorted((p for p in a.mode_dir.glob("run-*") if p.is_dir()), key=lambda p: int(p.name[4:]))
    if len(runs) < 2:
        sys.exit(f"aa_by_inner: {a.mode_dir}: fewer than two run-N folders")
    plans = [json.loads((r / "plan.json").read_text())["instances"] for r in runs]
    print(f"| instance | inner (min-max) | same inner: flagged / pairs | different inner: flagged / pairs |")
    print("| --- | --- | --- | --- |")
    total = {True: [0, 0], False: [0, 0]}
    for index, first in enumerate(plans[0]):
        inner = [p[index]["inner"] for p in plans]
        values = [samples(r, index) for r in runs]
        cell = {True: [0, 0], False: [0, 0]}
        for x, y in itertools.combinations(range(len(runs)), 2):
            same = inner[x] == inner[y]
            cell[same][0] += brunner_munzel(values[x], values[y]).p < a.alpha
            cell[same][1] += 1
        for k in cell:
            total[k][0] += cell[k][0]
            total[k][1] += cell[k][1]
        print(f"| `{first['id']}` | {min(inner)}-{max(inner)} | {cell[True][0]} / {cell[True][1]} "
              f"| {cell[False][0]} / {cell[False][1]} |")
    print(f"| all | | {total[True][0]} / {total[True][1]} | {total[False][0]} / {total[False][1]} |")
    print(f"\nalpha {a.alpha}, {len(runs)} runs of {a.mode_dir}")


if __name__ == "__main__":
    main()
