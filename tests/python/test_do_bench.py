"""isobench.do_bench without a worker, on a do_bench suite written for these tests
(data/do_bench_suite.py) and the stand-in triton.testing (fake_triton/triton/testing.py): the
collection lists each test's timing calls under stable names, an instance's set-up stops its test
inside the call it names and launch() runs that call's callable there, the call returns a value
of do_bench's kind, autotuner calls pass through to the stand-in's own do_bench, a file that
times nothing, or a wrong timing, is one line, and a worker's set-up of a CUDA instance
(worker_library's callback) records the Triton IR of what the call launches
(data/do_bench_kernels.py). Through orchestrate (the A/B with a planted
slowdown, exit 2 on bad input): tests/integration/test_pytest_bridge.cpp."""

import ctypes
import io
import json
import os
import sys
import shutil
import tempfile
import threading
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_triton"))

import triton.testing  # noqa: E402 - the stand-in, from the path above

from isobench import autotune, do_bench, pytest_bridge, triton_ir, worker_library  # noqa: E402

SUITE = os.path.join(HERE, "data", "do_bench_suite.py")
NONE = os.path.join(HERE, "data", "do_bench_none.py")
SOFTMAX = os.path.join(HERE, "data", "do_bench_softmax.py")
KERNELS = os.path.join(HERE, "data", "do_bench_kernels.py")


def quietly(function, *args, **kwargs):
    with redirect_stdout(io.StringIO()):
        return function(*args, **kwargs)


def calls_of(answer):
    return {t["test"]: [c["name"] for c in t.get("calls", [])] for t in answer["tests"]}


class Listing(unittest.TestCase):
    def test_each_timing_call_is_named_by_what_it_measures_and_the_names_are_stable(self):
        first = quietly(pytest_bridge.collect_suite, SUITE, "", [], "auto")
        self.assertEqual(first["timing"], "do_bench")
        calls = calls_of(first)
        self.assertEqual(calls["test_flaggems_like"][:4],
                         ["softmax/torch/float16/64x64", "softmax/gems/float16/64x64",
                          "softmax/torch/float16/256x8", "softmax/gems/float16/256x8"])
        self.assertEqual(len(calls["test_flaggems_like"]), 8)
        # the autotuner's two calls per test are not the test's
        self.assertEqual(calls["test_plain[1]"], ["bench_op#1", "bench_op#2"])
        self.assertEqual(calls["test_graph"], ["test_graph#1"])
        self.assertEqual(calls["test_nothing_timed"], [])
        kinds = {c["name"]: c["kind"] for t in first["tests"] for c in t.get("calls", [])}
        self.assertEqual(kinds["test_graph#1"], "do_bench_cudagraph")
        self.assertEqual(calls_of(quietly(pytest_bridge.collect_suite, SUITE, "", [], "do_bench")), calls)

    def test_the_torch_operator_calls_of_a_flaggems_benchmark_are_its_controls(self):
        listed = quietly(pytest_bridge.collect_suite, SUITE, "", [], "do_bench")
        controls = sorted(c["name"] for t in listed["tests"] for c in t.get("calls", []) if c.get("control"))
        self.assertEqual(controls, ["softmax/torch/float16/256x8", "softmax/torch/float16/64x64",
                                    "softmax/torch/float32/256x8", "softmax/torch/float32/64x64"])
        # a call no rule tells a control of (any suite but FlagGems') is none: no key at all
        plain = [c for t in listed["tests"] if t["test"] == "test_plain[1]" for c in t["calls"]]
        self.assertTrue(plain and all("control" not in c for c in plain))

    def test_the_listing_times_nothing(self):
        before = dict(triton.testing.CALLS)
        quietly(pytest_bridge.collect_suite, SUITE, "graph", [], "do_bench")
        self.assertEqual(triton.testing.CALLS, before)

    def test_a_file_that_times_nothing_is_refused_in_one_line(self):
        with self.assertRaises(pytest_bridge.BridgeError) as caught:
            quietly(pytest_bridge.collect_suite, NONE, "", [], "do_bench")
        self.assertEqual(str(caught.exception), NONE + ": no collected test times through triton.testing.do_bench "
                         "or do_bench_cudagraph (1 collected)")
        self.assertEqual(quietly(pytest_bridge.collect_suite, NONE, "", [], "auto")["timing"], "fixture")

    def test_collect_from_the_command_line_detects_the_timing_unless_told(self):
        for extra, timing in (([], "do_bench"), (["--timing", "fixture"], "fixture")):
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(pytest_bridge._main(["collect", SUITE] + extra), 0)
            self.assertEqual(json.loads(out.getvalue())["timing"], timing, extra)

    def test_a_wrong_timing_is_refused(self):
        with self.assertRaises(pytest_bridge.BridgeError) as caught:
            pytest_bridge.collect_suite(SUITE, "", [], "fast")
        self.assertIn("--timing fast: expected one of auto, fixture, do_bench", str(caught.exception))


