#!/usr/bin/env python3
"""Where the wall time of each `orchestrate ab` of bench/gpu/python_ab_speed.sh goes, before and in
its run (the goal: the pytest route within 1.2x of the python: route):

    python3 bench/gpu/start_times.py OUT        (OUT: the folder python_ab_speed.sh wrote)

One row per run directory under OUT/runs that commands.log timed: the command's wall time; the
run (log.txt, run-start to run-end, the SASS step at its end included); what is outside it (the
wall time less the run: the start before it, up to the zygotes' imports and the plan, and the
exit after it); the SASS step; the samples and looks; each side's zygote import (python.json;
"early" where it collected a pytest file before the plan). Then each pair of back-to-back rounds
(until-KIND-N against pytest-until-KIND-N, and fixed-KIND-N against pytest-fixed-KIND-N): the ratio of the wall times and of what is outside
the run; and for each route and kind, its runs' range of wall times and how many met item 2's goal
(GOALS). The bytecode part's rounds (until-KIND-off-N, until-KIND-kept-N: the zygotes' bytecode not
kept and kept) get each variant's wall times against the goal and its zygotes' slower import.
Times from the files, nothing measured here.
"""

import datetime
import json
import os
import re
import statistics
import sys


# Item 2's goals in seconds of wall time: --until-verdict SLOWER (a/c) and SAME (a/b), and the
# fixed n (--fixed-n, the sweep's samples) either way.
GOALS = {("until", "slower"): 15.0, ("until", "same"): 12.0, ("fixed", "slower"): 25.0, ("fixed", "same"): 25.0}


def stamp(line):
    return datetime.datetime.fromisoformat(line[:23] + "+00:00")


def run_row(out, name, wall_ms):
    folder = os.path.join(out, "runs", name)
    try:
        with open(os.path.join(folder, "log.txt")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    start = next((stamp(l) for l in lines if "[run-start]" in l), None)
    end = next((stamp(l) for l in lines if "[run-end]" in l), None)
    if start is None or end is None:
        return None
    sass = next((float(m.group(1)) for l in lines if (m := re.search(r"\[sass\] .* in ([\d.]+) s", l))), 0.0)
    looks = sum("[look]" in l for l in lines)
    with open(os.path.join(folder, "samples.jsonl")) as f:
        samples = sum(1 for line in f if line.strip())
    imports, slowest_import = [], 0.0
    try:
        with open(os.path.join(folder, "python.json")) as f:
            for side in json.load(f)["sides"]:
                first = side["zygote"]["imports"][0]
                imports.append("%.2f%s" % (first["seconds"], " early" if first.get("early") else ""))
                slowest_import = max(slowest_import, first["seconds"])
    except (OSError, KeyError, IndexError, ValueError):
        pass
    run_s = (end - start).total_seconds()
    return {"name": name, "wall": wall_ms / 1000, "run": run_s, "outside": wall_ms / 1000 - run_s, "sass": sass,
            "samples": samples, "looks": looks, "imports": ", ".join(imports), "slowest_import": slowest_import}


def pairs(rows, mode, kind):
    """Each back-to-back pair MODE-KIND-N against pytest-MODE-KIND-N: the ratio of the wall times
    and of what is outside the run; each route's range of wall times against the goal. The lines
    of the fixed-n pairs start with "fixed " (those of --until-verdict keep their old form)."""
    tag = "" if mode == "until" else "fixed "
    walls_ratio, outside = [], {"python": [], "pytest": []}
    for name in rows:
        m = re.fullmatch(r"%s-%s-(\d+)" % (mode, kind), name)
        other = "pytest-" + name
        if not m or other not in rows:
            continue
        a, b = rows[name], rows[other]
        walls_ratio.append(b["wall"] / a["wall"])
        outside["python"].append(a["outside"])
        outside["pytest"].append(b["outside"])
        print("pair %s%s-%s: pytest/python wall %.3fx; outside the run %.2f s against %.2f s; samples %d against %d"
              % (tag, kind, m.group(1), b["wall"] / a["wall"], b["outside"], a["outside"], b["samples"], a["samples"]))
    for route, prefix in (("python", ""), ("pytest", "pytest-")):
        times = [r["wall"] for name, r in rows.items() if re.fullmatch(r"%s%s-%s-\d+" % (prefix, mode, kind), name)]
        if times:
            goal = GOALS[(mode, kind)]
            print("%s route %s-%s: %d runs, %.2f-%.2f s, within %g s: %d"
                  % (route, mode, kind, len(times), min(times), max(times), goal, sum(t <= goal for t in times)))
    if walls_ratio:
        print("%s%s pairs: %d, ratio median %.3fx, %d over 1.2x; outside the run, median: python: %.2f s, pytest %.2f s"
              % (tag, kind, len(walls_ratio), statistics.median(walls_ratio), sum(r > 1.2 for r in walls_ratio),
                 statistics.median(outside["python"]), statistics.median(outside["pytest"])))


def bytecode_rounds(rows, kind):
    """The python: route's until-KIND-off-N and until-KIND-kept-N runs: wall times against the
    goal, and the slower of the two zygotes' imports, for each variant."""
    goal = GOALS[("until", kind)]
    for variant in ("off", "kept"):
        found = [r for name, r in rows.items() if re.fullmatch(r"until-%s-%s-\d+" % (kind, variant), name)]
        if found:
            walls, imports = [r["wall"] for r in found], [r["slowest_import"] for r in found]
            print("bytecode %s until-%s: %d runs, %.2f-%.2f s (median %.2f s), within %g s: %d; "
                  "slower zygote import %.2f-%.2f s (median %.2f s)"
                  % (variant, kind, len(found), min(walls), max(walls), statistics.median(walls), goal,
                     sum(w <= goal for w in walls), min(imports), max(imports), statistics.median(imports)))


def main(out):
    with open(os.path.join(out, "commands.log")) as f:
        walls = {m.group(1): int(m.group(2)) for m in re.finditer(r"# (\S+): exit \d+, (\d+) ms", f.read())}
    rows = {name: row for name, ms in walls.items() if (row := run_row(out, name, ms))}
    print("| run | wall s | run s | outside the run s | sass s | samples | looks | zygote import s (side 0, 1) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows.values():
        print("| %s | %.2f | %.2f | %.2f | %.2f | %d | %d | %s |" % (r["name"], r["wall"], r["run"], r["outside"], r["sass"],
                                                               r["samples"], r["looks"], r["imports"]))
    print()
    for mode in ("until", "fixed"):
        for kind in ("slower", "same"):
            pairs(rows, mode, kind)
    for kind in ("slower", "same"):
        bytecode_rounds(rows, kind)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: start_times.py OUT\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
