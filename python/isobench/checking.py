"""isobench.check: a benchmark's set-up, one launch and its check(), outside any run: for a
benchmark's own tests (the examples' tests under examples/python/ use it on small shapes)."""

from . import benchmark as contract
from .streams import torch_stream


def check(module, function, device="cpu", seed=1, **params):
    """Sets the benchmark up as a worker would, launches it once and runs its check().

    `module` is a loaded module or what a sweep's `python:` holds (a .py path or a module name);
    `device` "cpu" or "cuda" ("cuda:N" is taken too). For CUDA the launch goes to a fresh torch
    stream, made current, as the worker's is. Raises AssertionError with the check's reason when
    the output does not agree, ContractError when the benchmark breaks the contract.
    """
    loaded = contract.load_module(module) if isinstance(module, str) else module
    label = module if isinstance(module, str) else loaded.__name__
    found = contract.resolve_function(loaded, label, function)
    if device == "cpu":
        timed = contract.set_up(found, params, seed, "cpu", None)
        timed.launch()
        reason = contract.check_reason(timed)
    else:
        import torch

        index = int(device.split(":")[1]) if ":" in device else 0
        stream = torch.cuda.Stream(device=index)
        with torch_stream(stream.cuda_stream, index):
            timed = contract.set_up(found, params, seed, "cuda:%d" % index, stream.cuda_stream)
            timed.launch()
            torch.cuda.synchronize()
            reason = contract.check_reason(timed)
    if timed.teardown is not None:
        timed.teardown()
    if reason is not None:
        raise AssertionError("%s.%s%s: %s" % (label, function, params, reason))
