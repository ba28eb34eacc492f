#!/usr/bin/env python3
"""Checks a merged --executor slurm A/B run of CUDA kernels (bench/gpu/slurm_gpu_check.sh):
every sample names a GPU; each shard's task record names, through NVML, the GPU nvidia-smi lists
at the task's CUDA_VISIBLE_DEVICES index, and every sample the task took names that same GPU;
both sides of every instance come from one task; every planned slot is there once; the merge
warned of no sample on another GPU. Prints one JSON object and exits 1 when a check fails.
Usage: slurm_gpu_check.py RUN_DIR GPU_UUIDS_CSV MERGE_STDERR
"""
import json
import sys


def main(run, uuids_csv, merge_err):
    by_index = {}
    for line in open(uuids_csv):
        index, uuid = (x.strip() for x in line.split(","))
        by_index[index] = uuid
    plan = json.load(open(f"{run}/plan.json"))
    shards = json.load(open(f"{run}/shards.json"))["shards"]
    lines = [json.loads(line) for line in open(f"{run}/samples.jsonl")]
    samples = [x for x in lines if x.get("type") == "sample"]
    problems = []
    planned = sorted(t[3] for r in plan["schedule"]["runs"] for t in r["tasks"])
    if sorted(x["slot"] for x in samples) != planned:
        problems.append(f"{len(samples)} samples, {len(planned)} planned slots: not each slot once")
    tasks = {}
    for shard in shards:
        for t in shard["tasks"]:
            tasks[t["job"]] = t
            visible = t.get("cuda_visible_devices")
            if t.get("gpu_uuid") != by_index.get(visible):
                problems.append(f"task {t['job']}: NVML names {t.get('gpu_uuid')} for CUDA_VISIBLE_DEVICES={visible}, "
                                f"nvidia-smi lists {by_index.get(visible)} there")
    per_instance = {}
    for x in samples:
        if not x.get("gpu_uuid"):
            problems.append(f"slot {x['slot']}: names no GPU")
            continue
        task = tasks.get(x.get("slurm_job"))
        if task is None:
            problems.append(f"slot {x['slot']}: no task record for {x.get('slurm_job')}")
        elif x["gpu_uuid"] != task.get("gpu_uuid"):
            problems.append(f"slot {x['slot']}: taken on {x['gpu_uuid']}, its task {task['job']} names {task.get('gpu_uuid')}")
        per_instance.setdefault(x["instance"], set()).add((x.get("slurm_job"), x["gpu_uuid"]))
    for instance, taken in per_instance.items():
        if len(taken) != 1:
            problems.append(f"{instance}: samples from {len(taken)} tasks or GPUs")
    if "another GPU" in open(merge_err).read():
        problems.append("the merge warned of samples on another GPU than their task's")
    print(json.dumps({"run": run, "samples": len(samples), "planned": len(planned), "shards": len(shards),
                      "tasks": {j: {"cuda_visible_devices": t.get("cuda_visible_devices"), "gpu_uuid": t.get("gpu_uuid")}
                                for j, t in tasks.items()},
                      "instances": len(per_instance), "problems": problems}, indent=2))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
