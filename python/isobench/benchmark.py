"""The contract between isobench and a Python benchmark (docs/python.md).

A sweep entry names a module and a set-up function in it. For every instance a worker measures,
it calls, untimed,

    function(**params, seed=seed, device=device, stream=stream)

params: the instance's parameters, as keyword arguments (types from the sweep's YAML);
seed:   the instance's input seed (the same on both sides of an A/B run): fill inputs from it;
device: "cpu" for a CPU benchmark, "cuda:N" for a CUDA one (the worker's GPU);
stream: the CUDA stream to enqueue on, an integer handle (a cudaStream_t), or None on the CPU.

It returns what the worker times, one launch per call: the timed callable itself, or an object
with launch() and, optionally, teardown() (called once, when the worker is done with the
instance) and check() (compares the last launch's output with a reference: returns None, True or
an empty string when it agrees, else says why not, or raises).

This module loads benchmark modules and applies the contract; the zygote (isobench.zygote) and
isobench.check use it, so a benchmark behaves the same under both.
"""

import difflib
import importlib
import importlib.util
import inspect
import os
import sys
import traceback


class ContractError(Exception):
    """A benchmark module or function that does not keep the contract (one line, for people)."""


def is_file_module(module):
    """A sweep's `python:` names a file (an absolute path, as the plan holds it) or a module name."""
    return module.endswith(".py") or "/" in module


def load_module(module):
    """Imports a benchmark module once: an absolute path of a .py file, or an importable name.

    A file's folder goes first on sys.path (as for a script run with `python3 file.py`), so the
    modules beside it import; the file is registered under its stem, or under a longer name when
    a module of that name is loaded already.
    """
    if not is_file_module(module):
        return importlib.import_module(module)
    folder = os.path.dirname(module)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(module))[0]
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == module:
        return loaded
    if loaded is not None:
        name = "isobench_benchmark_%d_%s" % (len(sys.modules), name)
    spec = importlib.util.spec_from_file_location(name, module)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except BaseException:
        del sys.modules[name]
        raise
    return loaded


def describe_exception(error):
    """`Type: message (at file:line)`, one line: the innermost frame is where it went wrong. A
    ContractError is its message: it says what is wrong and where itself."""
    if isinstance(error, ContractError):
        return " ".join(str(error).split())
    text = "%s: %s" % (type(error).__name__, error) if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += " (at %s:%d)" % (frames[-1].filename, frames[-1].lineno)
    return " ".join(text.split())


def resolve_function(loaded, module, function):
    """The set-up function `function` of the loaded module; ContractError when it has none."""
    found = getattr(loaded, function, None)
    if found is None:
        names = [n for n in dir(loaded) if not n.startswith("_") and callable(getattr(loaded, n))]
        close = difflib.get_close_matches(function, names, n=1)
        raise ContractError("%s has no function %s%s" % (module, function,
                                                         " (did you mean %s?)" % close[0] if close else ""))
    if not callable(found):
        raise ContractError("%s.%s is a %s, not a function" % (module, function, type(found).__name__))
    return found


def check_arguments(function, params, device):
    """Whether the set-up function takes the instance's parameters and the worker's three
    arguments (checked in the zygote, before anything is measured); ContractError when not."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: the call will tell
        return
    try:
        signature.bind(**params, seed=0, device=device, stream=None if device == "cpu" else 0)
    except TypeError as error:
        raise ContractError("cannot take the instance's parameters and seed, device, stream: %s" % error) from None


class Timed:
    """What the worker times: launch() once per launch; teardown() and check() when given."""

    __slots__ = ("launch", "teardown", "check")

    def __init__(self, launch, teardown=None, check=None):
        self.launch = launch
        self.teardown = teardown
        self.check = check


def set_up(function, params, seed, device, stream):
    """Calls the set-up function as the contract says and returns the Timed it describes."""
    result = function(**params, seed=seed, device=device, stream=stream)
    launch = getattr(result, "launch", None)
    if callable(launch):
        return Timed(launch, getattr(result, "teardown", None), getattr(result, "check", None))
    if callable(result):
        return Timed(result)
    raise ContractError("returned %s: expected the timed callable, or an object with launch()"
                        % type(result).__name__)


def check_reason(timed):
    """Runs timed.check(): None when the last launch's output agrees (or there is no check),
    else why it does not."""
    if timed.check is None:
        return None
    try:
        verdict = timed.check()
    except BaseException as error:  # noqa: B036 - any failure of a check is its verdict
        return describe_exception(error)
    if verdict is None or verdict is True or verdict == "":
        return None
    if verdict is False:
        return "check() returned False"
    return " ".join(str(verdict).split())
