"""The pytest bridge: tests that use pytest-benchmark's `benchmark` fixture as Python benchmarks.

A sweep entry `pytest: test_file.py` (docs/python.md, "Existing pytest benchmarks") makes every
collected test of the file that takes the `benchmark` fixture an instance: its parametrization
is the instance's parameters, its test id the instance. It rides on the `python:` kind: the
zygote collects the file once (so the test module and what it imports, torch and triton, are
imported once per side), registers each test as a set-up function, and every forked worker runs
its tests, untimed, in its copy of a pytest session the zygote made. There the `benchmark`
fixture does not time what it is given: it calls it once, as pytest-benchmark does (the test's
assertions on the result run), and hands the callable to isobench's timer, which launches it in
the samples.

    python3 -m isobench.pytest_bridge collect FILE [--select EXPR] [-- PYTEST_ARGS...]

prints the collection as one JSON object: {"tests": [{"test", "function", "params",
"benchmark"}]} or {"error": ...}, exit code 0 or 1 (the orchestrator runs it when it loads a
sweep, before anything is measured).

What differs from a pytest-benchmark run, and why:
- The test's fixtures are torn down when its set-up ends, before the first sample: the worker
  owns the order of set-ups and samples across a batch, so a test cannot stay suspended inside
  its body. The timed callable keeps what it closes over (tensors, arguments); a resource that a
  yield-fixture closes after the test is closed by then.
- `benchmark.pedantic(target, args, kwargs, setup=...)` calls setup once, in the set-up; the
  samples launch target with what it returned. rounds, iterations and warmup_rounds are the
  sweep's settings (samples, inner, warmup), not the test's.
- The zygote configures pytest once: the session of its collection (in which it runs no test) is
  the one every worker it forks runs each of its tests in, by pytest's runtest protocol in its
  copy, with nothing after the test, so every fixture, session-scoped ones too, is torn down when
  the test's set-up ends, as in a session of its own. Where that session cannot be made, a worker
  makes its own; where pytest's internals for it are not what this module expects, each test
  runs in a session of its own (a session's start and collection more per test, about 50 ms on
  the H200).
"""

import json
import os
import sys

from . import benchmark as contract
from . import bytecode

# pytest-benchmark's own plugin would give the test a fixture of the same name; the cache
# provider would write .pytest_cache beside the tests; capturing stays off so a test's output
# goes to workers.log as any benchmark's does.
# Every worker runs its tests in a copy of the zygote's session (in one of its own, or a session
# per test, where that cannot be made), so the built-in plugins that give a test nothing are left
# out: they cost a session more than its test does (bench/python_pytest_session.py times
# a session with and without them). unraisableexception and threadexception
# collect the garbage twice per session to report objects freed with an error (the most of it);
# the others offer options or reports (faulthandler, pastebin, stepwise, setuponly, setupplan)
# or collect what the bridge never runs (doctest). The plugins that give tests fixtures stay
# (tmpdir and testdir in legacypath, record_property in junitxml, caplog, monkeypatch, ...).
_QUIET_PLUGINS = ("unraisableexception", "threadexception", "faulthandler", "pastebin", "stepwise", "setuponly",
                  "setupplan", "doctest")
_COMMON_ARGS = ["-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:randomly", "-q", "-s",
                "-W", "ignore::pytest.PytestAssertRewriteWarning"] + [a for p in _QUIET_PLUGINS for a in ("-p", "no:" + p)]
FIXTURE = "benchmark"


class BridgeError(contract.ContractError):
    """A test file that cannot be collected, or a test that cannot be set up: one line."""


def _pytest():
    try:
        import pytest
    except ImportError as error:
        raise BridgeError("pytest benchmarks need pytest in the interpreter that runs them: %s" % error) from None
    _keep_rewritten_modules()
    return pytest


REWRITE_CACHE_VARIABLE = "ISOBENCH_PYTEST_REWRITE_CACHE"


def rewrite_cache_root():
    """Where rewritten modules are kept when their own folder cannot take them: the folder
    ISOBENCH_PYTEST_REWRITE_CACHE names ("off": nowhere), else $XDG_CACHE_HOME/isobench/pytest-rewrite,
    else ~/.cache/isobench/pytest-rewrite (beside isobench's Triton caches)."""
    return bytecode.own_cache(REWRITE_CACHE_VARIABLE, "pytest-rewrite")


