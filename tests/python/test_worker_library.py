"""isobench.worker_library's callbacks without the C library: what a worker's create, setup,
launch, check and launch_error calls do to a Python benchmark, and how the worker's stream
becomes torch's current stream (with a stand-in for torch that records what it is asked: torch
itself is not installed on CI). The calls through libisobench-worker.so itself are
tests/integration/test_python.cpp's."""

import ctypes
import json
import os
import sys
import types
import unittest

from isobench import autotune, worker_library


class FakeTorch:
    """What _CurrentStream and torch_stream ask of torch, recorded."""

    def __init__(self):
        self.calls = []
        fake = self

        class ExternalStream:
            def __init__(self, stream, device=None):
                fake.calls.append(("ExternalStream", stream, device))

        class StreamContext:
            def __init__(self, stream):
                self.stream = stream

            def __enter__(self):
                fake.calls.append(("enter",))

        self.module = types.ModuleType("torch")
        self.module.cuda = types.SimpleNamespace(
            ExternalStream=ExternalStream, stream=StreamContext,
            set_device=lambda index: fake.calls.append(("set_device", index)),
            is_initialized=lambda: True, synchronize=lambda: fake.calls.append(("synchronize",)))

    def __enter__(self):
        self.saved = sys.modules.get("torch")
        sys.modules["torch"] = self.module
        return self

    def __exit__(self, *exc):
        if self.saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = self.saved


class Worker:
    def __init__(self, device_index=0):
        self.device_index = device_index
        self.current_stream = worker_library._CurrentStream()
        self.autotune = autotune.AutotuneLedger()


def kernel(function, worker=None):
    return worker_library.BenchmarkKernel("/m.py", "f", function, worker or Worker())


def error_buffer():
    buffer = ctypes.create_string_buffer(128)
    return buffer, ctypes.addressof(buffer)


