#!/usr/bin/env python3
"""Captures the segment fuzz target's seeds (fuzz/corpus/segment/) from a real run.

Runs `orchestrate` on the CPU with two cpu_spin instances (4000 and 6000 us, 10 samples each,
isolation interleave) and copies the run's shared-memory segment (/dev/shm/isobench-PID-*) while
it is in progress: interleave-running.bin once the first sample is journaled, interleave-later.bin
once more than half are, and interleave-instances.json, the instance table the segment carries (the seed
for the decoder alone). Capture again whenever ipc/segment_layout.hpp's kProtocolVersion changes:
an image of an older version is refused at the header and exercises nothing beyond it.

    tools/capture_segment_seeds.py BUILD_DIR OUT_DIR      (e.g. build fuzz/corpus/segment)
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

SWEEP = """settings: {samples: 10, isolation: interleave}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [4000, 6000]}
"""


def journal_samples(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if '"type":"sample"' in line)
    except FileNotFoundError:
        return 0


def main():
    build, out = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="isobench-capture-")
    sweep = os.path.join(work, "capture.yaml")
    with open(sweep, "w") as f:
        f.write(SWEEP)
    run_dir = os.path.join(work, "run")
    proc = subprocess.Popen([os.path.join(build, "bin", "orchestrate"), "--device", "cpu", "--quiet", "--out",
                             run_dir, sweep])
    images = {}
    journal = os.path.join(run_dir, "samples.jsonl")
    while proc.poll() is None and len(images) < 2:
        segments = glob.glob(f"/dev/shm/isobench-{proc.pid}-*")
        n = journal_samples(journal)
        name = "interleave-running.bin" if n >= 1 and "interleave-running.bin" not in images else (
            "interleave-later.bin" if n > 10 and "interleave-running.bin" in images else None)
        if segments and name:
            try:
                with open(segments[0], "rb") as f:
                    images[name] = f.read()
            except FileNotFoundError:
                pass
        time.sleep(0.001)
    rc = proc.wait()
    if rc != 0 or len(images) != 2:
        sys.exit(f"capture: orchestrate exited {rc}, {len(images)} of 2 images captured")
    for name, data in images.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    # The header's instances_json_offset and instances_json_bytes (ipc/segment_layout.hpp): read
    # through the fuzz target's own layout would need C++; the table is the JSON array in the image.
    data = images["interleave-running.bin"]
    start = data.index(b'[{"backend"')
    end = start + data[start:].index(b"\0") if b"\0" in data[start:] else len(data)
    table = json.loads(data[start:end])
    with open(os.path.join(out, "interleave-instances.json"), "w") as f:
        f.write(json.dumps(table, separators=(",", ":")))
    shutil.rmtree(work)
    print(f"capture: {', '.join(f'{k} ({len(v)} bytes)' for k, v in sorted(images.items()))}, "
          f"interleave-instances.json ({len(table)} instances)")


if __name__ == "__main__":
    main()