def _keep_rewritten_modules():
    """pytest rewrites the asserts of every plugin module it loads (and of conftest files) and
    keeps the rewritten code in the module's own __pycache__, unless that folder cannot be
    written or bytecode writing is off (PYTHONDONTWRITEBYTECODE, set on the H200): then every
    pytest start rewrote them all again, 54 modules and 0.53 s of each collection there
    (docs/results/2026-12-03-h200-pytest-start), in the orchestrator's collection and in each
    side's zygote. Such modules' rewritten code is kept in rewrite_cache_root() instead, isobench's
    own cache (as its Triton caches are), under the module's own path; pytest names the file after
    the interpreter and its own version and checks it against the source, as in __pycache__. With
    bytecode writing off, only this cache is written: the flag is lifted for pytest's decision to
    write a rewritten module and restored before the module runs, so no other module's bytecode
    is written anywhere. A folder that can be written, with bytecode writing on, is left as it
    is. pytest's internals: where they are not what this expects, nothing changes."""
    root = rewrite_cache_root()
    try:
        from _pytest.assertion import rewrite
        original, make_folder = rewrite.get_cache_dir, rewrite.try_makedirs
        hook, read_pyc = rewrite.AssertionRewritingHook, rewrite._read_pyc
        exec_module = hook.exec_module
    except (ImportError, AttributeError):
        return
    if root is None or getattr(original, "isobench_root", None) == root:
        return
    original = getattr(original, "isobench_original", original)
    read_pyc = getattr(read_pyc, "isobench_original", read_pyc)
    exec_module = getattr(exec_module, "isobench_original", exec_module)
    lifted = []  # one entry per exec_module in progress that lifted the flag

    def get_cache_dir(file_path):
        folder = original(file_path)
        if not lifted and make_folder(folder) and os.access(folder, os.W_OK):
            return folder
        return type(folder)(root).joinpath(*folder.parts[1:])

    def exec_module_writing(self, module):
        if not sys.dont_write_bytecode:
            return exec_module(self, module)
        lifted.append(True)
        sys.dont_write_bytecode = False  # read by exec_module first, into its own `write`
        try:
            return exec_module(self, module)
        finally:
            lifted.pop()
            sys.dont_write_bytecode = True

    def read_pyc_restoring(*args, **kwargs):
        # exec_module asks for a kept module after it decided to write one and before the
        # module runs: bytecode writing is off again from here.
        if lifted:
            sys.dont_write_bytecode = True
        return read_pyc(*args, **kwargs)

    get_cache_dir.isobench_root = root
    get_cache_dir.isobench_original = original
    exec_module_writing.isobench_original = exec_module
    read_pyc_restoring.isobench_original = read_pyc
    rewrite.get_cache_dir = get_cache_dir
    rewrite._read_pyc = read_pyc_restoring
    hook.exec_module = exec_module_writing


def _scalar(value):
    """A parameter's value as the instance's parameters hold it: a JSON scalar, or its repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _last_line(text):
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[-1].removeprefix("E").strip() if lines else ""


def _reason(report):
    """Why a test failed or was skipped, one line: the exception and where it was raised."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return "%s (at %s:%d)" % (longrepr[2], longrepr[0], longrepr[1])
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return "%s (at %s:%d)" % (" ".join(crash.message.split()), crash.path, crash.lineno)
    return _last_line(report.longreprtext)


class _Collector:
    """A pytest plugin that keeps what a --collect-only session found and what failed."""

    def __init__(self):
        self.items = []
        self.errors = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append("%s: %s" % (report.nodeid or "collection", _last_line(report.longreprtext)))

    def pytest_collection_finish(self, session):
        self.items = list(session.items)


def _in_file_name(nodeid):
    """The part of a node id after its file ("test_f[1-2]", "TestX::test_f"): what the instance's
    python_function holds and a worker runs as FILE::NAME."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def _tests_of(items):
    """The collected items as the collection's answer: [{"test", "function", "params", "benchmark"}]."""
    tests = []
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = {name: _scalar(value) for name, value in (callspec.params.items() if callspec else ())}
        function = getattr(item, "originalname", None) or item.name
        if item.cls is not None:
            function = "%s.%s" % (item.cls.__name__, function)
        tests.append({"test": _in_file_name(item.nodeid), "function": function, "params": params,
                      "benchmark": FIXTURE in getattr(item, "fixturenames", ())})
    return tests


