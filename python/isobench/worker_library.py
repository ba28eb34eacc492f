"""libisobench-worker.so through ctypes: Python benchmarks as kernels of the worker itself.

The worker library (include/isobench/worker.h) runs the same worker as the isobench-worker
executable: the same lane protocol, the same CPU and CUDA timers. A Python benchmark is handed
to it as a kernel whose callbacks are Python (the isobench_kernel structure of plugin.h),
registered under the key "MODULE:FUNCTION" that the plan's instances name. ctypes, not an
extension module: one pure-Python package runs under any interpreter (3.11 on CI, 3.12 on the
H200) against the same library.

The library is called through ctypes.CDLL, which releases the GIL while the worker runs; each
callback takes it back (ctypes does). A launch through a callback costs about a microsecond of
host time, beside the launches themselves (docs/python.md).
"""

import ctypes
import json
import sys
import traceback

from . import autotune
from . import benchmark as contract
from . import streams
from . import triton_ir

API_VERSION = 2  # ISOBENCH_WORKER_API_VERSION
_BACKEND_CPU = 0

_CREATE = ctypes.CFUNCTYPE(ctypes.c_void_p)
_SETUP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint64,
                          ctypes.c_void_p, ctypes.c_size_t)
_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_COUNT = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_char_p)
_CHECK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_LAUNCH_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_DESCRIBE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_REPLAY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class _Kernel(ctypes.Structure):
    """isobench_kernel (include/isobench/plugin.h), field for field."""

    _fields_ = [("name", ctypes.c_char_p), ("family", ctypes.c_char_p), ("backend", ctypes.c_int),
                ("description", ctypes.c_char_p), ("axes", ctypes.c_void_p), ("n_axes", ctypes.c_size_t),
                ("create", _CREATE), ("setup", _SETUP), ("launch", _LAUNCH), ("teardown", _RELEASE),
                ("destroy", _RELEASE), ("bytes_per_launch", _COUNT), ("flops_per_launch", _COUNT),
                ("check", _CHECK)]


class _RegisteredKernel(ctypes.Structure):
    """isobench_registered_kernel (include/isobench/worker.h)."""

    _fields_ = [("kernel", ctypes.POINTER(_Kernel)), ("launch_error", _LAUNCH_ERROR), ("describe", _DESCRIBE),
                ("replay", _REPLAY)]


def _write(buffer, size, text):
    data = text.encode("utf-8", "replace")[:max(0, size - 1)]
    ctypes.memmove(buffer, data, len(data))
    ctypes.memset(buffer + len(data), 0, 1)


class _CurrentStream:
    """Makes the worker's stream torch's current stream once per process (isobench.streams)."""

    def __init__(self):
        self.context = None

    def enter(self, stream, device_index):
        torch = sys.modules.get("torch")
        if self.context is not None or torch is None:
            return
        torch.cuda.set_device(device_index)
        self.context = streams.torch_stream(stream, device_index)
        self.context.__enter__()  # for the worker's life: the process exits after it

    @staticmethod
    def synchronize():
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            torch.cuda.synchronize()


