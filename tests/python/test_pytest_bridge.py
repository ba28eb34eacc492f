"""isobench.pytest_bridge without a worker: what the collection finds in a pytest-benchmark file
(parameters, the tests without the fixture, a file that does not import), and what running one
test as a set-up function gives (the callable it handed over, not timed; a failing, skipped or
fixture-shy test as a one-line error naming file and test). The whole path through orchestrate
and a zygote is tests/integration/test_pytest_bridge.cpp."""

import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

from isobench import bytecode, pytest_bridge

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "data", "pytest_bridge_tests.py")
BROKEN = os.path.join(HERE, "data", "pytest_bridge_broken.py")


def quietly(call, *args, **kwargs):
    """pytest's own report goes to stdout (the worker's log in a run); keep the test output short."""
    with redirect_stdout(io.StringIO()):
        return call(*args, **kwargs)


class Collection(unittest.TestCase):
    def test_parametrized_tests_have_their_parameters_and_the_fixture_is_noted(self):
        tests = {t["test"]: t for t in quietly(pytest_bridge.collect, TESTS)}
        self.assertEqual(tests["test_reduce[sum-2000]"],
                         {"test": "test_reduce[sum-2000]", "function": "test_reduce",
                          "params": {"kind": "sum", "n": 2000}, "benchmark": True, "doctest": False,
                          "node_id": "tests/python/data/pytest_bridge_tests.py::test_reduce[sum-2000]"})
        self.assertEqual(len([t for t in tests if t.startswith("test_reduce[")]), 4)
        self.assertFalse(tests["test_without_fixture"]["benchmark"])
        self.assertEqual(tests["TestPedantic::test_sorted"]["function"], "TestPedantic.test_sorted")
        self.assertEqual(tests["test_work"]["params"], {})

    def test_select_is_pytests_k(self):
        tests = quietly(pytest_bridge.collect, TESTS, "reduce and max")
        self.assertEqual(sorted(t["test"] for t in tests), ["test_reduce[max-10]", "test_reduce[max-2000]"])

    def test_a_file_that_does_not_import_names_the_file_and_the_error(self):
        with self.assertRaises(pytest_bridge.BridgeError) as caught:
            quietly(pytest_bridge.collect, BROKEN)
        self.assertIn(BROKEN + " does not collect", str(caught.exception))
        self.assertIn("No module named 'pytest_bridge_no_such_module'", str(caught.exception))

    def test_a_collection_configures_once_and_ends_no_session(self):
        # No plugin's end-of-session report runs: hypothesis's imports all of hypothesis there
        # (a slow import on the H200: docs/evidence.md), in a collection that never uses it.
        sys.path.insert(0, os.path.join(HERE, "data"))
        import pytest_bridge_counter as counter
        before = [len(counter.CONFIGURED), len(counter.UNCONFIGURED), len(counter.FINISHED)]
        tests = quietly(pytest_bridge.collect, TESTS, "", ["-p", "pytest_bridge_counter"])
        self.assertIn("test_work", [t["test"] for t in tests])
        self.assertEqual([len(counter.CONFIGURED), len(counter.UNCONFIGURED), len(counter.FINISHED)],
                         [before[0] + 1, before[1] + 1, before[2]])

    def test_the_zygotes_session_collects_what_the_collection_does(self):
        args = ["-p", "no:warnings", "-p", "no:logging"]  # a key of its own
        collected = quietly(pytest_bridge.collect, TESTS, "", args)
        # Only the collector evaluates skip marks (a condition may touch the GPU, which a zygote
        # must not): the rest is the same.
        self.assertEqual([t["test"] for t in collected if "skipped" in t], ["test_skipped"])
        self.assertEqual(next(t for t in collected if "skipped" in t)["skipped"], "not on this machine")
        self.assertEqual(quietly(pytest_bridge.prepare_for_workers, TESTS, args),
                         [{k: v for k, v in t.items() if k != "skipped"} for t in collected])
        self.assertIsNone(quietly(pytest_bridge.prepare_for_workers, BROKEN, []))  # collect() says why

    def test_the_command_line_answers_in_json(self):
        out = io.StringIO()
        with redirect_stdout(out):
            code = pytest_bridge._main(["collect", TESTS, "--select", "work", "--", "-p", "no:warnings"])
        self.assertEqual(code, 0)
        self.assertEqual([t["test"] for t in json.loads(out.getvalue())["tests"]], ["test_work"])
        out = io.StringIO()
        with redirect_stdout(out):
            code = pytest_bridge._main(["collect", BROKEN])
        self.assertEqual(code, 1)
        self.assertIn("does not collect", json.loads(out.getvalue())["error"])


