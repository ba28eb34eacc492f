#!/usr/bin/env python3
"""A command benchmark on the GPU: times a torch matmul with CUDA events.

isobench runs it once per sample with the instance's parameters in the environment
(ISOBENCH_PARAM_N: the square size; ISOBENCH_PARAM_DTYPE: bf16, fp16 or fp32;
ISOBENCH_PARAM_ITERS: launches timed together) and reads {"isobench": 1, "value": <seconds>}
lines from stdout (docs/command-protocol.md). The value is the mean time of one matmul.

Without torch or a GPU it says so on stderr and exits 1, which isobench records as a failed
worker with that reason in the run's logs.
"""
import json
import os
import sys

PROTOCOL = 1


def main() -> int:
    if os.environ.get("ISOBENCH_PROTOCOL", str(PROTOCOL)) != str(PROTOCOL):
        print(f"torch_events.py speaks protocol {PROTOCOL}", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("torch_events.py: torch is not installed (pip install torch); "
              "use examples/command/cpu_loop.py for a dependency-free example", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("torch_events.py: torch sees no CUDA device", file=sys.stderr)
        return 1

    n = int(os.environ.get("ISOBENCH_PARAM_N", "4096"))
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[
        os.environ.get("ISOBENCH_PARAM_DTYPE", "bf16")]
    iters = int(os.environ.get("ISOBENCH_PARAM_ITERS", "20"))
    seed = int(os.environ.get("ISOBENCH_SEED", "0")) % (2**63)

    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    b = torch.randn(n, n, device="cuda", dtype=dtype, generator=gen)
    out = torch.empty(n, n, device="cuda", dtype=dtype)

    # Warm-up: module loading, cuBLAS heuristics and clocks, before the timed launches.
    for _ in range(3):
        torch.matmul(a, b, out=out)
    torch.cuda.synchronize()

    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        torch.matmul(a, b, out=out)
    stop.record()
    stop.synchronize()
    seconds = start.elapsed_time(stop) / 1000.0 / iters  # elapsed_time is in milliseconds
    print(json.dumps({"isobench": PROTOCOL, "value": seconds}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
