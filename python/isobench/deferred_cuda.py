"""Deferred CUDA: a module that asks torch about the GPU when it is imported (`import flag_gems`)
imported in a zygote, which must never touch CUDA.

    python3 -m isobench.deferred_cuda      this machine's device facts, as one JSON line

A CUDA context made before fork() is unusable in every child, so a zygote may not answer
`torch.cuda.get_device_properties()` itself. The facts come from a fresh interpreter instead
(`Recorder` runs this module as a program: it asks torch, prints, exits, its context gone with
it); from before the user's module is imported until the fork, `install()` makes torch.cuda answer
from them:
is_available, device_count, current_device, get_device_properties, get_device_capability and
get_device_name, with PYTORCH_NVML_BASED_CUDA_CHECK=1 for torch's own availability checks (NVML,
no context), and Triton's triton.runtime.driver.active.utils.get_device_properties where Triton is
installed. torch.cuda._lazy_init, which everything that needs a context goes through (a tensor
on the GPU, a stream), is trapped: it raises CudaTouched and names its caller (`callers`), and the
zygote then leaves that module to its workers. Each forked worker calls `restore()` first: the real
functions are back, and a stand-in that an import kept a reference to passes through to them.

A zygote started before its plan does not know whether the file it imports asks about the device:
`install_when_imported()` installs the same stand-ins once torch is imported (if it ever is), with
the facts recorded at the first question (`shared_recorder()`, the one the load then uses too). A
file that asked nothing is left as a plain import left it (`withdraw()`): no fresh interpreter, the
real functions back, also where a module bound them by name.
"""

import json
import os
import subprocess
import sys
import time

_NVML_CHECK = "PYTORCH_NVML_BASED_CUDA_CHECK"
# What torch.cuda answers from the facts while a module is imported; _lazy_init is trapped.
ANSWERED = ("is_available", "device_count", "current_device", "get_device_properties",
            "get_device_capability", "get_device_name")
# Those of them that initialise CUDA in torch (they reach _lazy_init: torch.cuda.is_initialized()
# then holds), and _lazy_init itself: a plain import that asked one of these left CUDA initialised.
INITIALISING = ("current_device", "get_device_properties", "get_device_capability", "get_device_name", "_lazy_init")


class CudaTouched(RuntimeError):
    """torch.cuda._lazy_init was reached while a module was imported with CUDA deferred. A
    RuntimeError, as torch's own failures to initialise CUDA are, so that pytest and the importer
    handle it as they would one of those (the zygote reads `callers` either way)."""


class FactsError(RuntimeError):
    pass


def _jsonable(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)  # torch's uuid object, and anything else a later torch adds


def facts_here():
    """The device facts, asked of torch in this process (which then holds a CUDA context)."""
    import torch
    cuda = torch.cuda
    facts = {"torch": getattr(torch, "__version__", "?"), "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
             "is_available": bool(cuda.is_available()), "device_count": 0, "current_device": 0, "devices": []}
    if facts["is_available"]:
        facts["device_count"] = int(cuda.device_count())
        facts["current_device"] = int(cuda.current_device())
        for index in range(facts["device_count"]):
            facts["devices"].append(_attributes(cuda.get_device_properties(index)))
        facts["triton_devices"] = _triton_devices(facts["device_count"])
    return facts


def _triton_utils():
    """Triton's driver utilities (triton.runtime.driver.active.utils), or None where Triton is not
    installed or has no such driver. Makes Triton's driver object if it was not made yet."""
    try:
        import importlib
        return importlib.import_module("triton.runtime").driver.active.utils
    except Exception:  # noqa: BLE001 - no Triton, or one without a driver here
        return None