class Callbacks(unittest.TestCase):
    def test_a_cpu_setup_gets_device_cpu_and_no_stream(self):
        seen = {}
        k = kernel(lambda **kw: seen.update(kw) or (lambda: seen.setdefault("launched", True)))
        handle = k._create()
        buffer, address = error_buffer()
        self.assertEqual(k._setup(handle, b'{"n": 3}', None, 7, address, 128), 0)
        self.assertEqual(seen, {"n": 3, "seed": 7, "device": "cpu", "stream": None})
        self.assertEqual(k._launch(handle), 0)
        self.assertTrue(seen["launched"])
        k._teardown(handle)
        k._destroy(handle)
        self.assertEqual(k.timed, {})

    def test_a_cuda_setup_makes_the_stream_current_once_and_synchronizes(self):
        worker = Worker(device_index=2)
        seen = []
        k = kernel(lambda **kw: seen.append(kw) or (lambda: None), worker)
        buffer, address = error_buffer()
        with FakeTorch() as torch:
            for _ in range(2):
                self.assertEqual(k._setup(k._create(), b"{}", 1234, 1, address, 128), 0)
        self.assertEqual(seen[0], {"seed": 1, "device": "cuda:2", "stream": 1234})
        self.assertEqual(torch.calls, [("set_device", 2), ("ExternalStream", 1234, 2), ("enter",), ("synchronize",),
                                       ("synchronize",)])

    def test_without_torch_the_stream_is_only_passed_on(self):
        saved = sys.modules.pop("torch", None)
        try:
            seen = {}
            k = kernel(lambda **kw: seen.update(kw) or (lambda: None))
            buffer, address = error_buffer()
            self.assertEqual(k._setup(k._create(), b"{}", 99, 1, address, 128), 0)
            self.assertEqual(seen["stream"], 99)
            self.assertIsNone(k.worker.current_stream.context)
        finally:
            if saved is not None:
                sys.modules["torch"] = saved

    def test_failures_come_back_as_codes_and_one_line_reasons(self):
        def refuses(**kw):
            raise ValueError("no such dtype")

        k = kernel(refuses)
        buffer, address = error_buffer()
        self.assertEqual(k._setup(k._create(), b"{}", None, 1, address, 128), 1)
        self.assertRegex(buffer.value.decode(), r"^ValueError: no such dtype \(at .*test_worker_library.py:\d+\)$")

        def boom():
            raise RuntimeError("launch broke")

        k = kernel(lambda **kw: boom)
        handle = k._create()
        self.assertEqual(k._setup(handle, b"{}", None, 1, address, 128), 0)
        self.assertEqual(k._launch(handle), 1)
        k._launch_error(handle, address, 128)
        self.assertRegex(buffer.value.decode(), r"^RuntimeError: launch broke \(at .*\) \(traceback in workers.log\)$")

    def test_a_reason_longer_than_the_buffer_is_cut_and_terminated(self):
        k = kernel(lambda **kw: (_ for _ in ()).throw(ValueError("x" * 500)))
        buffer, address = error_buffer()
        self.assertEqual(k._setup(k._create(), b"{}", None, 1, address, 16), 1)
        self.assertEqual(buffer.value.decode(), "ValueError: xxx")

    def test_describe_says_what_the_set_up_autotuned_and_replay_pins_it(self):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_triton"))
        self.addCleanup(sys.path.pop, 0)
        import triton

        def add(n, BLOCK, num_warps, num_stages, num_ctas):
            ran.append(BLOCK)

        ran = []
        module = types.ModuleType("worker_library_test_kernels")
        add.__module__ = module.__name__
        module.add = triton.autotune(configs=[triton.Config({"BLOCK": 1}), triton.Config({"BLOCK": 2})], key=["n"])(add)
        sys.modules[module.__name__] = module
        self.addCleanup(sys.modules.pop, module.__name__)

        def set_up(seed, device, stream):
            module.add(5)
            return lambda: module.add(5)

        k = kernel(set_up)
        out = ctypes.create_string_buffer(4096)
        error, address = error_buffer()
        handle = k._create()
        self.assertEqual(k._describe(handle, ctypes.addressof(out), 4096), 0)
        self.assertEqual(out.value, b"{}")  # nothing set up yet
        self.assertEqual(k._setup(handle, b"{}", None, 1, address, 128), 0, error.value)
        self.assertEqual(k._describe(handle, ctypes.addressof(out), 4096), 0)
        described = json.loads(out.value)
        self.assertEqual(described[autotune.RECORD_KEY][0]["config"]["kwargs"], {"BLOCK": 1})
        self.assertEqual(k._describe(handle, ctypes.addressof(out), 8), 1)  # does not fit
        # Another worker (a fresh cache) whose own autotuning would pick BLOCK 2 replays BLOCK 1.
        module.add.cache = {}
        k.worker.autotune = autotune.AutotuneLedger()
        os.environ["FAKE_TRITON_BEST"] = "1"
        self.addCleanup(os.environ.pop, "FAKE_TRITON_BEST")
        again = k._create()
        k._replay(again, json.dumps(described).encode())
        self.assertEqual(k._setup(again, b"{}", None, 1, address, 128), 0, error.value)
        self.assertEqual(ran, [1, 1])
        self.assertEqual(module.add.benchmarked, 2)  # the first worker's autotuning only

    def test_check_returns_zero_or_the_reason(self):
        class Obj:
            ok = True

            def launch(self):
                pass

            def check(self):
                return None if self.ok else "differs by 3"

        obj = Obj()
        k = kernel(lambda **kw: obj)
        handle = k._create()
        buffer, address = error_buffer()
        k._setup(handle, b"{}", None, 1, address, 128)
        self.assertEqual(k._check(handle, address, 128), 0)
        obj.ok = False
        self.assertEqual(k._check(handle, address, 128), 1)
        self.assertEqual(buffer.value.decode(), "differs by 3")


if __name__ == "__main__":
    unittest.main()
