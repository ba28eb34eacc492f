"""A stand-in for torch, for the do_bench route's CPU test of a file that initialises CUDA when
imported (tests/integration/test_pytest_bridge.cpp): only what isobench asks of torch there,
torch.cuda.is_initialized() and synchronize(). Importing cuda_on_import (beside this package)
"initialises CUDA"."""

from . import cuda  # noqa: F401

__version__ = "0.0-fake"
