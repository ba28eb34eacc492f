#!/usr/bin/env python3
"""What a fresh worker's device context costs, phase by phase, made alone and K at a time.

Every measuring worker of a GPU run is a fresh process that makes its CUDA context (the context
gate keeps that apart from measurements: docs/measurement.md). This probe does what a worker's
context phase does (worker/cuda/cuda_device.cu: the driver's initialisation, the primary
context, NVML opened by PCI bus id, a stream), in children forked from a parent that has imported
torch and triton as a zygote has, and times each step in each child:

  init     dlopen libcuda.so.1 and cuInit(0)
  context  cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuCtxSynchronize
  alloc    cuMemAlloc of 1 MiB and cuMemFree (the first allocation)
  nvml     dlopen libnvidia-ml.so.1, nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2
  stream   cuStreamCreate (non-blocking)
  torch    (with torch imported) torch's own CUDA initialisation on that context: a tensor of one
           element made on the device and synchronised, as a Python worker's set-up first does
  shutdown nvmlShutdown
  release  cuDevicePrimaryCtxRelease (the context's teardown, as at a worker's exit)
  reaped   from the child's last step to the parent's waitpid (the process's exit)

A wave of K children starts together (they wait on one pipe, so forks do not stagger them);
`KxW` runs W waves of K. Per wave it reports the wall time from the first child's start to the
last child's context, and so the contexts made per second: whether the driver makes contexts
side by side or one after another.

  context_floor.py [--waves 1x8,2x4,4x2,8x1] [--no-imports] --out FILE.json

Prints a table per K (medians of the children's steps, in ms) and writes every child's record.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

STEPS = ("init", "context", "alloc", "nvml", "stream", "torch", "shutdown", "release")


def ms(t0, t1):
    return (t1 - t0) / 1e6


def child(go_fd, report_fd):
    """One fresh worker's context phase and teardown; writes one JSON line to report_fd."""
    os.read(go_fd, 1)  # every child of the wave starts at the parent's word
    rec = {"pid": os.getpid()}
    t = [time.monotonic_ns()]
    rec["start_ns"] = t[0]

    def check(name, status):
        if status != 0:
            raise RuntimeError(f"{name} returned {status}")

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        check("cuInit", cuda.cuInit(0))
        t.append(time.monotonic_ns())
        dev = ctypes.c_int()
        check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(dev), 0))
        ctx = ctypes.c_void_p()
        check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
        check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(ctx))
        check("cuCtxSynchronize", cuda.cuCtxSynchronize())
        t.append(time.monotonic_ns())
        rec["context_ready_ns"] = t[-1]
        ptr = ctypes.c_uint64()
        check("cuMemAlloc", cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)))
        check("cuMemFree", cuda.cuMemFree_v2(ptr))
        t.append(time.monotonic_ns())
        bus = ctypes.create_string_buffer(32)
        check("cuDeviceGetPCIBusId", cuda.cuDeviceGetPCIBusId(bus, 32, dev))
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        check("nvmlInit_v2", nvml.nvmlInit_v2())
        handle = ctypes.c_void_p()
        check("nvmlDeviceGetHandleByPciBusId_v2", nvml.nvmlDeviceGetHandleByPciBusId_v2(bus.value, ctypes.byref(handle)))
        t.append(time.monotonic_ns())
        stream = ctypes.c_void_p()
        check("cuStreamCreate", cuda.cuStreamCreate(ctypes.byref(stream), 1))
        t.append(time.monotonic_ns())
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.zeros(1, device="cuda")
            torch.cuda.synchronize()
        t.append(time.monotonic_ns())
        check("nvmlShutdown", nvml.nvmlShutdown())
        t.append(time.monotonic_ns())
        check("cuStreamDestroy", cuda.cuStreamDestroy_v2(stream))
        check("cuDevicePrimaryCtxRelease", cuda.cuDevicePrimaryCtxRelease_v2(dev))
        t.append(time.monotonic_ns())
        for name, a, b in zip(STEPS, t, t[1:]):
            rec[name] = ms(a, b)
    except Exception as e:  # reported, and the parent counts it
        rec["error"] = str(e)
    rec["end_ns"] = time.monotonic_ns()
    os.write(report_fd, (json.dumps(rec) + "\n").encode())
    os._exit(0)


def wave(k):
    go_r, go_w = os.pipe()
    rep_r, rep_w = os.pipe()
    pids = []
    for _ in range(k):
        pid = os.fork()
        if pid == 0:
            os.close(go_w)
            os.close(rep_r)
            child(go_r, rep_w)
        pids.append(pid)
    os.close(go_r)
    os.close(rep_w)
    os.write(go_w, b"x" * k)
    os.close(go_w)
    reaped = {}
    for _ in pids:
        pid, _status = os.wait()
        reaped[pid] = time.monotonic_ns()
    with os.fdopen(rep_r) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    for r in recs:
        r["reaped"] = ms(r["end_ns"], reaped[r["pid"]])
    ok = [r for r in recs if "error" not in r]
    wall = ms(min(r["start_ns"] for r in ok), max(r["context_ready_ns"] for r in ok)) if ok else None
    return {"k": k, "children": recs, "contexts_wall_ms": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--waves", default="1x8,2x4,4x2,8x1")
    ap.add_argument("--no-imports", action="store_true", help="fork from a bare parent, not one that imported torch and triton")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not a.no_imports:
        t0 = time.monotonic()
        import torch  # noqa: F401  (as a zygote: imported, CUDA not initialised)
        import triton  # noqa: F401
        print(f"parent imported torch and triton in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    waves = []
    for spec in a.waves.split(","):
        k, w = (int(x) for x in spec.split("x"))
        for _ in range(w):
            waves.append(wave(k))
            time.sleep(0.2)
    with open(a.out, "w") as f:
        json.dump({"imports": not a.no_imports, "waves": waves}, f, indent=1)
    print("| K | children | failed | contexts wall (median of waves) | contexts per s | "
          + " | ".join(STEPS + ("reaped",)) + " |")
    print("|" + " --- |" * (len(STEPS) + 6))
    for k in sorted({w["k"] for w in waves}):
        ws = [w for w in waves if w["k"] == k]
        kids = [c for w in ws for c in w["children"]]
        ok = [c for c in kids if "error" not in c]
        walls = [w["contexts_wall_ms"] for w in ws if w["contexts_wall_ms"] is not None]
        wall = statistics.median(walls) if walls else float("nan")
        cells = [f"{statistics.median(c[s] for c in ok):.1f}" if ok else "-" for s in STEPS + ("reaped",)]
        print(f"| {k} | {len(kids)} | {len(kids) - len(ok)} | {wall:.1f} | {k / wall * 1e3:.2f} | "
              + " | ".join(cells) + " |")
    for c in (c for w in waves for c in w["children"] if "error" in c):
        print(f"child {c['pid']}: {c['error']}", file=sys.stderr)


if __name__ == "__main__":
    main()
