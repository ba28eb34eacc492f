"""Joins `orchestrate ab --pytest --format json` with pytest-benchmark's two saved runs of the same
file, by pytest's node id (isobench's pytest_node_id, pytest-benchmark's fullname), into one
markdown table (docs/results/pytest-suites-in-the-wild.md):

    python3 side_by_side.py AB.json PYTEST_BENCHMARK_A.json PYTEST_BENCHMARK_B.json
"""

import json
import sys


def seconds(value):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if value >= scale:
            return "%.4g %s" % (value / scale, unit)
    return "%.4g ns" % (value / 1e-9)


def main(ab_path, a_path, b_path):
    with open(ab_path) as f:
        ab = json.load(f)
    medians = []
    for path in (a_path, b_path):
        with open(path) as f:
            medians.append({b["fullname"]: b["stats"]["median"] for b in json.load(f)["benchmarks"]})
    print("| test (pytest id) | pytest-benchmark A | B | B/A medians | isobench A | B | HL ratio B/A [95%] | verdict |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    unmatched = 0
    for row in ab["instances"]:
        node = row.get("pytest_node_id")
        a, b = medians[0].get(node), medians[1].get(node)
        if a is None or b is None:
            unmatched += 1
            continue
        print("| %s | %s | %s | %.3f | %s | %s | %.3f [%.3f, %.3f] | %s |" % (
            row["instance"], seconds(a), seconds(b), b / a, seconds(row["median_a"]), seconds(row["median_b"]),
            row["hl_ratio"], row["hl_lo"], row["hl_hi"], row["verdict"]))
    print("\n%d of %d instances matched by node id (%d not)" % (len(ab["instances"]) - unmatched, len(ab["instances"]),
                                                                 unmatched))


if __name__ == "__main__":
    main(*sys.argv[1:])
