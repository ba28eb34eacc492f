#!/usr/bin/env python3
"""Where a run's samples were taken (--gpus), checked against NVML: for each run directory, every
sample's GPU index, UUID and name as the worker read them, against environment.json's NVML listing
of that index; each instance on exactly one GPU; samples and workers per GPU; wall seconds.
Prints one JSON object per run and exits 1 when a check fails.
Usage: gpus_check.py RUN_DIR...
"""
import json
import sys


def check(run):
    env = json.load(open(f"{run}/environment.json"))
    plan = json.load(open(f"{run}/plan.json"))
    info = json.load(open(f"{run}/run.json"))
    nvml = {g["index"]: g for g in env.get("gpu", {}).get("gpus", [])}  # NVML's listing, by index
    events = [json.loads(line) for line in open(f"{run}/samples.jsonl")]
    samples = [e for e in events if e.get("type", "sample") == "sample"]
    problems = []
    per_gpu, per_instance = {}, {}
    for s in samples:
        g = s.get("gpu")
        per_gpu.setdefault(g, {"samples": 0, "uuids": set(), "names": set()})
        per_gpu[g]["samples"] += 1
        per_gpu[g]["uuids"].add(s.get("gpu_uuid"))
        per_gpu[g]["names"].add(s.get("gpu_name"))
        per_instance.setdefault(s["instance"], set()).add(s.get("gpu_uuid"))
        planned = plan["instances"][s["instance_index"]].get("gpu")
        if planned is not None and planned != g:
            problems.append(f"{s['instance']} slot {s['slot']}: journaled on GPU {g}, planned on {planned}")
        if g in nvml and s.get("gpu_uuid") != nvml[g].get("uuid"):
            problems.append(f"slot {s['slot']}: worker says {s.get('gpu_uuid')}, NVML index {g} is {nvml[g].get('uuid')}")
    for instance, uuids in per_instance.items():
        if len(uuids) != 1:
            problems.append(f"{instance}: samples from {len(uuids)} GPUs")
    workers = [e for e in events if e.get("type") == "worker"]
    return {"run": run, "status": info.get("status"), "gpus": info.get("gpus"), "wall_seconds": info.get("wall_seconds"),
            "samples": len(samples), "workers": len(workers),
            "per_gpu": {str(g): {"samples": v["samples"], "uuids": sorted(map(str, v["uuids"])),
                                 "names": sorted(map(str, v["names"]))} for g, v in per_gpu.items()},
            "nvml": {str(i): {"uuid": g.get("uuid"), "name": g.get("name"), "pci_bus_id": g.get("pci_bus_id")}
                     for i, g in nvml.items()},
            "problems": problems}


def main():
    rows = [check(r) for r in sys.argv[1:]]
    for r in rows:
        print(json.dumps(r))
    sys.exit(1 if any(r["problems"] for r in rows) else 0)


if __name__ == "__main__":
    main()