class InPlace(unittest.TestCase):
    def setUp(self):
        self.log = tempfile.NamedTemporaryFile(delete=False, suffix=".txt").name
        os.environ["DO_BENCH_LOG"] = self.log

    def tearDown(self):
        os.environ.pop("DO_BENCH_LOG")
        os.unlink(self.log)

    def logged(self):
        with open(self.log) as f:
            return [line.split()[:3] for line in f]

    def set_up(self, test, call, **params):
        return quietly(do_bench.DoBenchTest(SUITE, test), 0, "cpu", None, call=call, **params)

    def test_the_call_is_timed_inside_the_test_and_returns_do_benchs_kind(self):
        before = dict(triton.testing.CALLS)
        instance = self.set_up("test_plain[1]", "bench_op#2", n=1)
        # the test waits inside do_bench: its thread lives, and the first call went on already
        self.assertTrue(instance.run.thread.is_alive())
        self.assertEqual(self.logged(), [["test_plain[1]", "add", "list3"]])
        seen = []
        instance.run.fn = (lambda inner: lambda: (seen.append(threading.current_thread().name), inner()))(instance.run.fn)
        quietly(instance.launch)
        quietly(instance.launch)
        self.assertEqual(len(seen), 2)
        quietly(instance.teardown)
        self.assertFalse(instance.run.thread.is_alive())
        # let go, the call returned a list (quantiles=) and the test went on to its end
        self.assertEqual(self.logged(), [["test_plain[1]", "add", "list3"], ["test_plain[1]", "mul", "list3"]])
        # the test's own calls never reached the stand-in's do_bench; the autotuner's two did
        self.assertEqual(triton.testing.CALLS["do_bench"], before["do_bench"] + 2)

    def test_a_float_for_a_plain_call_and_one_test_waits_at_a_time(self):
        first = self.set_up("test_flaggems_like", "softmax/gems/float32/64x64")
        second = self.set_up("test_graph", "test_graph#1")
        self.assertFalse(first.run.thread.is_alive())  # let go when the second was set up
        self.assertIn(["test_flaggems_like", "float32/64x64", "float"], self.logged())
        quietly(first.launch)  # back at its call: the other is let go
        self.assertTrue(first.run.thread.is_alive())
        self.assertFalse(second.run.thread.is_alive())
        self.assertIn(["test_graph", "graph", "float"], self.logged())
        quietly(first.teardown)

    def test_a_call_the_test_does_not_make_names_the_calls_it_made(self):
        with self.assertRaises(do_bench.DoBenchError) as caught:
            self.set_up("test_plain[2]", "bench_op#3", n=2)
        self.assertEqual(str(caught.exception), SUITE + "::test_plain[2] made no timing call named bench_op#3 "
                         "(its calls here: bench_op#1, bench_op#2)")

    def test_a_later_call_of_the_same_test_takes_the_stopped_test_forward(self):
        runs = tempfile.NamedTemporaryFile(delete=False, suffix=".txt").name
        os.environ["DO_BENCH_RUNS"] = runs
        try:
            test = do_bench.DoBenchTest(SOFTMAX, "test_softmax")
            names = ["softmax/%s/float16/1024x1024" % impl for impl in ("torch", "gems")] + \
                ["softmax/gems/float32/65536x64", "softmax/torch/bfloat16/1024x1024"]
            instances = []
            for name in names:  # as a worker whose tasks list them in call order
                instance = quietly(test, 0, "cpu", None, call=name)
                quietly(instance.launch)
                self.assertIs(do_bench.DoBenchInstance.holder, instance)
                instances.append(instance)
            self.assertIs(instances[1].run, instances[0].run)
            self.assertEqual(instances[0].run.seen[-1], names[-1])
            with open(runs) as f:
                self.assertEqual(len(f.read().split()), 1)  # the test ran once for all four calls
            # an earlier call than the one it waits at: the test runs again, from the start
            again = quietly(test, 0, "cpu", None, call=names[2])
            self.assertFalse(instances[0].run.thread.is_alive())
            self.assertIsNot(again.run, instances[0].run)
            with open(runs) as f:
                self.assertEqual(len(f.read().split()), 2)
            # a call it does not make after the one it waits at: the test ends, the calls named
            with self.assertRaises(do_bench.DoBenchError) as caught:
                quietly(test, 0, "cpu", None, call="softmax/gems/float64/1x1")
            self.assertIn("made no timing call named softmax/gems/float64/1x1", str(caught.exception))
            self.assertIsNone(do_bench.DoBenchInstance.holder)
        finally:
            os.environ.pop("DO_BENCH_RUNS")
            os.unlink(runs)

    def test_a_call_moved_on_returns_a_value_of_its_kind(self):
        test = do_bench.DoBenchTest(SUITE, "test_plain[1]")
        first = quietly(test, 0, "cpu", None, call="bench_op#1", n=1)
        quietly(first.launch)
        second = quietly(test, 0, "cpu", None, call="bench_op#2", n=1)
        self.assertIs(second.run, first.run)
        self.assertEqual(self.logged(), [["test_plain[1]", "add", "list3"]])
        quietly(second.teardown)
        self.assertEqual(self.logged(), [["test_plain[1]", "add", "list3"], ["test_plain[1]", "mul", "list3"]])

    def test_the_kind_follows_arguments_given_by_position_too(self):
        original = triton.testing.do_bench
        original = getattr(original, "isobench_original", original)
        keywords = do_bench.keywords_of(original, (25, 100, None, [0.5, 0.2]), {})
        self.assertEqual(do_bench.answer(keywords, 2.0), [2.0, 2.0])
        self.assertEqual(do_bench.answer(do_bench.keywords_of(original, (), {"return_mode": "all"}), 2.0), [2.0])
        self.assertEqual(do_bench.answer({}, 2), 2.0)

    def test_calls_outside_a_test_pass_through(self):
        do_bench.install()
        before = triton.testing.CALLS["do_bench"]
        self.assertIsInstance(triton.testing.do_bench(lambda: None, quantiles=[0.5, 0.8]), list)
        self.assertEqual(triton.testing.CALLS["do_bench"], before + 1)


