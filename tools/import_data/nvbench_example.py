#!/usr/bin/env python3
"""Writes nvbench.json and its --jsonbin sample file for `orchestrate import`'s tests.

nvbench needs a GPU, which the machine that made the test data has not: this file is NOT written
by nvbench. Its layout follows nvbench's own writer (nvbench/json_printer.cu, JSON file version
1.0.0: "meta", "devices", "benchmarks" with "states", each state's "axis_values" and "summaries"
with "tag" and "data" of {name, type, value} where numbers are strings) and measure_cold.cu's
summary tags ("nv/cold/time/gpu/mean", "nv/cold/sample_size", and with --jsonbin
"nv/json/bin:nv/cold/sample_times" naming a file of little-endian float32 seconds). The values
are made up, seeded; the first state has sample times, the second only its summary.
"""
import json
import os
import random
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
rng = random.Random(21)
os.makedirs(os.path.join(out, "nvbench.json-bin"), exist_ok=True)
times = [2.0e-5 * (1 + rng.gauss(0, 0.01)) for _ in range(40)]
with open(os.path.join(out, "nvbench.json-bin", "0.bin"), "wb") as f:
    f.write(b"".join(struct.pack("<f", t) for t in times))


def value(name, kind, v):
    return {"name": name, "type": kind, "value": str(v)}


def summary(tag, name, hint, data):
    return {"tag": tag, "name": name, "hint": hint, "description": name, "data": data}


def state(elements, with_bin):
    summaries = [
        summary("nv/cold/sample_size", "Samples", "sample_size", [value("value", "int64", len(times))]),
        summary("nv/cold/time/gpu/mean", "GPU Time", "duration",
                [value("value", "float64", sum(times) / len(times) * elements / 2**20)]),
    ]
    if with_bin:
        summaries.append(summary("nv/json/bin:nv/cold/sample_times", "Samples Times File", "file/sample_times",
                                 [value("filename", "string", "nvbench.json-bin/0.bin"),
                                  value("size", "int64", len(times))]))
    return {"name": f"Device=0 Elements=2^{elements.bit_length() - 1}", "min_samples": 10, "min_time": 0.5,
            "max_noise": 0.005, "skip_time": -1.0, "timeout": 15.0, "device": 0, "type_config_index": 0,
            "axis_values": [value("Elements", "int64", elements)], "summaries": summaries, "is_skipped": False}


doc = {
    "meta": {"argv": ["./copy_bench", "--json", "nvbench.json", "--jsonbin", "nvbench.json"],
             "version": {"json": {"major": 1, "minor": 0, "patch": 0, "string": "1.0.0"},
                         "nvbench": {"major": 0, "minor": 1, "patch": 0, "string": "0.1.0"}}},
    "devices": [{"id": 0, "name": "NVIDIA H200", "sm_version": 900, "number_of_sms": 132}],
    "benchmarks": [{"name": "copy", "index": 0, "min_samples": 10, "min_time": 0.5, "max_noise": 0.005,
                    "skip_time": -1.0, "timeout": 15.0, "devices": [0],
                    "axes": [{"name": "Elements", "type": "int64", "flags": "pow2",
                              "values": [{"input_string": "20", "description": "2^20 = 1048576", "value": 2**20},
                                         {"input_string": "24", "description": "2^24 = 16777216", "value": 2**24}]}],
                    "states": [state(2**20, True), state(2**24, False)]}],
}
with open(os.path.join(out, "nvbench.json"), "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
