#!/usr/bin/env python3
"""A command benchmark in pure Python (no dependencies): times a loop of integer additions.

isobench runs it once per sample with the instance's parameters in the environment
(ISOBENCH_PARAM_ITERATIONS, ISOBENCH_PARAM_REPEATS) and reads the protocol lines it prints on
stdout: {"isobench": 1, "value": <seconds>}. See docs/command-protocol.md.

When isobench gives it an artifact folder (ISOBENCH_ARTIFACT_DIR) it keeps what it ran there
(cpu_loop.config.txt): the run archives it with its hash, and `orchestrate compare` lists it when
it differs between two runs.
"""
import json
import os
import sys
import time

PROTOCOL = 1


def main() -> int:
    if os.environ.get("ISOBENCH_PROTOCOL", str(PROTOCOL)) != str(PROTOCOL):
        print(f"cpu_loop.py speaks protocol {PROTOCOL}, isobench asks for "
              f"{os.environ['ISOBENCH_PROTOCOL']}", file=sys.stderr)
        return 2
    iterations = int(os.environ.get("ISOBENCH_PARAM_ITERATIONS", "100000"))
    repeats = int(os.environ.get("ISOBENCH_PARAM_REPEATS", "3"))
    artifacts = os.environ.get("ISOBENCH_ARTIFACT_DIR")
    if artifacts:
        with open(os.path.join(artifacts, "cpu_loop.config.txt"), "w") as f:
            f.write(f"iterations {iterations}\nrepeats {repeats}\n"
                    f"python {sys.version_info[0]}.{sys.version_info[1]}\n")
    # Warm-up belongs to the program: each sample is a fresh process.
    total = sum(range(iterations))
    print(f"cpu_loop: {iterations} iterations, {repeats} timed repeats")  # not a protocol line
    for _ in range(repeats):
        t0 = time.perf_counter()
        acc = 0
        for i in range(iterations):
            acc += i
        elapsed = time.perf_counter() - t0
        assert acc == total
        print(json.dumps({"isobench": PROTOCOL, "value": elapsed}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