class RunningOneTest(unittest.TestCase):
    def set_up(self, test):
        return quietly(pytest_bridge.PytestTest(TESTS, test), seed=1, device="cpu", stream=None)

    def module(self):
        return sys.modules["pytest_bridge_tests"]

    def test_the_body_runs_once_and_hands_over_its_callable_untimed(self):
        handed = self.set_up("test_work")
        module = self.module()
        self.assertEqual(module.SET_UP.count("work"), 1)
        launches = len(module.LAUNCHES)
        for _ in range(3):
            handed()
        self.assertEqual(module.LAUNCHES[launches:], [5, 5, 5])  # its keyword argument, each launch
        self.assertEqual(module.SET_UP.count("work"), 1)  # launches do not run the body again

    def test_a_parametrized_test_runs_with_its_own_parameters(self):
        handed = self.set_up("test_reduce[max-2000]")
        self.assertIs(handed.target, max)
        self.assertEqual(len(handed.args[0]), 2000)

    def test_pedantic_calls_setup_once_and_launches_with_what_it_made(self):
        handed = self.set_up("TestPedantic::test_sorted")
        self.assertIs(handed.target, sorted)
        self.assertEqual(handed.args, ([3, 1, 2],))

    def assert_refused(self, test, *pieces):
        with self.assertRaises(pytest_bridge.BridgeError) as caught:
            self.set_up(test)
        message = str(caught.exception)
        self.assertTrue(message.startswith(TESTS + "::" + test), message)
        for piece in pieces:
            self.assertIn(piece, message)
        self.assertNotIn("\n", message)

    def test_a_failing_test_says_what_failed_and_where(self):
        self.assert_refused("test_wrong_answer", "failed in its call", "AssertionError: three is not four",
                            "pytest_bridge_tests.py:")

    def test_a_test_that_calls_the_fixture_twice_is_refused(self):
        self.assert_refused("test_twice", "calls benchmark more than once")

    def test_a_test_that_never_calls_the_fixture_has_nothing_to_time(self):
        self.assert_refused("test_never_calls", "never called benchmark()")

    def test_a_skipped_test_says_why(self):
        self.assert_refused("test_skipped", "was skipped", "not on this machine")

    def test_a_test_the_file_lacks(self):
        self.assert_refused("test_not_there", "did not run")

    def test_the_tests_of_a_worker_share_one_pytest_session(self):
        sys.path.insert(0, os.path.join(HERE, "data"))
        import pytest_bridge_counter
        before = len(pytest_bridge_counter.CONFIGURED)
        args = ["-p", "pytest_bridge_counter"]
        handed = [quietly(pytest_bridge.PytestTest(TESTS, test, args), seed=1, device="cpu", stream=None)
                  for test in ("test_work", "test_reduce[max-10]", "test_shared_resource", "test_work")]
        self.assertEqual(len(pytest_bridge_counter.CONFIGURED) - before, 1)
        self.assertEqual([h.target for h in handed], [self.module().work, max, self.module().work,
                                                      self.module().work])
        self.assertEqual(handed[1].args, (list(range(10)),))

    def test_a_worker_forked_after_the_zygote_prepared_the_session_configures_nothing(self):
        sys.path.insert(0, os.path.join(HERE, "data"))
        import pytest_bridge_counter
        args = ["-p", "pytest_bridge_counter", "-p", "no:warnings"]  # a key of its own
        self.assertIsNotNone(quietly(pytest_bridge.prepare_for_workers, TESTS, args))
        configured = len(pytest_bridge_counter.CONFIGURED)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: two set-ups, then how many configurations it made
            try:
                with redirect_stdout(io.StringIO()):
                    handed = [pytest_bridge.PytestTest(TESTS, test, args)(seed=1, device="cpu", stream=None)
                              for test in ("test_work", "test_reduce[max-10]")]
                os.write(write, json.dumps([len(pytest_bridge_counter.CONFIGURED) - configured,
                                            handed[1].target is max]).encode())
            finally:
                os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        self.assertEqual(json.loads(os.read(read, 1000)), [0, True])
        os.close(read)
        self.assertEqual(len(pytest_bridge_counter.CONFIGURED), configured)  # the zygote ran none

    def test_each_tests_fixtures_are_torn_down_when_its_set_up_ends(self):
        self.set_up("test_shared_resource")
        events = self.module().EVENTS
        self.assertEqual(events[-2:], ["module up", "module down"])
        self.set_up("test_shared_resource")
        self.assertEqual(events[-4:], ["module up", "module down"] * 2)


