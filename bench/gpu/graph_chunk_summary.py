#!/usr/bin/env python3
"""The summary of bench/gpu/graph_chunk.sh's runs (OUT/runs/full-N, chunk-N): per instance the
median value per launch with --graph-chunk 0 and at the default, their ratio per round and pooled,
and how the samples' graph was laid out (instance_reports.json's setup note); per run the workers'
set-up and measuring phases (bench/gpu/worker_phases.py) and the run's wall time (commands.log);
and each compare-N verdict. Writes OUT/summary.md (also OUT/summary.out, by the script's step)
and OUT/summary.json.
Usage: graph_chunk_summary.py OUT
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worker_phases  # noqa: E402


def medians(run):
    """{instance id: median value per launch} of a run's journal."""
    values = {}
    with open(f"{run}/samples.jsonl") as journal:
        for line in journal:
            e = json.loads(line)
            if e.get("type", "sample") == "sample" and "value" in e:
                values.setdefault(e["instance"], []).append(e["value"])
    return {k: statistics.median(v) for k, v in values.items()}


def plan_of(run):
    with open(f"{run}/plan.json") as f:
        plan = json.load(f)
    return {i["id"]: {"inner": i.get("inner"), "graph_chunk": i.get("graph_chunk")} for i in plan["instances"]}


def notes_of(run):
    try:
        with open(f"{run}/instance_reports.json") as f:
            reports = json.load(f)["instances"]
        return {k: v.get("setup_note", "") for k, v in reports.items()}
    except (OSError, ValueError, KeyError, AttributeError):
        return {}


def wall_times(out):
    """{step name: (exit code, seconds)} from commands.log."""
    times = {}
    try:
        with open(f"{out}/commands.log") as log:
            for line in log:
                m = re.match(r"# (\S+): exit (\d+), (\d+) ms", line)
                if m:
                    times[m.group(1)] = (int(m.group(2)), int(m.group(3)) / 1e3)
    except OSError:
        pass
    return times


def verdicts(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    rows = report.get("instances", []) if isinstance(report, dict) else []
    return {r.get("instance"): r.get("verdict") for r in rows if isinstance(r, dict)}


def main():
    out = sys.argv[1]
    runs_dir = f"{out}/runs"
    rounds = sorted(int(n.split("-")[1]) for n in os.listdir(runs_dir) if re.fullmatch(r"full-\d+", n))
    times = wall_times(out)
    result = {"rounds": [], "instances": {}, "runs": {}}
    pooled = {}
    lines = ["# graph_chunk.sh", ""]
    for n in rounds:
        full, chunk = f"{runs_dir}/full-{n}", f"{runs_dir}/chunk-{n}"
        if not (os.path.exists(f"{full}/samples.jsonl") and os.path.exists(f"{chunk}/samples.jsonl")):
            continue
        mf, mc = medians(full), medians(chunk)
        ratios = {k: mc[k] / mf[k] for k in mf if k in mc and mf[k] > 0}
        for k, r in ratios.items():
            pooled.setdefault(k, []).append(r)
        result["rounds"].append({"round": n, "full": mf, "chunk": mc, "ratio": ratios,
                                 "compare": verdicts(f"{out}/compare-{n}.out")})
    plan = plan_of(f"{runs_dir}/chunk-{rounds[0]}") if rounds else {}
    notes = notes_of(f"{runs_dir}/chunk-{rounds[0]}") if rounds else {}
    lines += ["## Per instance: median value per launch, chunked / one graph of all launches", "",
              "| instance | inner | graph_chunk | ratio per round | pooled (median) | setup note (chunked run) |",
              "| --- | --- | --- | --- | --- | --- |"]
    for k in sorted(pooled):
        p = plan.get(k, {})
        med = statistics.median(pooled[k])
        result["instances"][k] = {"inner": p.get("inner"), "graph_chunk": p.get("graph_chunk"),
                                  "ratios": pooled[k], "ratio_median": med, "setup_note": notes.get(k, "")}
        lines.append(f"| {k} | {p.get('inner')} | {p.get('graph_chunk')} | "
                     f"{', '.join(f'{r:.4f}' for r in pooled[k])} | {med:.4f} | {notes.get(k, '')} |")
    lines += ["", "## Per run: workers' phases (median ms per worker) and the run's wall time", "",
              "| run | workers | setup | measure | untimed in measure | ms per worker | wall s (exit) |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in ["pin"] + [f"{s}-{n}" for n in rounds for s in ("full", "chunk")]:
        run = f"{runs_dir}/{name}"
        if not os.path.exists(f"{run}/samples.jsonl"):
            continue
        try:
            ph = worker_phases.phases(run)
        except (KeyError, ValueError, ZeroDivisionError) as e:
            ph = {"error": str(e)}
        result["runs"][name] = {"phases": ph, "wall": times.get(name)}
        cell = lambda key: "—" if key not in ph or ph[key]["median"] is None else f"{ph[key]['median']:.1f}"
        wall = times.get(name)
        wall_text = f"{wall[1]:.1f} ({wall[0]})" if wall else "—"
        per_worker = f"{ph['wall_ms_per_worker']:.1f}" if "wall_ms_per_worker" in ph else "—"
        lines.append(f"| {name} | {ph.get('workers', '—')} | {cell('setup_ms')} | {cell('measure_ms')} | "
                     f"{cell('untimed_in_measure_ms')} | {per_worker} | {wall_text} |")
    lines += ["", "## compare full-N chunk-N", ""]
    for r in result["rounds"]:
        step = times.get(f"compare-{r['round']}")
        lines.append(f"- round {r['round']}: exit {step[0] if step else '—'}; verdicts {r['compare']}")
    text = "\n".join(lines) + "\n"
    with open(f"{out}/summary.md", "w") as f:
        f.write(text)
    with open(f"{out}/summary.json", "w") as f:
        json.dump(result, f, indent=1)
    print(text, end="")


if __name__ == "__main__":
    main()