class Worker:
    """What worker_library's set-up callback asks of the worker (worker_library.WorkerLibrary)."""

    def __init__(self):
        self.device_index = 0
        self.current_stream = worker_library._CurrentStream()
        self.autotune = autotune.AutotuneLedger()


class IrOfTheCall(unittest.TestCase):
    """A worker's set-up of a do_bench instance through worker_library's callback, as for a CUDA
    instance (a stream; no torch here, so the stream is only passed on): the side's first worker
    records the Triton IR of what the call's callable launches into the instance's artifact
    folder (ISOBENCH_ARTIFACT_DIR, which the worker sets with setenv before each set-up)."""

    STREAM = 0x5000
    GEMS, TORCH = "test_softmax_kernels#2", "test_softmax_kernels#1"

    def setUp(self):
        self.assertNotIn("torch", sys.modules)
        self.root = tempfile.mkdtemp()
        self.libc = ctypes.CDLL(None)
        self.libc.setenv.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        self.libc.unsetenv.argtypes = [ctypes.c_char_p]

    def tearDown(self):
        if do_bench.DoBenchInstance.holder is not None:
            do_bench.DoBenchInstance.holder.release()
        suite = self.suite()
        if suite is not None:  # the process's state, as a fresh worker's: nothing tuned, nothing called
            suite.GEMS_CALLS.clear()
            suite._chosen.clear()
        self.libc.unsetenv(b"ISOBENCH_ARTIFACT_DIR")
        shutil.rmtree(self.root, ignore_errors=True)

    def set_up(self, call, folder):
        """One worker's set-up of the instance `call`, its artifact folder `folder`: the kernel
        and its handle."""
        self.libc.setenv(b"ISOBENCH_ARTIFACT_DIR", folder.encode(), 1)
        test = do_bench.DoBenchTest(KERNELS, "test_softmax_kernels")
        kernel = worker_library.BenchmarkKernel(KERNELS, "test_softmax_kernels", test, Worker())
        handle = kernel._create()
        error = ctypes.create_string_buffer(512)
        code = quietly(kernel._setup, handle, json.dumps({"call": call}).encode(), self.STREAM, 0,
                       ctypes.addressof(error), len(error))
        self.assertEqual(code, 0, error.value)
        return kernel, handle

    @staticmethod
    def suite():
        return next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == KERNELS), None)

    @staticmethod
    def index(folder):
        with open(os.path.join(folder, triton_ir.FOLDER, triton_ir.INDEX)) as f:
            return json.load(f)

    def test_the_first_worker_records_what_the_call_launches_not_what_its_tuner_did(self):
        gems = os.path.join(self.root, "gems")
        kernel, handle = self.set_up(self.GEMS, gems)
        index = self.index(gems)
        # the call's launches, in order; not the block sizes its tuning step launched through the
        # do_bench calls that passed through (256 and 128, twice each, in the call's first call)
        self.assertEqual([(e["order"], e["name"], e["constants"]) for e in index["launches"]],
                         [(0, "softmax_kernel", {"BLOCK": 128}), (1, "norm_kernel", {"BLOCK": 32})])
        first, second = index["launches"]
        self.assertEqual(first["files"], ["0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.%s" % stage
                                          for stage in triton_ir.STAGES])
        self.assertEqual(second["num_warps"], 8)
        with open(os.path.join(gems, triton_ir.FOLDER, "1-norm_kernel-w8-s3-BLOCK32/norm_kernel.ttgir")) as f:
            self.assertEqual(f.read(), "// ttgir norm_kernel BLOCK=32 contract\n")
        # the SASS is the orchestrator's, after the samples: the cubin is left for it
        self.assertEqual(first["cubin"], "0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.cubin")
        # the set-up called the callable twice (its first call, then the one recorded), and the
        # launch hook is gone before any timed launch
        self.assertEqual(len(self.suite().GEMS_CALLS), 2)
        self.assertIsNone(triton.knobs.runtime.launch_enter_hook)
        for _ in range(3):
            self.assertEqual(quietly(kernel._launch, handle), 0)
        self.assertEqual(len(self.suite().GEMS_CALLS), 5)
        self.assertEqual(self.index(gems), index)
        # a call that launches nothing of Triton's (a FlagGems torch operator's): an empty record
        torch = os.path.join(self.root, "torch")
        self.set_up(self.TORCH, torch)
        self.assertEqual(self.index(torch), {"launches": [], "schema_version": triton_ir.SCHEMA_VERSION})

    def test_a_later_worker_of_the_side_leaves_the_record_as_the_first_wrote_it(self):
        folder = os.path.join(self.root, "gems")
        self.set_up(self.GEMS, folder)
        calls = len(self.suite().GEMS_CALLS)
        path = os.path.join(folder, triton_ir.FOLDER, triton_ir.INDEX)
        with open(path, "w") as f:
            f.write('{"written by": "the first worker"}\n')
        os.remove(os.path.join(folder, triton_ir.FOLDER, "0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.ttgir"))
        self.set_up(self.GEMS, folder)  # another worker of the side: the same instance, the same folder
        self.assertEqual(self.index(folder), {"written by": "the first worker"})
        self.assertFalse(os.path.exists(os.path.join(folder, triton_ir.FOLDER,
                                                     "0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.ttgir")))
        self.assertEqual(len(self.suite().GEMS_CALLS), calls + 1)  # its first call only: nothing recorded


if __name__ == "__main__":
    unittest.main()
