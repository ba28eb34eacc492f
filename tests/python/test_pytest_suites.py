"""pytest suites as projects write them (docs/python.md, "pytest suites in the wild"): the suite
data/wild_suite, configured as real projects configure theirs, collected and set up by
isobench.pytest_bridge in three environments: this interpreter (pytest alone), a venv with
pytest-benchmark and pytest-codspeed, and one with pytest-codspeed alone. The venvs are made by
scripts/install-deps.sh under $ISOBENCH_TEST_VENVS (default ~/.cache/isobench/test-venvs). Also
pytest's refusals, in one line each. The whole path through orchestrate ab --pytest is
tests/integration/test_pytest_suites.cpp."""

import itertools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
SUITE = os.path.join(HERE, "data", "wild_suite", "test_wild_benchmarks.py")


def venv_root():
    """Where scripts/install-deps.sh makes the plugin venvs (the same rule there and in
    tests/integration/test_pytest_suites.cpp)."""
    if os.environ.get("ISOBENCH_TEST_VENVS"):
        return os.environ["ISOBENCH_TEST_VENVS"]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "isobench", "test-venvs")


# name -> (interpreter, the plugins it must have)
ENVIRONMENTS = {
    "pytest alone": (sys.executable, set()),
    "pytest-benchmark and pytest-codspeed": (os.path.join(venv_root(), "benchmark-codspeed", "bin", "python"),
                                             {"pytest_benchmark", "pytest_codspeed"}),
    "pytest-codspeed alone": (os.path.join(venv_root(), "codspeed", "bin", "python"), {"pytest_codspeed"}),
}

# Collects the suite, sets every benchmark test up as a worker does (PytestTest) and launches what
# it handed over twice; prints what happened as JSON. argv: the suite, "shared" or "separate"
# (a session per test, the fallback where the worker's session cannot be made).
PROBE = r"""
import importlib.util, io, json, sys
from contextlib import redirect_stdout
from isobench import pytest_bridge as bridge

path, mode = sys.argv[1], sys.argv[2]
if mode == "separate":
    bridge._worker_session = lambda path, args: None
answer = {"plugins": sorted(m for m in ("pytest_benchmark", "pytest_codspeed") if importlib.util.find_spec(m)),
          "tests": bridge.collect(path), "handed": {}, "errors": {}}
for test in answer["tests"]:
    if not test["benchmark"]:
        continue
    try:
        with redirect_stdout(io.StringIO()):
            handed = bridge.PytestTest(path, test["test"])(seed=1, device="cpu", stream=None)
            handed.launch()
            handed.launch()
        answer["handed"][test["test"]] = type(handed).__name__
    except Exception as error:
        answer["errors"][test["test"]] = str(error)
answer["calls"] = sys.modules["test_wild_benchmarks"].CALLS
answer["events"] = sys.modules["conftest"].EVENTS
print(json.dumps(answer))
"""

BENCHMARKS = ["test_url_join", "test_reduce[sum-small]", "test_reduce[sum-large]", "test_reduce[max-small]",
              "test_reduce[max-large]", "test_getall[Before]", "test_marker_only_with_fixture[Before-3]",
              "test_marker_only_with_fixture[Before-30]", "test_getall[After]",
              "test_marker_only_with_fixture[After-3]", "test_marker_only_with_fixture[After-30]",
              "test_load_records", "test_decorated", "test_pedantic", "test_marker_only", "TestEncode::test_dumps"]
BY_MARK = {"test_marker_only", "test_marker_only_with_fixture[Before-3]", "test_marker_only_with_fixture[Before-30]",
           "test_marker_only_with_fixture[After-3]", "test_marker_only_with_fixture[After-30]"}


