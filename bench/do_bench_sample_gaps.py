"""Where in a worker's measuring phase an A/B's slow samples fall, from its run directory's
samples.jsonl: each sample against the median of its instance on its side, grouped by what came
right before it in its worker. For the question of docs/results/2026-12-06-cpu-do-bench-warmup:
whether the wider samples of a do_bench test taken in one pass per worker are the worker's first
(set up and warmed up before the wait for the measure permit), the ones begun soon after the
worker's previous sample ended, or all of them.

    python3 bench/do_bench_sample_gaps.py RUN_DIR...

One line per run:
  NAME: S samples, spread 0.0123; over +10%: first 0.025 of 40, gap <1 ms 0.143 of 482,
  gap >=1 ms 0.050 of 562; sides in worker order: alternate
spread: the median over instances and sides of (upper quartile - lower quartile) / median;
first: each worker's first sample; gap: from the end of the worker's previous sample to this one's
begin; sides in worker order: `alternate` where no two workers in a row measured the same side."""

import collections
import json
import os
import statistics
import sys

SLOW = 1.10   # a sample this much above its instance's median on its side counts as slow
GAP_MS = 1.0  # the gap that splits the samples begun soon after the previous one from the others


def samples_of(run):
    with open(os.path.join(run, "samples.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r.get("type") == "sample"]


def share(flags):
    return "%.3f of %d" % (sum(flags) / len(flags) if flags else 0.0, len(flags))


def describe(run):
    samples = samples_of(run)
    values = collections.defaultdict(list)
    for s in samples:
        values[s["instance"], s["side"]].append(s["value"])
    median = {key: statistics.median(v) for key, v in values.items()}
    spreads = []
    for v in values.values():
        v = sorted(v)
        spreads.append((v[3 * len(v) // 4] - v[len(v) // 4]) / statistics.median(v))
    workers = collections.defaultdict(list)
    for s in samples:
        workers[s["worker_serial"]].append(s)
    first, soon, later = [], [], []
    for rows in workers.values():
        rows.sort(key=lambda s: s["begin_ns"])
        for k, s in enumerate(rows):
            slow = s["value"] > SLOW * median[s["instance"], s["side"]]
            if k == 0:
                first.append(slow)
            elif (s["begin_ns"] - rows[k - 1]["end_ns"]) / 1e6 < GAP_MS:
                soon.append(slow)
            else:
                later.append(slow)
    sides = [workers[w][0]["side"] for w in sorted(workers)]
    alternate = all(a != b for a, b in zip(sides, sides[1:]))
    return "%s: %d samples, spread %.4f; over +10%%: first %s, gap <1 ms %s, gap >=1 ms %s; " \
           "sides in worker order: %s" % (os.path.basename(run.rstrip("/")), len(samples),
                                          statistics.median(spreads), share(first), share(soon),
                                          share(later), "alternate" if alternate else "not alternate")


def main(runs):
    if not runs:
        print("usage: python3 bench/do_bench_sample_gaps.py RUN_DIR...", file=sys.stderr)
        return 2
    for run in runs:
        if not os.path.isfile(os.path.join(run, "samples.jsonl")):
            print("%s: no samples.jsonl" % run, file=sys.stderr)
            return 2
    for run in runs:
        print(describe(run))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
