#!/usr/bin/env python3
"""What a user runs without isobench: one fresh process that imports a folder's softmax_mod.py and
times the 4 shapes of bench/gpu/python_ab_speed.yaml with triton.testing.do_bench_cudagraph
(bench/gpu/python_ab_speed.sh runs it once per side and times the process).

    softmax_do_bench.py FOLDER        prints one JSON line per shape: rows, cols, median ms
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import triton.testing  # noqa: E402

import softmax_mod  # noqa: E402

for rows in (4096, 16384):
    for cols in (2048, 4096):
        op = softmax_mod.softmax(rows=rows, cols=cols, seed=19, device="cuda", stream=None)
        ms = triton.testing.do_bench_cudagraph(op.launch)  # captures on a side stream of its own
        print(json.dumps({"rows": rows, "cols": cols, "median_ms": ms}), flush=True)
