#!/usr/bin/env python3
"""Where a forked Python worker's set-up goes (it was most of the life of a batch worker of the
4-shape softmax on the H200: docs/results/2026-12-02-h200-python-ab/). A parent imports torch,
triton and a folder's softmax_mod.py as a zygote does (no CUDA), freezes its objects, then forks
CHILDREN workers one after another; each child times what a worker's set-up does, step by step, on
the 4 shapes of bench/gpu/python_ab_speed.yaml: the CUDA context and torch's initialisation, each
instance's set-up (its inputs), its first launch (Triton loads the kernel: from TRITON_CACHE_DIR
when compiled before), a second launch, and the capture of `inner` launches into a CUDA graph (the
graph timer's work before its samples). The last child runs under cProfile and prints the 30
costliest functions. One JSON line per child on stdout.

--warm-up: the parent does what a zygote does before it forks (isobench.fork_warmup, from the
repository's python/ folder). --ir: each child also records each instance's IR as the first
worker of a side does (isobench.triton_ir.record, into a folder of its own): its time is the mark
`<shape>:ir_record`.

    worker_setup_probe.py FOLDER [--children 5] [--warm-up] [--ir]
"""
import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

SHAPES = [(4096, 2048, 1182), (4096, 4096, 565), (16384, 2048, 262), (16384, 4096, 150)]  # rows, cols, inner


def child(softmax_mod, torch, ir=False):
    marks = {}
    began = time.perf_counter()

    def mark(name):
        torch.cuda.synchronize() if torch.cuda.is_initialized() else None
        marks[name] = round((time.perf_counter() - began) * 1e3, 2)

    torch.cuda.set_device(0)
    torch.cuda.init()
    torch.empty(1, device="cuda")
    mark("context_and_torch_init")
    for rows, cols, inner in SHAPES:
        tag = f"{rows}x{cols}"
        op = softmax_mod.softmax(rows=rows, cols=cols, seed=19, device="cuda", stream=None)
        mark(tag + ":setup")
        op.launch()
        mark(tag + ":first_launch")
        op.launch()
        mark(tag + ":second_launch")
        if ir:
            from isobench import triton_ir
            triton_ir.record(op.launch, tempfile.mkdtemp(prefix="probe-ir-"), torch.cuda.synchronize)
            mark(tag + ":ir_record")
        stream = torch.cuda.Stream()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(inner):
                    op.launch()
        mark(tag + f":capture_{inner}")
        graph.replay()
        mark(tag + ":replay")
    return marks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--children", type=int, default=5)
    parser.add_argument("--warm-up", action="store_true")
    parser.add_argument("--ir", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, args.folder)
    began = time.perf_counter()
    import torch
    import triton  # noqa: F401
    import softmax_mod
    imports_s = time.perf_counter() - began
    warm_up = []
    if args.warm_up:
        from isobench import fork_warmup
        warm_up = fork_warmup.warm_up()
    assert not torch.cuda.is_initialized()
    gc.freeze()
    for index in range(args.children):
        profile = index == args.children - 1
        read, write = os.pipe()
        forked = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            profiler = cProfile.Profile() if profile else None
            if profiler:
                profiler.enable()
            marks = child(softmax_mod, torch, args.ir)
            if profiler:
                profiler.disable()
                text = io.StringIO()
                pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
                marks["profile"] = text.getvalue()
            os.write(write, json.dumps(marks).encode())
            os.close(write)
            os._exit(0)
        os.close(write)
        data = b""
        while chunk := os.read(read, 1 << 16):
            data += chunk
        os.close(read)
        os.waitpid(pid, 0)
        marks = json.loads(data)
        profile_text = marks.pop("profile", None)
        print(json.dumps({"child": index, "imports_s": round(imports_s, 3), "warm_up": warm_up,
                          "lifetime_ms": round((time.perf_counter() - forked) * 1e3, 1), "marks_ms": marks}), flush=True)
        if profile_text:
            sys.stderr.write(profile_text)


if __name__ == "__main__":
    main()