def _collected_session(argv, plugins):
    """pytest configured with argv and the file collected, the steps of pytest's main() up to the
    run (_pytest.main.wrap_session): (config, session). No test runs and the session never ends,
    so no plugin's end-of-session report runs either (hypothesis's imports all of hypothesis there:
    1.6 s on the H200, in a collection that never used it). Internal API: anything in it that is
    not what this module expects raises, and the caller falls back to pytest's main()."""
    from _pytest.config import _prepareconfig
    from _pytest.main import Session
    config = _prepareconfig(argv, plugins=plugins)
    try:
        config._do_configure()
        session = Session.from_config(config)
        config.hook.pytest_sessionstart(session=session)
        config.hook.pytest_collection(session=session)
    except BaseException:
        config._ensure_unconfigure()
        raise
    return config, session


def collect(path, select="", args=()):
    """The tests of one file: [{"test", "function", "params", "benchmark"}]; BridgeError naming
    the file when it does not collect (an import error, a syntax error, a bad argument)."""
    pytest = _pytest()
    if not os.path.isfile(path):
        raise BridgeError("%s: no such test file" % path)
    argv = [path, "--collect-only"] + _COMMON_ARGS + (["-k", select] if select else []) + list(args)
    stdout = sys.stdout
    sys.stdout = sys.stderr  # pytest's listing is not the collection's answer
    try:
        collector = _Collector()
        try:
            config, session = _collected_session(argv, [collector])
            items = list(session.items)
            config._ensure_unconfigure()
        except Exception:  # noqa: BLE001 - pytest's main() says what went wrong, in its words
            collector = _Collector()
            code = pytest.main(argv, plugins=[collector])
            if not collector.errors and code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                raise BridgeError("%s: pytest %s ended with %s"
                                  % (path, " ".join(argv[1:]), pytest.ExitCode(code).name)) from None
            items = collector.items
    finally:
        sys.stdout = stdout
    if collector.errors:
        raise BridgeError("%s does not collect: %s" % (path, "; ".join(collector.errors)))
    return _tests_of(items)


class _Handed:
    """The callable a test handed to the fixture, with its arguments: the timed launch."""

    __slots__ = ("target", "args", "kwargs")

    def __init__(self, target, args, kwargs):
        self.target, self.args, self.kwargs = target, tuple(args), dict(kwargs or {})

    def __call__(self):
        self.target(*self.args, **self.kwargs)


class BenchmarkFixture:
    """What a test gets as `benchmark` in a worker: pytest-benchmark's call API, not its timer."""

    def __init__(self):
        self.handed = None
        self.extra_info = {}
        self.group = None
        self.name = None

    def _hand(self, target, args, kwargs):
        if self.handed is not None:
            raise BridgeError("the test calls benchmark more than once: isobench times one callable per test")
        if not callable(target):
            raise BridgeError("benchmark() was given %s, not a callable" % type(target).__name__)
        self.handed = _Handed(target, args, kwargs)
        return target(*self.handed.args, **self.handed.kwargs)

    def __call__(self, function, *args, **kwargs):
        return self._hand(function, args, kwargs)

    def pedantic(self, target, args=(), kwargs=None, setup=None, rounds=1, warmup_rounds=0, iterations=1):
        del rounds, warmup_rounds, iterations  # the sweep's samples, warmup and inner decide these
        if setup is not None:
            made = setup()
            if made is not None:
                args, kwargs = made
        return self._hand(target, args, kwargs)


def _runner_plugin():
    """A pytest plugin for a worker's session: it gives the test the fixture and keeps the reports
    of the test that runs (reset() before the next). pytest finds a plugin's fixtures on its
    class, so the class is made here, once pytest is imported (this module imports without it)."""
    pytest = _pytest()

    class Runner:
        def __init__(self):
            self.reset()

        def reset(self):
            self.fixture = BenchmarkFixture()
            self.reports = []

        @pytest.fixture(name=FIXTURE)
        def benchmark_fixture(self):
            return self.fixture

        def pytest_runtest_logreport(self, report):
            self.reports.append(report)

    return Runner()


