#!/usr/bin/env python3
"""What bench/gpu/triton_compiler_ab.sh measured, against what a compiler A/B must show:

- the compiler A/B (TRITON_DEFAULT_FP_FUSION=0 on the candidate): verdict per shape, the
  autotune choices the run pinned for both sides, which kernels' IR differs between the two
  sides' Triton cache folders (the run directory's triton-cache/side-0 and side-1), and which
  instances' IR artifacts (triton/ in each instance's folder, artifacts.json) differ;
- the A/A of the same compiler: no SLOWER or FASTER, no IR difference;
- the pytest bridge against the python: entries: median of each shape both ways.

    python3 bench/gpu/triton_compiler_summary.py OUT_DIR

Prints Markdown; writes OUT_DIR/summary.json. A part whose run is missing is said to be missing.
"""

import glob
import hashlib
import json
import os
import statistics
import sys


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def medians(run_dir):
    """instance -> side -> median of its samples (seconds), from the journal."""
    values = {}
    try:
        with open(os.path.join(run_dir, "samples.jsonl")) as f:
            for line in f:
                record = json.loads(line)
                if record.get("type") == "sample" and "value" in record:
                    values.setdefault(record["instance"], {}).setdefault(record.get("side", 0), []).append(record["value"])
    except OSError:
        return None
    return {i: {s: statistics.median(v) for s, v in sides.items()} for i, sides in values.items()}


def verdicts(step_out):
    answer = load_json(step_out)
    if not answer:
        return None
    return {r["instance"]: r.get("verdict") for r in answer.get("instances", [])}


def autotune_choices(run_dir):
    reports = load_json(os.path.join(run_dir, "instance_reports.json")) or {}
    return {i: r.get("describe", {}).get("triton_autotune") for i, r in reports.get("instances", {}).items()
            if r.get("describe", {}).get("triton_autotune")}


def ir_by_kernel(cache_dir, suffix):
    """kernel name -> set of content hashes of its SUFFIX files in a Triton cache folder."""
    found = {}
    for path in glob.glob(os.path.join(cache_dir, "*", "*." + suffix)):
        name = os.path.basename(path)[: -len(suffix) - 1]
        with open(path, "rb") as f:
            found.setdefault(name, set()).add(hashlib.sha256(f.read()).hexdigest()[:12])
    return found


def ir_differences(base_cache, cand_cache):
    out = {}
    for suffix in ("ttir", "ttgir", "llir", "ptx"):
        base, cand = ir_by_kernel(base_cache, suffix), ir_by_kernel(cand_cache, suffix)
        out[suffix] = {"kernels": sorted(set(base) | set(cand)),
                       "differ": sorted(k for k in set(base) | set(cand) if base.get(k) != cand.get(k))}
    return out


def ir_by_instance(run_dir):
    """stage -> the instances with that stage among their archived artifacts (artifacts.json,
    written by python/isobench/triton_ir.py) and those whose files of it differ between sides."""
    doc = load_json(os.path.join(run_dir, "artifacts.json")) or {}
    sides = {}
    for side in doc.get("sides", []):
        files = {}
        for instance, entry in (side.get("instances") or {}).items():
            for f in entry.get("files", []):
                files.setdefault(instance, {})[f["path"]] = f.get("sha256")
        sides[side.get("side")] = files
    out = {}
    for suffix in ("ttir", "ttgir", "llir", "ptx", "sass"):
        instances, differ = set(), set()
        for instance in set(sides.get(0, {})) | set(sides.get(1, {})):
            a = {p: h for p, h in sides.get(0, {}).get(instance, {}).items() if p.endswith("." + suffix)}
            b = {p: h for p, h in sides.get(1, {}).get(instance, {}).items() if p.endswith("." + suffix)}
            if a or b:
                instances.add(instance)
                if a != b:
                    differ.add(instance)
        out[suffix] = {"instances": sorted(instances), "differ": sorted(differ)}
    return out


