"""isobench.script_bridge without a worker, on the stand-in benchmark scripts of fake_liger/ (in the
style of Liger-Kernel's benchmark/scripts) and the stand-in triton.testing (fake_triton/): the
collection runs the script once as __main__ and lists its timing calls by what they measure
(KERNEL/PROVIDER/MODE/X), timing nothing and writing nothing beside the script; bad input is one
line naming the file; an instance's set-up stops the script inside the call it names, a later call
takes it forward, and a script let go ends inside its call, so nothing after it runs (the CSV it
writes at its end). Through orchestrate (an A/B with a planted slowdown, exit 2 on bad input):
tests/integration/test_script_route.cpp."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_triton"))

import triton.testing  # noqa: E402 - the stand-in, from the path above

from isobench import do_bench, script_bridge  # noqa: E402

SCRIPTS = os.path.join(HERE, "fake_liger", "scripts")
NORM = os.path.join(SCRIPTS, "benchmark_norm.py")
UNTIMED = os.path.join(SCRIPTS, "benchmark_untimed.py")
LOOP = os.path.join(SCRIPTS, "benchmark_loop.py")
ARGS = ["--x-values", "32", "128"]
CALLS = ["norm/reference/forward/32", "norm/reference/forward/128", "norm/liger/forward/32",
         "norm/liger/forward/128", "norm/reference/full/32", "norm/reference/full/128", "norm/liger/full/32",
         "norm/liger/full/128"]


def quietly(function, *args, **kwargs):
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return function(*args, **kwargs)


class Logged(unittest.TestCase):
    """Each case with FAKE_LIGER_LOG set (what the scripts did) and the scripts' `utils` forgotten:
    each process that runs a script imports it from its own linked folder."""

    def setUp(self):
        self.log = tempfile.NamedTemporaryFile(delete=False, suffix=".txt").name
        os.environ["FAKE_LIGER_LOG"] = self.log
        sys.modules.pop("utils", None)

    def tearDown(self):
        os.environ.pop("FAKE_LIGER_LOG")
        os.unlink(self.log)
        sys.modules.pop("utils", None)

    def logged(self):
        with open(self.log) as f:
            return [line.split()[:-1] for line in f]


class Listing(Logged):
    def test_each_timing_call_is_named_by_kernel_provider_mode_and_x_and_none_is_timed(self):
        before = dict(triton.testing.CALLS)
        answer = quietly(script_bridge.collect_script, NORM, ARGS)
        self.assertEqual(triton.testing.CALLS, before)
        self.assertEqual(answer["timing"], "do_bench")
        self.assertFalse(answer["import_in_worker"])
        (test,) = answer["tests"]
        self.assertEqual((test["test"], test["node_id"]), ("benchmark_norm", NORM))
        self.assertEqual([c["name"] for c in test["calls"]], CALLS)
        self.assertEqual({c["kind"] for c in test["calls"]}, {"do_bench"})
        # the reference provider's calls are controls (Liger's huggingface and torch references)
        self.assertEqual([c["name"] for c in test["calls"] if c.get("control")],
                         [name for name in CALLS if "/reference/" in name])
        # the calls answered in do_bench's kind (quantiles=: a list of three), so the script ran on
        self.assertEqual({tuple(line[5:]) for line in self.logged() if line[0] == "call"}, {("list3",)})

    def test_what_the_script_writes_beside_itself_lands_in_a_temporary_folder_removed_after(self):
        quietly(script_bridge.collect_script, NORM, ARGS)
        (csv,) = [line[1] for line in self.logged() if line[0] == "csv"]
        self.assertFalse(csv.startswith(os.path.dirname(SCRIPTS)), csv)
        self.assertTrue(os.path.basename(os.path.dirname(os.path.dirname(csv))).startswith("isobench-script-"), csv)
        self.assertFalse(os.path.exists(csv))
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(SCRIPTS), "data")))

    def test_module_level_calls_are_named_by_the_files_stem(self):
        answer = quietly(script_bridge.collect_script, LOOP)
        self.assertEqual([c["name"] for c in answer["tests"][0]["calls"]], ["benchmark_loop#1", "benchmark_loop#2"])

    def test_bad_input_is_one_line_naming_the_file(self):
        cases = [(UNTIMED, [], UNTIMED + ": the script made no timing call through triton.testing.do_bench or "
                  "do_bench_cudagraph (run as __main__ without arguments)"),
                 (NORM, ["--modes", "sideways"], NORM + " exited with code 2 while its timing calls were listed with "
                  "arguments --modes sideways: benchmark_norm.py: error: argument --modes: invalid choice: 'sideways' "
                  "(choose from 'forward', 'backward', 'full')"),
                 (os.path.join(SCRIPTS, "missing.py"), [], os.path.join(SCRIPTS, "missing.py") + ": no such file")]
        for path, args, expected in cases:
            with self.assertRaises(script_bridge.ScriptError) as caught:
                quietly(script_bridge.collect_script, path, args)
            self.assertEqual(str(caught.exception), expected)
        with tempfile.TemporaryDirectory() as folder:
            broken = os.path.join(folder, "benchmark_broken.py")
            with open(broken, "w") as f:
                f.write("import os\nimport trition_typo\n")
            with self.assertRaises(script_bridge.ScriptError) as caught:
                quietly(script_bridge.collect_script, broken)
            self.assertEqual(str(caught.exception), broken + ": its imports fail: ModuleNotFoundError: No module "
                             "named 'trition_typo' (at %s:2)" % broken)  # the user's path, not the link's

    def test_collect_from_the_command_line_prints_one_json_line(self):
        for argv, key in ((["collect", NORM, "--"] + ARGS, "tests"), (["collect", UNTIMED], "error")):
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                code = script_bridge._main(argv)
            self.assertEqual((code, list(json.loads(out.getvalue()))[0]), (0 if key == "tests" else 1, key))


class InPlace(Logged):
    def tearDown(self):
        holder = do_bench.DoBenchInstance.holder
        if holder is not None:
            holder.release()
        script_bridge.remove_linked_folders()
        super().tearDown()

    def set_up(self, call):
        # One set-up function per script, as the zygote registers it: a later call of it takes the
        # waiting run forward.
        if not hasattr(self, "test"):
            self.test = script_bridge.ScriptTest(NORM, ARGS)
        return quietly(self.test, 0, "cpu", None, call=call)

    def calls_returned(self):
        return [line[3] + "/" + line[4] for line in self.logged() if line[0] == "call"]

    def test_the_script_waits_inside_the_call_and_ends_there_when_let_go(self):
        instance = self.set_up("norm/liger/forward/32")
        self.assertTrue(instance.run.thread.is_alive())
        self.assertEqual(self.calls_returned(), ["forward/32", "forward/128"])  # the reference's two, at once
        quietly(instance.launch)
        quietly(instance.launch)
        self.assertEqual(instance.run.launches, 2)
        quietly(instance.teardown)
        self.assertFalse(instance.run.thread.is_alive())
        # ended inside the call: it never returned, and the rest of the script (its CSV) never ran
        self.assertEqual(self.calls_returned(), ["forward/32", "forward/128"])
        self.assertEqual([line for line in self.logged() if line[0] in ("csv", "end")], [])

    def test_a_later_call_takes_the_waiting_script_forward_and_an_earlier_one_runs_it_again(self):
        first = self.set_up("norm/reference/forward/128")
        later = self.set_up("norm/liger/full/32")
        self.assertIs(later.run, first.run)  # one run of the script, taken forward
        self.assertEqual(len(self.calls_returned()), 6)
        self.assertEqual(len({line[-1] for line in self.logged()}), 1)
        again = self.set_up("norm/reference/forward/32")
        self.assertIsNot(again.run, first.run)
        self.assertFalse(first.run.thread.is_alive())
        self.assertTrue(again.run.thread.is_alive())

    def test_a_call_the_script_does_not_make_names_the_calls_it_made(self):
        with self.assertRaises(do_bench.DoBenchError) as caught:
            self.set_up("norm/liger/forward/64")
        self.assertIn("made no timing call named norm/liger/forward/64 (its calls here: norm/reference/forward/32, ",
                      str(caught.exception))

    def test_the_zygote_runs_only_the_scripts_imports_from_its_linked_folder(self):
        before = dict(triton.testing.CALLS)
        test = script_bridge.ScriptTest(LOOP)
        test.import_here()
        self.assertEqual(triton.testing.CALLS, before)
        self.assertEqual(self.logged(), [])  # the loop did not run
        self.assertTrue(sys.modules["utils"].__file__.startswith(test.folder.folder))
        # utils binds do_bench by name when imported: isobench's, installed before the imports
        self.assertTrue(hasattr(sys.modules["utils"].do_bench, "isobench_original"))
        self.assertTrue(os.path.islink(test.folder.script))
        script_bridge.remove_linked_folders()
        self.assertFalse(os.path.exists(test.folder.root))
        self.assertTrue(os.path.isfile(LOOP))


if __name__ == "__main__":
    unittest.main()