class _WorkerSession:
    """One pytest session for the tests of one file (with one set of arguments) that a worker sets
    up: configured and collected once, each test then run alone by the runtest protocol. pytest's
    own main() does the same steps (_pytest.main.wrap_session); they are internal API, so any
    surprise in them (another pytest, a file that does not collect here) leaves the tests to
    sessions of their own, which say what went wrong as before."""

    def __init__(self, path, args):
        self.runner = _runner_plugin()
        collector = _Collector()
        self.config, session = _collected_session([path] + _COMMON_ARGS + list(args), [self.runner, collector])
        if collector.errors or session.testsfailed:
            self.config._ensure_unconfigure()
            raise RuntimeError("the file does not collect")
        self.tests = _tests_of(session.items)
        self.items = {_in_file_name(item.nodeid): item for item in session.items}

    def run(self, test):
        """The runner after the test's protocol (its reports, the fixture it got), or None for a
        test this session did not collect."""
        item = self.items.get(test)
        if item is None:
            return None
        self.runner.reset()
        # nextitem None: everything the test set up, up to the session's fixtures, is torn down.
        self.config.hook.pytest_runtest_protocol(item=item, nextitem=None)
        return self.runner


_SESSIONS = {}
# Sessions a zygote made before it forks (prepare_for_workers): (path, args) -> (the zygote's pid,
# the session). A worker forked after takes its copy as its own session; the zygote never runs a
# test in it.
_PREPARED = {}


def _make_session(path, args):
    stdout = sys.stdout
    try:
        return _WorkerSession(path, args)
    except Exception:  # noqa: BLE001 - the session of its own per test says what is wrong
        return None
    finally:
        sys.stdout = stdout  # a failed configuration may leave pytest's capture in place


def prepare_for_workers(path, args):
    """Configures pytest and collects the file once in the zygote, so that every worker forked
    after starts with the session made (a worker of 4 tests spent 65 ms on it on the H200).
    Returns the session's collection (as collect() gives it, without a selection), or None where
    the session could not be made: then each worker makes its own, and collect() says why."""
    key = (path, tuple(args))
    if key not in _PREPARED:
        _PREPARED[key] = (os.getpid(), _make_session(path, args))
    session = _PREPARED[key][1]
    return session.tests if session is not None else None


def _worker_session(path, args):
    """This process's session for the file and arguments: the one its zygote prepared, or one
    made on first use; None where it could not be made. Keyed by the process too: a session this
    process made never crosses a fork, and the zygote's is only ever run in its children."""
    key = (os.getpid(), path, tuple(args))
    if key not in _SESSIONS:
        maker, prepared = _PREPARED.get((path, tuple(args)), (None, None))
        _SESSIONS[key] = prepared if prepared is not None and maker != os.getpid() else _make_session(path, args)
    return _SESSIONS[key]


class PytestTest:
    """One collected test as a set-up function of the python: contract (isobench.benchmark): its
    call runs the test in the worker's pytest session (_WorkerSession) and returns the callable
    the test handed to `benchmark`. seed, device and stream are the worker's; the test makes its
    own inputs."""

    def __init__(self, path, test, args=()):
        self.path, self.test, self.args = path, test, list(args)
        self.label = "%s::%s" % (path, test)

    def __call__(self, seed, device, stream, **params):
        del seed, device, stream, params  # the test's own parametrization made the instance
        session = _worker_session(self.path, self.args)
        runner = session.run(self.test) if session is not None else None
        if runner is None:  # a session of its own
            runner = _runner_plugin()
            _pytest().main([self.label] + _COMMON_ARGS + self.args, plugins=[runner])
        ran = [r for r in runner.reports if r.when == "call"]
        for report in runner.reports:
            if report.failed:
                raise BridgeError("%s failed in its %s: %s" % (self.label, report.when, _reason(report)))
            if report.skipped:
                raise BridgeError("%s was skipped: %s" % (self.label, _reason(report)))
        if not ran:
            raise BridgeError("%s did not run (pytest found no such test)" % self.label)
        if runner.fixture.handed is None:
            raise BridgeError("%s never called benchmark(): there is nothing to time" % self.label)
        return runner.fixture.handed


def _main(argv):
    if len(argv) < 2 or argv[0] != "collect":
        sys.stderr.write("usage: python3 -m isobench.pytest_bridge collect FILE [--select EXPR] [-- PYTEST_ARGS...]\n")
        return 2
    path, rest = argv[1], argv[2:]
    extra = rest[rest.index("--") + 1:] if "--" in rest else []
    rest = rest[:rest.index("--")] if "--" in rest else rest
    select = rest[rest.index("--select") + 1] if "--select" in rest else ""
    bytecode.keep()  # the test file imports torch as each side's zygote does
    try:
        answer = {"tests": collect(os.path.abspath(path), select, extra)}
    except BridgeError as error:
        answer = {"error": " ".join(str(error).split())}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0 if "tests" in answer else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