class RewrittenModules(unittest.TestCase):
    """A plugin module's rewritten asserts kept where its own __pycache__ cannot take them (a
    read-only environment): written by the first collection, read by the next."""

    def collect_with_probe(self, plugins, cache, no_bytecode=False, bytecode_cache="off"):
        package = os.path.dirname(os.path.dirname(os.path.abspath(pytest_bridge.__file__)))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, plugins]))
        env[pytest_bridge.REWRITE_CACHE_VARIABLE] = cache
        env[bytecode.VARIABLE] = bytecode_cache  # isobench.bytecode: tests/python/test_bytecode.py
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        done = subprocess.run([sys.executable, "-m", "isobench.pytest_bridge", "collect", TESTS, "--",
                               "-p", "isobench_rewrite_probe"], env=env, capture_output=True, text=True, check=False)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("test_work", done.stdout)

    def probe_folder(self, tmp):
        plugins = os.path.join(tmp, "plugins")
        os.makedirs(plugins)
        with open(os.path.join(plugins, "isobench_rewrite_probe.py"), "w") as f:
            f.write("import isobench_rewrite_helper\n\ndef check(x):\n    assert x > 0\n")
        with open(os.path.join(plugins, "isobench_rewrite_helper.py"), "w") as f:  # imported, not rewritten
            f.write("VALUE = 1\n")
        return plugins

    def test_a_module_whose_folder_cannot_take_it_is_kept_in_the_cache_and_read_from_there(self):
        with tempfile.TemporaryDirectory() as tmp:
            plugins = self.probe_folder(tmp)
            # A file where its __pycache__ would go: no folder can be made there (for root too,
            # who may write into read-only folders).
            open(os.path.join(plugins, "__pycache__"), "w").close()
            cache = os.path.join(tmp, "cache")
            self.collect_with_probe(plugins, cache)
            kept = glob.glob(os.path.join(cache, "**", "isobench_rewrite_probe.*pytest*.pyc"), recursive=True)
            self.assertEqual(len(kept), 1, kept)
            under = os.path.join(cache, *os.path.abspath(plugins).split(os.sep)[1:], "__pycache__")
            self.assertEqual(os.path.dirname(kept[0]), under)
            stamp = os.stat(kept[0]).st_mtime_ns
            self.collect_with_probe(plugins, cache)  # read from the cache: not rewritten, not written again
            self.assertEqual(os.stat(kept[0]).st_mtime_ns, stamp)
            shutil.rmtree(cache)
            self.collect_with_probe(plugins, "off")
            self.assertFalse(os.path.exists(cache))

    def test_with_bytecode_writing_off_only_the_cache_is_written(self):
        # PYTHONDONTWRITEBYTECODE (set on the H200): pytest would write no rewritten module at all.
        with tempfile.TemporaryDirectory() as tmp:
            plugins = self.probe_folder(tmp)
            cache = os.path.join(tmp, "cache")
            self.collect_with_probe(plugins, cache, no_bytecode=True)
            kept = glob.glob(os.path.join(cache, "**", "isobench_rewrite_probe.*pytest*.pyc"), recursive=True)
            self.assertEqual(len(kept), 1, kept)
            # Only what pytest rewrote (the plugin, the test file): not the helper the plugin
            # imports, and nothing beside the plugin.
            written = glob.glob(os.path.join(cache, "**", "*.pyc"), recursive=True)
            self.assertIn(kept[0], written)
            self.assertEqual([w for w in written if "-pytest-" not in os.path.basename(w)], [])
            self.assertEqual([w for w in written if "isobench_rewrite_helper" in w], [])
            self.assertFalse(os.path.exists(os.path.join(plugins, "__pycache__")))
            stamp = os.stat(kept[0]).st_mtime_ns
            self.collect_with_probe(plugins, cache, no_bytecode=True)
            self.assertEqual(os.stat(kept[0]).st_mtime_ns, stamp)
            self.assertFalse(os.path.exists(os.path.join(plugins, "__pycache__")))

    def test_with_the_collectors_bytecode_kept_the_rewritten_modules_go_there_too(self):
        # The collector keeps its imports' bytecode (isobench.bytecode) where writing is off:
        # pytest then writes its rewritten modules under that prefix as well, nowhere else.
        with tempfile.TemporaryDirectory() as tmp:
            plugins = self.probe_folder(tmp)
            cache, kept_bytecode = os.path.join(tmp, "cache"), os.path.join(tmp, "bytecode")
            self.collect_with_probe(plugins, cache, no_bytecode=True, bytecode_cache=kept_bytecode)
            rewritten = glob.glob(os.path.join(kept_bytecode, "**", "isobench_rewrite_probe.*pytest*.pyc"), recursive=True)
            self.assertEqual(len(rewritten), 1, rewritten)
            helper = glob.glob(os.path.join(kept_bytecode, "**", "isobench_rewrite_helper.*.pyc"), recursive=True)
            self.assertEqual(len(helper), 1, helper)  # plain bytecode: imported, not rewritten
            self.assertFalse(os.path.exists(cache))
            self.assertFalse(os.path.exists(os.path.join(plugins, "__pycache__")))
            stamp = os.stat(rewritten[0]).st_mtime_ns
            self.collect_with_probe(plugins, cache, no_bytecode=True, bytecode_cache=kept_bytecode)
            self.assertEqual(os.stat(rewritten[0]).st_mtime_ns, stamp)

    def test_a_module_whose_folder_takes_it_stays_there(self):
        with tempfile.TemporaryDirectory() as tmp:
            plugins = self.probe_folder(tmp)
            cache = os.path.join(tmp, "cache")
            self.collect_with_probe(plugins, cache)
            self.assertEqual(len(glob.glob(os.path.join(plugins, "__pycache__", "isobench_rewrite_probe.*pytest*.pyc"))), 1)
            self.assertFalse(os.path.exists(cache))


if __name__ == "__main__":
    unittest.main()