class BenchmarkKernel:
    """One Python benchmark (module and set-up function) as a registered kernel: each create()
    is an instance, set up by calling the function, launched by calling what it returned."""

    def __init__(self, module, function_name, function, worker):
        self.label = "%s:%s" % (module, function_name)
        self.function = function
        self.worker = worker
        self.timed = {}      # handle -> contract.Timed
        self.launches = {}   # handle -> timed.launch, the hot path
        self.errors = {}     # handle -> why its last launch failed
        self.pinned = {}     # handle -> the run's pinned choice for it (a describe() of an earlier worker)
        self.chosen = {}     # handle -> its describe(): the autotune configurations its set-up used
        self.next_handle = 1
        self._callbacks = (_CREATE(self._create), _SETUP(self._setup), _LAUNCH(self._launch),
                           _RELEASE(self._teardown), _RELEASE(self._destroy), _CHECK(self._check),
                           _LAUNCH_ERROR(self._launch_error), _DESCRIBE(self._describe), _REPLAY(self._replay))
        create, setup, launch, teardown, destroy, check, launch_error, describe, replay = self._callbacks
        self._name = self.label.encode()
        self._kernel = _Kernel(name=self._name, family=b"python", backend=_BACKEND_CPU, create=create,
                               setup=setup, launch=launch, teardown=teardown, destroy=destroy, check=check)
        self.registered = _RegisteredKernel(kernel=ctypes.pointer(self._kernel), launch_error=launch_error,
                                            describe=describe, replay=replay)

    def _create(self):
        handle = self.next_handle
        self.next_handle += 1
        return handle

    def _setup(self, handle, params_json, stream, seed, error, error_len):
        try:
            params = json.loads(params_json.decode())
            device = "cpu" if stream is None else "cuda:%d" % self.worker.device_index
            if stream is not None:
                self.worker.current_stream.enter(stream, self.worker.device_index)
            self.worker.autotune.begin(self.pinned.get(handle))
            autotune.WATCH.begin(self.pinned.get(handle))
            try:
                timed = contract.set_up(self.function, params, seed, device, stream)
            finally:
                self.chosen[handle] = autotune.describe_record(self.worker.autotune.end(), autotune.WATCH.keyed())
                choices = autotune.WATCH.end()
            self.worker.autotune.check_found()
            autotune.record_choices(choices, triton_ir.artifact_folder())
            autotune.record_replay(autotune.WATCH.replay_record(), triton_ir.artifact_folder())
            if stream is not None:
                folder = triton_ir.artifact_folder()
                if triton_ir.wanted(folder):  # the IR of what it launches: one more launch, untimed
                    triton_ir.record(timed.launch, folder, self.worker.current_stream.synchronize,
                                     defer_sass=True)  # the orchestrator's, after the samples
                self.worker.current_stream.synchronize()  # set-up work done before the first launch
            self.timed[handle] = timed
            self.launches[handle] = timed.launch
            return 0
        except BaseException as failure:  # noqa: B036 - the worker reports it, the process goes on
            traceback.print_exc()
            _write(error, error_len, contract.describe_exception(failure))
            return 1

    def _launch(self, handle):
        try:
            self.launches[handle]()
            return 0
        except BaseException as failure:  # noqa: B036
            self.errors[handle] = contract.describe_exception(failure) + " (traceback in workers.log)"
            traceback.print_exc()
            return 1

    def _launch_error(self, handle, error, error_len):
        _write(error, error_len, self.errors.get(handle, ""))

    def _teardown(self, handle):
        timed = self.timed.get(handle)
        if timed is None or timed.teardown is None:
            return
        try:
            timed.teardown()
        except BaseException:  # noqa: B036 - nothing can fail after the samples; keep the trace
            traceback.print_exc()

    def _destroy(self, handle):
        self.timed.pop(handle, None)
        self.launches.pop(handle, None)
        self.errors.pop(handle, None)
        self.pinned.pop(handle, None)
        self.chosen.pop(handle, None)

    def _replay(self, handle, choice_json):
        self.pinned[handle] = json.loads(choice_json.decode())

    def _describe(self, handle, out, out_len):
        text = json.dumps(self.chosen.get(handle) or {})
        if len(text.encode()) >= out_len:
            return 1
        _write(out, out_len, text)
        return 0

    def _check(self, handle, error, error_len):
        reason = contract.check_reason(self.timed[handle]) if handle in self.timed else "not set up"
        if reason is None:
            return 0
        _write(error, error_len, reason)
        return 1


class WorkerLibrary:
    """The loaded libisobench-worker.so: register benchmarks, then run workers."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.isobench_worker_api_version.restype = ctypes.c_int
        version = self.lib.isobench_worker_api_version()
        if version != API_VERSION:
            raise contract.ContractError("%s speaks worker API %d, this isobench package %d" % (path, version, API_VERSION))
        self.lib.isobench_worker_register.argtypes = [ctypes.c_char_p, ctypes.POINTER(_RegisteredKernel),
                                                      ctypes.c_char_p, ctypes.c_size_t]
        self.lib.isobench_worker_register.restype = ctypes.c_int
        self.lib.isobench_worker_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        self.lib.isobench_worker_main.restype = ctypes.c_int
        self.kernels = []
        self.device_index = 0
        self.current_stream = _CurrentStream()
        self.autotune = autotune.AutotuneLedger()

    def register(self, module, function_name, function):
        kernel = BenchmarkKernel(module, function_name, function, self)
        error = ctypes.create_string_buffer(512)
        key = ("%s:%s" % (module, function_name)).encode()
        if self.lib.isobench_worker_register(key, ctypes.byref(kernel.registered), error, len(error)) != 0:
            raise contract.ContractError(error.value.decode(errors="replace"))
        self.kernels.append(kernel)  # the callbacks must live as long as the process

    def main(self, args):
        """Runs one worker with isobench-worker's arguments; returns its exit code."""
        if "--device" in args:
            self.device_index = int(args[args.index("--device") + 1])
        argv = [b"isobench-worker"] + [a.encode() for a in args]
        array = (ctypes.c_char_p * (len(argv) + 1))(*argv, None)
        return self.lib.isobench_worker_main(len(argv), array)
