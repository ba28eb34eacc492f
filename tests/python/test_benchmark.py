"""isobench.benchmark, the contract between isobench and a Python benchmark (python/isobench/),
without a worker: loading modules, resolving and checking set-up functions, what a set-up
returns, what a check says. The whole path through a zygote is tests/integration/test_python.cpp."""

import os
import sys
import tempfile
import unittest

from isobench import benchmark as contract


class ModuleLoading(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.addCleanup(lambda: sys.path.remove(self.dir.name) if self.dir.name in sys.path else None)

    def write(self, relative, text):
        path = os.path.join(self.dir.name, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_a_file_is_loaded_once_with_its_folder_on_the_path(self):
        self.write("helper_for_isobench_test.py", "VALUE = 7\n")
        path = self.write("bench_for_isobench_test.py", "import helper_for_isobench_test\nVALUE = helper_for_isobench_test.VALUE\n")
        first = contract.load_module(path)
        self.assertEqual(first.VALUE, 7)
        self.assertIs(contract.load_module(path), first)
        self.assertEqual(first.__name__, "bench_for_isobench_test")

    def test_a_file_named_like_a_loaded_module_gets_a_name_of_its_own(self):
        path = self.write("os.py", "MINE = True\n")
        loaded = contract.load_module(path)
        self.assertTrue(loaded.MINE)
        self.assertIsNot(sys.modules["os"], loaded)
        self.assertTrue(loaded.__name__.startswith("isobench_benchmark_"))

    def test_a_module_name_is_imported(self):
        self.assertIs(contract.load_module("json"), sys.modules["json"])

    def test_a_file_that_fails_to_import_is_not_left_half_loaded(self):
        path = self.write("broken_for_isobench_test.py", "raise ValueError('no')\n")
        with self.assertRaises(ValueError):
            contract.load_module(path)
        self.assertNotIn("broken_for_isobench_test", sys.modules)

    def test_is_file_module(self):
        self.assertTrue(contract.is_file_module("/a/b.py"))
        self.assertTrue(contract.is_file_module("/a/b"))
        self.assertFalse(contract.is_file_module("pkg.kernels"))


def softmax(rows, cols, seed, device, stream):
    return lambda: rows * cols


class Object:
    def __init__(self):
        self.launched = 0

    def launch(self):
        self.launched += 1

    def teardown(self):
        pass

    def check(self):
        return None


class Contract(unittest.TestCase):
    def test_resolve_function_suggests_a_close_name(self):
        module = sys.modules[__name__]
        self.assertIs(contract.resolve_function(module, "m", "softmax"), softmax)
        with self.assertRaisesRegex(contract.ContractError, r"^m has no function softmx \(did you mean softmax\?\)$"):
            contract.resolve_function(module, "m", "softmx")
        with self.assertRaisesRegex(contract.ContractError, r"^m.unittest is a module, not a function$"):
            contract.resolve_function(module, "m", "unittest")

    def test_check_arguments_binds_params_and_the_three_worker_arguments(self):
        contract.check_arguments(softmax, {"rows": 1, "cols": 2}, "cpu")
        with self.assertRaisesRegex(contract.ContractError, "unexpected keyword argument 'dtype'"):
            contract.check_arguments(softmax, {"rows": 1, "cols": 2, "dtype": "bf16"}, "cpu")
        with self.assertRaisesRegex(contract.ContractError, "missing a required argument: 'cols'"):
            contract.check_arguments(softmax, {"rows": 1}, "cuda")
        contract.check_arguments(lambda **kw: None, {"anything": 1}, "cpu")

    def test_set_up_takes_a_callable_or_an_object_with_launch(self):
        timed = contract.set_up(softmax, {"rows": 3, "cols": 4}, 1, "cpu", None)
        self.assertEqual(timed.launch(), 12)
        self.assertIsNone(timed.teardown)
        obj = Object()
        timed = contract.set_up(lambda **kw: obj, {}, 1, "cpu", None)
        timed.launch()
        self.assertEqual(obj.launched, 1)
        self.assertEqual(timed.teardown, obj.teardown)
        with self.assertRaisesRegex(contract.ContractError, r"^returned NoneType: expected the timed callable"):
            contract.set_up(lambda **kw: None, {}, 1, "cpu", None)

    def test_set_up_passes_seed_device_and_stream(self):
        seen = {}
        contract.set_up(lambda **kw: seen.update(kw) or (lambda: None), {"n": 2}, 99, "cuda:1", 1234)
        self.assertEqual(seen, {"n": 2, "seed": 99, "device": "cuda:1", "stream": 1234})

    def test_check_reason(self):
        def timed_with(check):
            return contract.Timed(lambda: None, None, check)

        self.assertIsNone(contract.check_reason(contract.Timed(lambda: None)))
        for agrees in (lambda: None, lambda: True, lambda: ""):
            self.assertIsNone(contract.check_reason(timed_with(agrees)))
        self.assertEqual(contract.check_reason(timed_with(lambda: False)), "check() returned False")
        self.assertEqual(contract.check_reason(timed_with(lambda: "max error\n0.5")), "max error 0.5")

        def raises():
            assert 1 == 2, "outputs differ"

        self.assertRegex(contract.check_reason(timed_with(raises)), r"^AssertionError: outputs differ \(at .*test_benchmark.py:\d+\)$")

    def test_describe_exception_is_one_line_with_where(self):
        try:
            raise KeyError("a\nb")
        except KeyError as error:
            text = contract.describe_exception(error)
        self.assertRegex(text, r"^KeyError: 'a\\nb' \(at .*test_benchmark.py:\d+\)$")
        self.assertEqual(contract.describe_exception(RuntimeError()), "RuntimeError")


if __name__ == "__main__":
    unittest.main()