def probe(python, mode="shared", suite=SUITE):
    env = dict(os.environ, PYTHONPATH=PACKAGE, PYTHONDONTWRITEBYTECODE="1", ISOBENCH_BYTECODE_CACHE="off")
    done = subprocess.run([python, "-c", PROBE, suite, mode], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (python, done.returncode, done.stderr[-3000:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


class TheSuiteAsProjectsWriteIt(unittest.TestCase):
    def check_environment(self, name, mode="shared"):
        python, plugins = ENVIRONMENTS[name]
        self.assertTrue(os.path.exists(python),
                        "%s: no such interpreter: scripts/install-deps.sh makes the test venvs" % python)
        answer = probe(python, mode)
        self.assertEqual(set(answer["plugins"]), plugins, "the environment is not the one it is named after")
        tests = {t["test"]: t for t in answer["tests"]}
        # Every benchmark test, named by its pytest id (parametrize ids, fixture ids, a class's method).
        self.assertEqual([t["test"] for t in answer["tests"] if t["benchmark"]], BENCHMARKS)
        self.assertEqual(tests["test_getall[Before]"]["node_id"], "test_wild_benchmarks.py::test_getall[Before]")
        self.assertEqual(tests["TestEncode::test_dumps"]["function"], "TestEncode.test_dumps")
        self.assertEqual(tests["test_reduce[max-large]"]["params"], {"kind": "max", "size": 1000})
        # --doctest-modules in addopts collects the module's doctest: not a benchmark, and said so.
        doctests = [t["test"] for t in answer["tests"] if t["doctest"]]
        self.assertEqual(doctests, ["test_wild_benchmarks.join_url"])
        self.assertFalse(tests["test_not_a_benchmark"]["benchmark"] or tests["test_not_a_benchmark"]["doctest"])
        # Every benchmark test sets up in a worker and hands over its callable: isobench's fixture,
        # whichever plugin is installed; the marker-only ones their body.
        self.assertEqual(answer["errors"], {})
        self.assertEqual({t for t, kind in answer["handed"].items() if kind == "_Body"}, BY_MARK)
        self.assertEqual({t for t, kind in answer["handed"].items() if kind == "_Handed"}, set(BENCHMARKS) - BY_MARK)
        # A body runs once in its set-up; the decorator style's function and a marker-only body once
        # more per launch.
        self.assertEqual(answer["calls"], {"test_url_join": 1, "test_getall": 2, "test_decorated": 1,
                                           "test_decorated launch": 3, "test_marker_only": 3})
        if mode == "shared":  # (a session per test imports the conftest anew each time)
            self.assertIn("records removed", answer["events"])  # the module fixture's teardown ran

    def test_with_pytest_alone(self):
        self.check_environment("pytest alone")

    def test_with_pytest_benchmark_and_pytest_codspeed(self):
        self.check_environment("pytest-benchmark and pytest-codspeed")

    def test_with_pytest_codspeed_alone(self):
        self.check_environment("pytest-codspeed alone")

    def test_with_pytest_codspeed_alone_in_a_session_per_test(self):
        self.check_environment("pytest-codspeed alone", "separate")


FILE_NUMBERS = itertools.count()


class Coverage(unittest.TestCase):
    def test_pytest_covs_coverage_is_off_in_the_workers_session(self):
        # yarl and multidict have --cov in addopts: coverage would trace every sample.
        python = ENVIRONMENTS["pytest-benchmark and pytest-codspeed"][0]
        self.assertTrue(os.path.exists(python), "%s: scripts/install-deps.sh makes it" % python)
        probe = ("import io, sys\nfrom contextlib import redirect_stdout\nfrom isobench import pytest_bridge\n"
                 "with redirect_stdout(io.StringIO()):\n"
                 "    session = pytest_bridge._worker_session(sys.argv[1], [])\n"
                 "    handed = pytest_bridge.PytestTest(sys.argv[1], 'test_x')(seed=1, device='cpu', stream=None)\n"
                 "plugin = session.config.pluginmanager.get_plugin('_cov')\n"
                 "print(type(plugin).__name__, plugin._disabled, sys.gettrace())\n")
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "pytest.ini"), "w") as f:
                f.write("[pytest]\naddopts = --cov=json --cov-report=term\n")
            with open(os.path.join(folder, "test_covered.py"), "w") as f:
                f.write("import json\n\ndef test_x(benchmark):\n    benchmark(json.dumps, [1])\n")
            env = dict(os.environ, PYTHONPATH=PACKAGE, PYTHONDONTWRITEBYTECODE="1", ISOBENCH_BYTECODE_CACHE="off")
            done = subprocess.run([python, "-c", probe, os.path.join(folder, "test_covered.py")], env=env,
                                  capture_output=True, text=True, check=False, cwd=folder)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        self.assertEqual(done.stdout.split(), ["CovPlugin", "True", "None"])


class OtherPluginsStubs(unittest.TestCase):
    """pydantic-core's test requirement pytest-speed has a benchmark fixture of its own and stubs
    of pytest-benchmark's options, as a project's conftest may: the bridge's stand-ins of those
    options must not clash with them (argparse refused a string two groups shared)."""

    PLUGIN = ("import pytest\n\ndef pytest_addoption(parser):\n"
              "    parser.addoption('--benchmark-columns', action='store', default='', help='stub')\n\n"
              "@pytest.fixture\ndef benchmark():\n    return lambda fn, *args: fn(*args)\n")

    def handed(self, files):
        """What a worker's set-up hands over for test_x in a folder of `files`, its launches
        counted, as the subprocess's stdout (pytest alone: the stand-ins are all added)."""
        probe = ("import io, sys\nfrom contextlib import redirect_stdout\nfrom isobench import pytest_bridge\n"
                 "tests = pytest_bridge.collect(sys.argv[1], '', [])\n"
                 "with redirect_stdout(io.StringIO()):\n"
                 "    handed = pytest_bridge.PytestTest(sys.argv[1], 'test_x')(seed=1, device='cpu', stream=None)\n"
                 "    handed.launch()\n    handed.launch()\n"
                 "print([t['test'] for t in tests if t['benchmark']], sys.modules['test_stubbed'].CALLS)\n")
        with tempfile.TemporaryDirectory() as folder:
            for name, text in files.items():
                with open(os.path.join(folder, name), "w") as f:
                    f.write(text)
            env = dict(os.environ, PYTHONPATH=PACKAGE, PYTHONDONTWRITEBYTECODE="1", ISOBENCH_BYTECODE_CACHE="off")
            done = subprocess.run([sys.executable, "-c", probe, os.path.join(folder, "test_stubbed.py")], env=env,
                                  capture_output=True, text=True, check=False, cwd=folder)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        return done.stdout.strip()

    TEST = "CALLS = []\n\ndef test_x(benchmark):\n    benchmark(CALLS.append, 1)\n"

    def test_a_plugin_that_stubs_pytest_benchmarks_options(self):
        # isobench's fixture is the one the test gets: its own call, then the two launches.
        self.assertEqual(self.handed({"speedlike.py": self.PLUGIN, "test_stubbed.py": self.TEST,
                                      "pytest.ini": "[pytest]\npythonpath = .\naddopts = -p speedlike "
                                                    "--benchmark-columns min,mean\n"}),
                         "['test_x'] [1, 1, 1]")

    def test_a_conftest_that_stubs_one(self):
        conftest = ("def pytest_addoption(parser):\n"
                    "    parser.addoption('--benchmark-disable', action='store_true', help='stub')\n")
        self.assertEqual(self.handed({"conftest.py": conftest, "test_stubbed.py": self.TEST,
                                      "pytest.ini": "[pytest]\naddopts = --benchmark-disable\n"}),
                         "['test_x'] [1, 1, 1]")


class PytestsRefusals(unittest.TestCase):
    """What pytest refuses, said in one line naming the file and pytest's reason, with the remedy."""

    def refusal(self, files, args=()):
        """The collection's refusal of test_x.py among `files`, the folder written DIR. The file
        is imported under a name of its own in each test, as pytest imports a test file by its name."""
        from isobench import pytest_bridge
        with tempfile.TemporaryDirectory() as folder:
            unique = "test_x_%d" % next(FILE_NUMBERS)
            for name, text in files.items():
                with open(os.path.join(folder, name.replace("test_x", unique)), "w") as f:
                    f.write(textwrap.dedent(text))
            path = os.path.join(folder, unique + ".py")
            with self.assertRaises(pytest_bridge.BridgeError) as caught:
                pytest_bridge.collect(path, "", list(args))
            message = str(caught.exception).replace(folder, "DIR").replace(unique, "test_x")
        self.assertNotIn("\n", message)
        self.assertTrue(message.startswith("DIR/test_x.py"), message)
        return message

    TEST = "def test_x(benchmark):\n    benchmark(int)\n"

    def test_an_option_no_installed_plugin_adds(self):
        message = self.refusal({"test_x.py": self.TEST, "pytest.ini": "[pytest]\naddopts = -ra --no-such-option\n"})
        self.assertIn("pytest refused its arguments: unrecognized arguments: --no-such-option "
                      "(in addopts of DIR/pytest.ini): no plugin installed in %s adds it" % sys.executable, message)
        self.assertIn("--pytest-arg=--override-ini=addopts=", message)
        message = self.refusal({"test_x.py": self.TEST}, ["--no-such-option"])
        self.assertIn("(given with --pytest-arg)", message)

    def test_an_ini_key_no_plugin_reads_under_filterwarnings_error(self):
        message = self.refusal({"test_x.py": self.TEST,
                                "pytest.ini": "[pytest]\nfilterwarnings = error\nno_such_key = 1\n"})
        self.assertIn("PytestConfigWarning: Unknown config option: no_such_key", message)
        self.assertIn("install the one that does, or remove the key", message)

    def test_a_conftest_that_does_not_import(self):
        message = self.refusal({"test_x.py": self.TEST, "conftest.py": "\n\nimport no_such_module_here\n"})
        self.assertIn("its conftest DIR/conftest.py does not import: ModuleNotFoundError: No module named "
                      "'no_such_module_here' (at DIR/conftest.py:3)", message)

    def test_a_benchmark_mark_with_a_keyword_neither_plugin_takes(self):
        message = self.refusal({"test_x.py": "import pytest\n\n@pytest.mark.benchmark(group='g', rounds=3)\n" + self.TEST})
        self.assertIn("DIR/test_x.py::test_x: the benchmark mark takes no keyword 'rounds'", message)


if __name__ == "__main__":
    unittest.main()
