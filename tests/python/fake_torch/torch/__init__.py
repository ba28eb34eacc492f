"""A stand-in for torch, for the CPU tests of files that touch CUDA when imported (the do_bench
route's, tests/integration/test_pytest_bridge.cpp, and isobench.deferred_cuda's,
tests/python/test_deferred_cuda.py): only what isobench asks of torch there, torch.cuda's
is_initialized(), synchronize(), _lazy_init() and the device queries. A device query "creates a
context" (sets torch.cuda._initialized) through _lazy_init, as torch's does. The modules beside
this package touch it when imported: cuda_on_import needs a context, cuda_props_on_import only
asks about the device."""

from . import cuda  # noqa: F401

__version__ = "0.0-fake"