def _triton_devices(count):
    """What Triton's own device query answers (utils.get_device_properties: multiprocessor_count,
    max_shared_mem, max_num_regs, warpSize, ...), which importers call besides torch's: it asks the
    CUDA driver, which a zygote has not initialised."""
    utils = _triton_utils()
    if utils is None or not hasattr(utils, "get_device_properties"):
        return None
    try:
        return [{str(k): _jsonable(v) for k, v in dict(utils.get_device_properties(i)).items()} for i in range(count)]
    except Exception:  # noqa: BLE001 - then it stays unanswered
        return None


def _attributes(properties):
    """The public data attributes of a _CudaDeviceProperties, whatever this torch's are."""
    recorded = {}
    for name in dir(properties):
        try:
            value = getattr(properties, name)
        except Exception:  # noqa: BLE001 - one this device does not have
            continue
        if not name.startswith("_") and not callable(value):
            recorded[name] = _jsonable(value)
    return recorded


class Recorder:
    """`python3 -m isobench.deferred_cuda` started now, its facts read when first needed: the
    zygote starts it before its own imports, so that the two overlap."""

    def __init__(self):
        self.began = time.monotonic()
        env = dict(os.environ)  # this isobench first, as the zygote's own path has it
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join([package] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        self.process = subprocess.Popen([sys.executable, "-m", "isobench.deferred_cuda"], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.facts, self.seconds, self.error = None, None, None

    def wait(self):
        """The facts; FactsError (the same each time it is asked again) where they could not be had."""
        if self.error is not None:
            raise self.error
        if self.facts is None:
            out, err = self.process.communicate()
            self.seconds = time.monotonic() - self.began
            lines = out.decode(errors="replace").strip().splitlines()
            try:
                self.facts = json.loads(lines[-1]) if self.process.returncode == 0 and lines else None
            except ValueError:
                self.facts = None
            if not isinstance(self.facts, dict):
                why = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
                self.error = FactsError("python -m isobench.deferred_cuda ended with exit code %d: %s"
                                        % (self.process.returncode, why))
                raise self.error
        return self.facts


class DeviceProperties:
    """What get_device_properties() answers while CUDA is deferred: the recorded attributes of
    torch's _CudaDeviceProperties (name, major, minor, total_memory, multi_processor_count, ...)."""

    def __init__(self, recorded):
        self.__dict__.update(recorded)

    def __repr__(self):
        shown = ", ".join("%s=%r" % (k, v) for k, v in self.__dict__.items() if k in ("name", "major", "minor"))
        return "_CudaDeviceProperties(%s, total_memory=%dMB, multi_processor_count=%s, recorded)" % (
            shown, self.__dict__.get("total_memory", 0) // (1024 * 1024), self.__dict__.get("multi_processor_count"))


_RECORDER = []  # this process's Recorder, started on first need (shared_recorder)


def shared_recorder():
    """The process's Recorder, started now if it was not yet: the early import's first question
    and the load's deferred imports wait on the same fresh interpreter."""
    if not _RECORDER:
        _RECORDER.append(Recorder())
    return _RECORDER[0]


def started_recorder():
    """The process's Recorder where one was started, else None (starting none)."""
    return _RECORDER[0] if _RECORDER else None


class _State:
    active = False
    facts = None
    pending = None  # a Recorder whose facts are read at the first question (install_when_imported)
    asked = []  # the names of the stand-ins that answered or trapped while active
    stand_ins = []  # (stand-in, the real function) of every stand-in made since the last restore()
    callers = []  # "file:line" of each call that reached torch.cuda._lazy_init while active
    patched = []  # (module, name, original): what restore() puts back
    nvml_check = None  # PYTORCH_NVML_BASED_CUDA_CHECK as it was before install()


def callers():
    return list(_State.callers)


def clear_callers():
    del _State.callers[:]


def asked():
    """The torch.cuda functions (and Triton's query) asked while CUDA was deferred, in order."""
    return list(_State.asked)


def clear_asked():
    del _State.asked[:]


def _facts():
    """The facts, read from the pending Recorder at the first question (FactsError where it failed:
    the question then fails as torch's own would without a device)."""
    if _State.facts is None:
        _State.facts = _State.pending.wait()
        if "triton" in sys.modules:  # a file that imports no Triton gets none imported here
            _patch_triton(_State.facts)
    return _State.facts


def active():
    return _State.active


def _index(device):
    current = _facts()["current_device"]
    if device is None:
        return current
    if isinstance(device, int):
        index = device
    elif isinstance(device, str):
        kind, _, number = device.partition(":")
        if kind != "cuda":
            raise ValueError("Expected a cuda device, but got: %s" % device)
        index = int(number) if number else current
    else:  # a torch.device
        if getattr(device, "type", "cuda") != "cuda":
            raise ValueError("Expected a cuda device, but got: %s" % device)
        index = device.index if device.index is not None else current
    if not 0 <= index < _facts()["device_count"]:
        raise AssertionError("Invalid device id")
    return index


def _properties(device=None):
    return DeviceProperties(_facts()["devices"][_index(device)])


_ANSWERS = {
    "is_available": lambda: _facts()["is_available"],
    "device_count": lambda: _facts()["device_count"],
    "current_device": lambda: _facts()["current_device"],
    "get_device_properties": _properties,
    "get_device_capability": lambda device=None: (_properties(device).major, _properties(device).minor),
    "get_device_name": lambda device=None: _properties(device).name,
}


def _caller():
    """file:line of the nearest frame outside torch and this module: the code that wanted a CUDA
    context (torch reaches _lazy_init from C++ too, for a tensor on the GPU, with that code's frame
    on top)."""
    import torch
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    frame = sys._getframe(2)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        frozen = frame.f_code.co_filename.startswith("<frozen ")  # importlib's own frames
        if not frozen and not path.startswith(torch_dir) and path != os.path.abspath(__file__):
            return "%s:%d" % (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return "?"


def _triton_properties(device):
    return dict(_facts()["triton_devices"][_index(device)])


def _stand_in(name, real, answer):

    def stand_in(*args, **kwargs):
        if not _State.active:
            return real(*args, **kwargs)
        _State.asked.append(name)
        if answer is None:  # _lazy_init
            where = _caller()
            _State.callers.append(where)
            raise CudaTouched("torch.cuda._lazy_init reached at %s while CUDA is deferred (isobench's zygote): "
                              "this import needs a CUDA context" % where)
        return answer(*args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    stand_in.__doc__ = real.__doc__
    stand_in.__wrapped__ = real
    _State.stand_ins.append((stand_in, real))
    return stand_in


def install(facts, pending=None):
    """torch.cuda answers from `facts` and traps _lazy_init, in torch.cuda and wherever torch's own
    modules bound those functions by name (torch.cuda.memory, torch.cuda.random: `from . import
    _lazy_init`). Imports torch if it is not yet imported. `facts` None: read from the Recorder
    `pending` at the first question."""
    if _State.active:
        return
    _State.nvml_check = os.environ.get(_NVML_CHECK)
    os.environ[_NVML_CHECK] = "1"
    import torch
    cuda = torch.cuda
    originals = {name: getattr(cuda, name) for name in ANSWERED + ("_lazy_init",) if hasattr(cuda, name)}
    stand_ins = {name: _stand_in(name, real, _ANSWERS.get(name)) for name, real in originals.items()}
    by_id = {id(real): name for name, real in originals.items()}
    _State.facts, _State.pending, _State.patched = facts, pending, []
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "torch" or module_name.startswith("torch.")):
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for attribute, value in list(namespace.items()):
            name = by_id.get(id(value))
            if name is not None and value is originals[name]:
                _State.patched.append((module, attribute, value))
                setattr(module, attribute, stand_ins[name])
    _State.active = True
    if facts is not None:
        _patch_triton(facts)


def _patch_triton(facts):
    """Triton's own query, where the facts have its answers: its driver object is made now, with
    torch's answers above (its is_available, current_device), and kept by the workers. Where the
    facts are read at the first question, that is when, where the file imported Triton by then: a
    file that asks nothing does not make it (and a Triton query before torch's first goes to the
    driver, which the zygote's driver check then says)."""
    utils = _triton_utils() if facts.get("triton_devices") else None
    if utils is not None and hasattr(utils, "get_device_properties"):
        real = utils.get_device_properties
        _State.patched.append((utils, "get_device_properties", real))
        utils.get_device_properties = _stand_in("get_device_properties", real, _triton_properties)


class _AfterImport:
    """A meta path finder that runs `then()` once the module `name` has been executed (its loader
    wrapped), and leaves sys.meta_path when it has found it."""

    def __init__(self, name, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        import importlib.util
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the finders after this one
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader, then = spec.loader, self.then

        class Then:
            def __getattr__(self, attribute):  # get_resource_reader, is_package, ...: the loader's
                return getattr(loader, attribute)

            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                then()

        spec.loader = Then()
        return spec


def install_when_imported():
    """install() with the facts read at the first question, now where torch is imported, else
    once it is (a file that never imports torch loads nothing for it)."""
    if _State.active or any(isinstance(f, _AfterImport) for f in sys.meta_path):
        return
    if "torch" in sys.modules:
        install(None, _LazyRecorder())
    else:
        sys.meta_path.insert(0, _AfterImport("torch", lambda: install(None, _LazyRecorder())))


class _LazyRecorder:
    """shared_recorder(), started when first waited on: the facts of a file that asks nothing cost
    no fresh interpreter."""

    def wait(self):
        return shared_recorder().wait()


def withdraw():
    """After an import that asked nothing while CUDA was deferred (install_when_imported): the real
    functions back, also in the modules outside torch that bound a stand-in by name (module
    globals) and in Triton's driver object, and the finder gone, so the file stands as a plain
    import left it (a stand-in kept elsewhere passes through to torch's own, as in a worker)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterImport)]
    stand_ins = {id(module_value[0]): module_value for module_value in _State.stand_ins}
    restore()
    if not stand_ins:
        return
    # Triton's driver object binds torch.cuda's functions when it is made (its get_current_device,
    # called at every launch): one made during the import holds stand-ins too.
    config = getattr(sys.modules.get("triton.runtime.driver"), "driver", None)
    drivers = [d for d in (getattr(config, "_active", None), getattr(config, "_default", None)) if d is not None]
    for holder in list(sys.modules.values()) + drivers:
        namespace = getattr(holder, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for attribute, value in list(namespace.items()):
            found = stand_ins.get(id(value))
            if found is not None and found[0] is value:
                namespace[attribute] = found[1]


def restore():
    """The real torch.cuda back (a forked worker's first step); a no-op where install() never ran."""
    if not _State.active:
        return
    _State.active = False
    _State.facts, _State.pending, _State.stand_ins = None, None, []
    for module, attribute, original in _State.patched:
        setattr(module, attribute, original)
    _State.patched = []
    if _State.nvml_check is None:
        os.environ.pop(_NVML_CHECK, None)
    else:
        os.environ[_NVML_CHECK] = _State.nvml_check


def driver_initialised():
    """Whether this process initialised the CUDA driver (cuInit), asked of a libcuda already loaded
    without loading it: cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED (3) until cuInit. A
    driver initialised before fork() is unusable in the children, whoever initialised it (Triton's
    driver, a library of its own), while torch.cuda.is_initialized() sees only torch's own."""
    import ctypes
    try:
        libcuda = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return False
    count = ctypes.c_int(0)
    return libcuda.cuDeviceGetCount(ctypes.byref(count)) != 3


def main():
    from . import bytecode
    bytecode.keep()  # the zygote's torch, from the same bytecode cache
    sys.stdout.write(json.dumps(facts_here()) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # the facts are out: torch's finalization and the context's teardown are no one's wait
