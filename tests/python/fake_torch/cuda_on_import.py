"""A module that needs a CUDA context when imported (with the stand-in torch of this folder): it
reaches torch.cuda._lazy_init, as a tensor made on the GPU at import does. Appends the importing
process's id to $DO_BENCH_IMPORTS once its import is done."""

import os

import torch

torch.cuda._lazy_init()  # the line isobench.deferred_cuda names as the caller
if os.environ.get("DO_BENCH_IMPORTS"):
    with open(os.environ["DO_BENCH_IMPORTS"], "a") as f:
        f.write("%d\n" % os.getpid())
