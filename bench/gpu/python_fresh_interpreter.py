#!/usr/bin/env python3
"""What a fresh interpreter per sample costs (bench/gpu/python_benchmarks.sh, part cost): RUNS
interpreters, one after another, that import torch and run one bf16 4096^3 matmul on the GPU,
each timed from start to exit (what it measured on the H200: docs/results/2026-12-01-h200-d/).

    python_fresh_interpreter.py --runs 3 --out fresh-interpreter.json
"""

import argparse
import json
import subprocess
import sys
import time

CODE = """import torch
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
torch.matmul(a, b)
torch.cuda.synchronize()
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    walls = []
    for _ in range(a.runs):
        t0 = time.monotonic()
        subprocess.run([sys.executable, "-c", CODE], check=True)
        walls.append(time.monotonic() - t0)
    json.dump({"python": sys.executable, "code": CODE, "wall_s": walls}, open(a.out, "w"), indent=1)
    print("fresh interpreter, import torch + one bf16 4096^3 matmul: " + ", ".join("%.2f s" % w for w in walls))


if __name__ == "__main__":
    main()