def ab_part(out, name, title):
    run_dir = os.path.join(out, name)
    print("## %s\n" % title)
    v = verdicts(os.path.join(out, name + ".out"))
    if v is None:
        print("- missing: no verdicts in %s.out\n" % name)
        return None
    m = medians(run_dir) or {}
    print("| instance | baseline median | candidate median | verdict |\n| --- | --- | --- | --- |")
    for instance, verdict in v.items():
        sides = m.get(instance, {})
        cells = ["%.2f us" % (sides[s] * 1e6) if s in sides else "-" for s in (0, 1)]
        print("| %s | %s | %s | %s |" % (instance, cells[0], cells[1], verdict))
    choices = autotune_choices(run_dir)
    print("\n- autotune choices pinned for both sides (instance_reports.json): %d instances" % len(choices))
    for instance, records in choices.items():
        for r in records:
            print("  - %s: %s key %s -> %s" % (instance, r["kernel"], r["key"], r["config"]))
    caches = [os.path.join(run_dir, "triton-cache", "side-%d" % s) for s in (0, 1)]
    ir = ir_differences(*caches)
    for suffix, d in ir.items():
        print("- %s differs between the sides' Triton caches for %d of %d kernels%s" %
              (suffix.upper(), len(d["differ"]), len(d["kernels"]), (": " + ", ".join(d["differ"])) if d["differ"] else ""))
    by_instance = ir_by_instance(run_dir)
    for suffix, d in by_instance.items():
        print("- %s differs between the sides' instance artifacts (triton_ir) for %d of %d instances%s" %
              (suffix.upper(), len(d["differ"]), len(d["instances"]), (": " + ", ".join(d["differ"])) if d["differ"] else ""))
    changed = sorted(i for i, x in v.items() if x in ("SLOWER", "FASTER"))
    print("- SLOWER or FASTER: %d of %d instances%s\n" % (len(changed), len(v), (": " + ", ".join(changed)) if changed else ""))
    return {"verdicts": v, "medians": m, "autotune": choices, "ir": ir, "ir_by_instance": by_instance}


# The pytest tests' ids against the python: entries' (bench/gpu/test_triton_ops.py).
PAIRS = {
    "test_softmax[4096]": "triton_softmax[rows=4096,cols=4096,dtype=bf16]",
    "test_softmax[16384]": "triton_softmax[rows=16384,cols=4096,dtype=bf16]",
    "test_layer_norm[4096]": "triton_layer_norm[rows=4096,hidden=4096,dtype=bf16]",
    "test_layer_norm[8192]": "triton_layer_norm[rows=4096,hidden=8192,dtype=bf16]",
    "test_matmul[2048]": "triton_matmul[m=2048,n=4096,k=4096,dtype=bf16]",
    "test_matmul[4096]": "triton_matmul[m=4096,n=4096,k=4096,dtype=bf16]",
}


def pytest_part(out):
    print("## The same set through the pytest bridge\n")
    bridge, direct = medians(os.path.join(out, "pytest-run")), medians(os.path.join(out, "python-run"))
    if not bridge or not direct:
        print("- missing: pytest-run or python-run has no samples\n")
        return None
    print("| test | pytest bridge median | python: median | ratio |\n| --- | --- | --- | --- |")
    rows = {}
    for test, instance in PAIRS.items():
        a, b = bridge.get(test, {}).get(0), direct.get(instance, {}).get(0)
        ratio = a / b if a and b else None
        rows[test] = {"pytest": a, "python": b, "ratio": ratio}
        print("| %s | %s | %s | %s |" % (test, "%.2f us" % (a * 1e6) if a else "-", "%.2f us" % (b * 1e6) if b else "-",
                                          "%.3f" % ratio if ratio else "-"))
    print()
    return rows


def main():
    out = sys.argv[1]
    summary = {"compiler_ab": ab_part(out, "compiler-ab", "Compiler A/B: TRITON_DEFAULT_FP_FUSION=0 on the candidate"),
               "aa": ab_part(out, "aa", "A/A: the same compiler on both sides"),
               "f32_ab": ab_part(out, "f32-ab", "Compiler A/B: TRITON_F32_DEFAULT=ieee on the candidate (fp32 matmul)"),
               "pytest_bridge": pytest_part(out)}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
