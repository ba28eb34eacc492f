"""isobench for Python benchmarks (docs/python.md).

A sweep's `python:` entry names a module and a set-up function; isobench imports the module once
per side of a run, in a zygote, and forks a fresh worker process for every sample or batch,
which times what the function returns with the same timers as isobench's own kernels:

    benchmarks:
      - python: kernels.py
        function: softmax
        axes: {rows: [1024, 8192], cols: 4096}

    def softmax(rows, cols, seed, device, stream):
        x = torch.randn(rows, cols, device=device, generator=torch.Generator(device).manual_seed(seed))
        return lambda: torch.softmax(x, dim=-1)

The worker is started by `orchestrate`, never by hand; this package needs no installation (the
orchestrator puts its build's copy on the zygote's PYTHONPATH). Installed with isobench (`pip
install .` from a checkout, or the wheel: docs/install.md), it gives a benchmark's own tests
`isobench.check` and `isobench.torch_stream`.
"""

from .benchmark import ContractError
from .checking import check
from .streams import torch_stream

__version__ = "0.1.0"
__all__ = ["ContractError", "check", "torch_stream", "__version__"]
