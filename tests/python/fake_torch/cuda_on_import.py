"""A module that "initialises CUDA" when imported, as `import flag_gems` does (with the stand-in
torch of this folder), and appends the importing process's id to $DO_BENCH_IMPORTS."""

import os

import torch

torch.cuda._initialized = True
if os.environ.get("DO_BENCH_IMPORTS"):
    with open(os.environ["DO_BENCH_IMPORTS"], "a") as f:
        f.write("%d\n" % os.getpid())
