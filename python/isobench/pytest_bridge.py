"""The pytest bridge: tests that use pytest-benchmark's or pytest-codspeed's `benchmark` fixture (or
are marked `benchmark`, pytest-codspeed's marker-only style) as Python benchmarks.

A sweep entry `pytest: test_file.py` (docs/python.md, "Existing pytest benchmarks" and "pytest
suites in the wild") makes every collected test of the file that takes the `benchmark` fixture
an instance: its parametrization is the instance's parameters, its pytest id the instance. The
project's own pytest configuration (ini file, addopts, plugins) is pytest's to read; what must
change for isobench's fixture to be the one tests get is done after parsing (_take_over). It
rides on the `python:` kind: the
zygote collects the file once (so the test module and what it imports, torch and triton, are
imported once per side), registers each test as a set-up function, and every forked worker runs
its tests, untimed, in its copy of a pytest session the zygote made. There the `benchmark`
fixture does not time what it is given: it calls it once, as pytest-benchmark does (the test's
assertions on the result run), and hands the callable to isobench's timer, which launches it in
the samples.

    python3 -m isobench.pytest_bridge collect FILE [--select EXPR] [--timing MODE] [-- PYTEST_ARGS...]

prints the collection as one JSON object: {"tests": [{"test", "function", "params",
"benchmark", "doctest", "node_id"}], "timing", ...} or {"error": ...}, exit code 0 or 1 (the orchestrator runs it when it loads a
sweep, before anything is measured). --timing is auto unless given: the benchmark fixture where a
test takes it, else each test's do_bench calls (collect_suite).

What differs from a pytest-benchmark run, and why:
- The test's fixtures are torn down when its set-up ends, before the first sample: the worker
  owns the order of set-ups and samples across a batch, so a test cannot stay suspended inside
  its body. The timed callable keeps what it closes over (tensors, arguments); a resource that a
  yield-fixture closes after the test is closed by then.
- `benchmark.pedantic(target, args, kwargs, setup=..., teardown=...)` calls setup once, in the
  set-up; the samples launch target with what it returned; teardown runs once, when the worker is
  done with the instance. rounds, iterations and warmup_rounds are the sweep's settings (samples,
  inner, warmup), not the test's.
- A test marked `benchmark` without the fixture is timed as its body, called as pytest calls it
  with the fixture values of its set-up (as pytest-codspeed times such a test).
- The zygote configures pytest once: the session of its collection (in which it runs no test) is
  the one every worker it forks runs each of its tests in, by pytest's runtest protocol in its
  copy, with nothing after the test, so every fixture, session-scoped ones too, is torn down when
  the test's set-up ends, as in a session of its own. Where that session cannot be made, a worker
  makes its own; where pytest's internals for it are not what this module expects, each test
  runs in a session of its own (a session's start and collection more per test:
  docs/evidence.md#behind-the-code).
"""

import json
import os
import sys
import time

from . import benchmark as contract
from . import bytecode

# The project's own configuration is pytest's to read: its ini file, addopts and plugins load as
# they would under pytest, so that every option and ini key they name parses. What must change for
# isobench's fixture to be the one tests get is done after parsing and before pytest is configured
# (_take_over, as pytest-codspeed does): the plugins that time or reorder tests are blocked, and so
# are the built-in ones that give a test nothing. Every worker runs its tests in a copy of the
# zygote's session (in one of its own, or a session per test, where that cannot be made), and
# those cost a session more than its test does (bench/python_pytest_session.py times a session with
# and without them): unraisableexception and threadexception collect the garbage twice per session
# to report objects freed with an error (the most of it); the others offer options or reports
# (faulthandler, pastebin, stepwise, setuponly, setupplan) or write .pytest_cache beside the tests
# (cacheprovider). The plugins that give tests fixtures stay (tmpdir and testdir in legacypath,
# record_property in junitxml, caplog, monkeypatch, ...), and so does doctest: a project's
# --doctest-modules collects its doctests, which are left out as not benchmarks.
_QUIET_PLUGINS = ("unraisableexception", "threadexception", "faulthandler", "pastebin", "stepwise", "setuponly",
                  "setupplan", "cacheprovider")
# Plugins by the module they come from: the two that give a `benchmark` fixture of their own
# (pytest-benchmark also registers its session as "pytest-benchmark"), pytest-randomly, which
# reorders tests and reseeds per test, and pytest-xdist, whose -n would hand the collection to
# worker processes.
_TAKEN_OVER_MODULES = ("pytest_benchmark", "pytest_codspeed", "pytest_randomly", "xdist")
_TAKEN_OVER_NAMES = ("pytest-benchmark", "codspeed_plugin")
# Capturing stays off so a test's output goes to workers.log as any benchmark's does; a module the
# zygote imported before pytest does is not rewritten, which is no reason to stop.
_COMMON_ARGS = ["-q", "-s", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
FIXTURE = "benchmark"
# The fixture's other name (pytest-codspeed's), and the marks a test is measured by without the
# fixture (pytest-codspeed's marker-only tests).
FIXTURE_NAMES = (FIXTURE, "codspeed_benchmark")
MARKS = ("benchmark", "codspeed_benchmark")
# The benchmark mark's keyword arguments: pytest-benchmark's and pytest-codspeed's together, each
# accepted and ignored (the sweep's settings decide rounds and times; docs/python.md).
MARK_KEYWORDS = ("group", "min_time", "max_time", "min_rounds", "max_rounds", "precision", "confidence", "timer",
                 "disable_gc", "warmup", "warmup_iterations", "calibration_precision", "cprofile")
# Where pytest-benchmark or pytest-codspeed is not installed, a project's addopts may still name
# their options: they are accepted here, with the arity they have there, and ignored. Flags take
# no value, "?" an optional one, "+" one or more, the others one.
_STUB_OPTIONS = {
    "pytest_benchmark": {
        "--benchmark-disable-gc": 0, "--benchmark-skip": 0, "--benchmark-disable": 0, "--benchmark-enable": 0,
        "--benchmark-only": 0, "--benchmark-autosave": 0, "--benchmark-save-data": 0, "--benchmark-verbose": 0,
        "--benchmark-quiet": 0, "--benchmark-warmup": "?", "--benchmark-compare": "?", "--benchmark-cprofile-dump": "?",
        "--benchmark-netrc": "?", "--benchmark-histogram": "?", "--benchmark-csv": "?", "--benchmark-compare-fail": "+",
        "--benchmark-min-time": 1, "--benchmark-max-time": 1, "--benchmark-min-rounds": 1,
        "--benchmark-precision": 1, "--benchmark-confidence": 1, "--benchmark-timer": 1,
        "--benchmark-calibration-precision": 1, "--benchmark-warmup-iterations": 1, "--benchmark-save": 1,
        "--benchmark-json": 1, "--benchmark-cprofile": 1, "--benchmark-cprofile-loops": 1,
        "--benchmark-cprofile-top": 1, "--benchmark-storage": 1, "--benchmark-sort": 1, "--benchmark-group-by": 1,
        "--benchmark-columns": 1, "--benchmark-name": 1, "--benchmark-time-unit": 1},
    "pytest_codspeed": {
        "--codspeed": 0, "--codspeed-mode": 1, "--codspeed-warmup-time": 1, "--codspeed-max-time": 1,
        "--codspeed-max-rounds": 1},
}


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
    pytest start rewrote them all again, a large share of each collection there
    (docs/results/2026-12-03-h200-pytest-start; docs/evidence.md#behind-the-code), in the
    orchestrator's collection and in each side's zygote. Such modules' rewritten code is kept in rewrite_cache_root() instead, isobench's
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


def _takes_fixture(item):
    return any(name in getattr(item, "fixturenames", ()) for name in FIXTURE_NAMES)


def _measured_by_mark(item):
    """A test marked `benchmark` that takes no fixture: pytest-codspeed measures its body, as isobench does."""
    return not _takes_fixture(item) and any(item.get_closest_marker(mark) is not None for mark in MARKS)


def _check_mark(item, label):
    """The benchmark mark's arguments, as pytest-benchmark and pytest-codspeed check them: refused
    when it has positional ones or a keyword neither takes."""
    for name in MARKS:
        mark = item.get_closest_marker(name)
        if mark is None:
            continue
        if mark.args:
            raise BridgeError("%s: the %s mark takes no positional arguments (given %r)" % (label, name, mark.args))
        unknown = sorted(set(mark.kwargs) - set(MARK_KEYWORDS))
        if unknown:
            raise BridgeError("%s: the %s mark takes no keyword %s (pytest-benchmark's and pytest-codspeed's: %s)"
                              % (label, name, ", ".join(repr(k) for k in unknown), ", ".join(MARK_KEYWORDS)))


def _skipped_by_marks(item):
    """Why the test's skip or skipif marks skip it here, or None: evaluated as pytest's skipping
    plugin does at the test's set-up (its conditions with the module's globals and the config), in
    the collector only: a condition may touch the GPU, which a zygote must not."""
    try:
        from _pytest.skipping import evaluate_skip_marks
    except ImportError:  # another pytest: each worker's set-up meets the skip, as before
        return None
    try:
        skip = evaluate_skip_marks(item)
    except Exception:  # noqa: BLE001 - pytest reports a condition that fails at the test's set-up
        return None
    if skip is None:
        return None
    return skip.reason or "unconditional skip"


def _skips(items):
    """{node id: why its marks skip it} over the items (while their config is still configured)."""
    pytest = _pytest()
    reasons = {}
    for item in items:
        reason = _skipped_by_marks(item) if isinstance(item, pytest.Function) else None
        if reason is not None:
            reasons[item.nodeid] = reason
    return reasons


def _tests_of(path, items, skipped=None):
    """The collected items as the collection's answer: [{"test", "function", "params", "benchmark",
    "doctest", "node_id", "skipped"}]. "test" is the node id after the file, the instance's name;
    "node_id" pytest's whole node id (from the rootdir), as pytest -v and pytest-benchmark's JSON
    name it; "skipped", for a test its marks skip (`skipped`: _skips()), the marks' reason."""
    pytest = _pytest()
    tests = []
    for item in items:
        entry = {"test": _in_file_name(item.nodeid), "function": item.name, "params": {}, "benchmark": False,
                 "doctest": False, "node_id": item.nodeid}
        if item.nodeid in (skipped or {}):
            entry["skipped"] = skipped[item.nodeid]
        tests.append(entry)
        if not isinstance(item, pytest.Function):  # a doctest (--doctest-modules), another plugin's item
            entry["doctest"] = type(item).__name__ == "DoctestItem"
            continue
        callspec = getattr(item, "callspec", None)
        entry["params"] = {name: _scalar(value) for name, value in (callspec.params.items() if callspec else ())}
        function = getattr(item, "originalname", None) or item.name
        if getattr(item, "cls", None) is not None:
            function = "%s.%s" % (item.cls.__name__, function)
        entry["function"] = function
        entry["benchmark"] = _takes_fixture(item) or _measured_by_mark(item)
        if entry["benchmark"]:
            _check_mark(item, "%s::%s" % (path, entry["test"]))
    return tests


def _take_over(config):
    """What must change for isobench's fixture to be the one tests get, done once the arguments
    are parsed (so the project's addopts still name these plugins' options) and before pytest is
    configured: the plugins that time, reorder or distribute tests, and the quiet ones, blocked."""
    import types
    manager = config.pluginmanager
    for name, plugin in list(manager.list_name_plugin()):
        module = plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__
        if name and module.split(".")[0] in _TAKEN_OVER_MODULES:
            manager.set_blocked(name)
    for name in _QUIET_PLUGINS + _TAKEN_OVER_NAMES:
        manager.set_blocked(name)


def _plugins(runner=None):
    """The pytest plugins of a collection (runner None) or of a worker's session (runner: the
    Runner that gives tests the fixture). Made here, once pytest is imported (this module imports
    without it)."""
    pytest = _pytest()
    fixtures = runner.fixtures if runner is not None else None

    class TakeOver:
        @pytest.hookimpl(wrapper=True)
        def pytest_load_initial_conftests(self, early_config, parser, args):
            # After the plugins load and before the arguments are parsed for good (and before any
            # plugin's own hook: a wrapper runs first): pytest-cov's coverage turned off (its
            # --no-cov), which would otherwise start here and trace every sample. Then, once the
            # initial conftests have loaded (after the yield), the options of pytest-benchmark and
            # pytest-codspeed where they are not installed, each only where no plugin or conftest
            # registered that option string already (pytest-speed, a conftest's own stubs): pytest
            # checks option strings within one group only, and argparse refuses a string two
            # groups share when the arguments are parsed.
            loaded = set()
            for plugin in early_config.pluginmanager.get_plugins():
                loaded.add((getattr(plugin, "__name__", None) or type(plugin).__module__).split(".")[0])
            if "pytest_cov" in loaded and "--no-cov" not in args:
                args.append("--no-cov")
                early_config.known_args_namespace.no_cov = True
            result = yield
            taken = set()
            for existing in [getattr(parser, "_anonymous", None)] + list(getattr(parser, "_groups", [])):
                for option in getattr(existing, "options", []):
                    taken.update(option.names())
            group = parser.getgroup("isobench", "options isobench accepts and ignores")
            for module, options in _STUB_OPTIONS.items():
                if module in loaded:
                    continue
                for name, arity in options.items():
                    if name in taken:
                        continue
                    kind = {"action": "store_true"} if arity == 0 else {"nargs": arity} if arity in ("?", "+") else {}
                    try:
                        group.addoption(name, dest="isobench_ignored_" + name.lstrip("-").replace("-", "_"),
                                        help="ignored under isobench", **kind)
                    except ValueError:  # another registration of it that the scan above did not see
                        pass
            return result

        @pytest.hookimpl(tryfirst=True)
        def pytest_cmdline_main(self, config):
            _take_over(config)  # pytest's main(): after parsing, before configuring

        def pytest_configure(self, config):
            config.addinivalue_line("markers", "benchmark(%s): a benchmark, measured by isobench with or without the "
                                    "fixture (its keywords are ignored)" % ", ".join(MARK_KEYWORDS))
            config.addinivalue_line("markers", "codspeed_benchmark: the benchmark mark, pytest-codspeed's name")

        @pytest.hookimpl(trylast=True)
        def pytest_sessionstart(self, session):
            # The blocked plugins' fixtures were parsed all the same (pytest replays their
            # registration to the fixture manager): registered after them, isobench's win, as a
            # plugin's fixture registered later does; a conftest's own `benchmark` still wins.
            if fixtures is not None:
                session.config.pluginmanager.register(fixtures, "isobench-fixtures")

    return [TakeOver()] + ([runner] if runner is not None else [])


def _prepare(argv, plugins):
    """pytest configured with argv, the project's configuration taken over (_take_over)."""
    from _pytest.config import _prepareconfig
    config = _prepareconfig(argv, plugins=plugins)
    try:
        _take_over(config)
    except BaseException:
        config._ensure_unconfigure()
        raise
    return config


class _Internals(Exception):
    """pytest's internals are not what this module expects: pytest's main() takes over."""


def _collected_session(argv, plugins):
    """pytest configured with argv and the file collected, the steps of pytest's main() up to the
    run (_pytest.main.wrap_session): (config, session). No test runs and the session never ends,
    so no plugin's end-of-session report runs either (hypothesis's imports all of hypothesis there,
    a slow import (docs/evidence.md#behind-the-code), in a collection that never used it). Internal API: where it is not what
    this module expects, _Internals, and the caller falls back to pytest's main(); what pytest
    raises in its steps (a usage error, a conftest that does not import, a warning the project
    turns into an error) is pytest's refusal, raised as it is."""
    try:
        from _pytest.config import Config, _prepareconfig  # noqa: F401 - checked here, used by _prepare
        from _pytest.main import Session
        Session.from_config, Config._do_configure, Config._ensure_unconfigure  # noqa: B018
    except (ImportError, AttributeError) as error:
        raise _Internals(str(error)) from None
    config = _prepare(argv, plugins)
    try:
        config._do_configure()
        session = Session.from_config(config)
        config.hook.pytest_sessionstart(session=session)
        config.hook.pytest_collection(session=session)
    except BaseException:
        config._ensure_unconfigure()
        raise
    return config, session


def _user_frame(error):
    """Where in the user's files (not pytest's, pluggy's, isobench's or an installed package's) the
    error was raised, innermost first: " (at FILE:LINE)", or "" where none of its frames is."""
    import traceback
    ours = os.path.dirname(os.path.abspath(__file__)) + os.sep
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        name = frame.filename
        if name.startswith("<") or "site-packages" in name or "dist-packages" in name or name.startswith(ours):
            continue
        if os.path.dirname(name) == os.path.dirname(os.__file__):  # the standard library
            continue
        return " (at %s:%d)" % (name, frame.lineno)
    return ""


def _refusal(path, error, argv):
    """pytest's refusal to configure or collect the file, in one line naming the file and pytest's
    reason, with the remedy where there is one (argv: the arguments isobench gave pytest)."""
    pytest = _pytest()
    if isinstance(error, pytest.UsageError):
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        reason = next((line.split(" error: ", 1)[1] for line in lines if " error: " in line), lines[-1] if lines else "")
        inifile = next((line.split(": ", 1)[1] for line in lines if line.startswith("inifile: ")), "None")
        if not reason.startswith("unrecognized arguments: "):
            return "%s: pytest refused its arguments: %s" % (path, reason)
        unknown = reason.split(": ", 1)[1].split()
        if all(token in argv for token in unknown):
            source, remedy = "given with --pytest-arg", "leave it out"
        elif all(token in os.environ.get("PYTEST_ADDOPTS", "") for token in unknown):
            source, remedy = "in PYTEST_ADDOPTS", "install it there, or leave it out of PYTEST_ADDOPTS"
        else:
            source = "in addopts of %s" % (inifile if inifile != "None" else "the project's ini file")
            remedy = "install it there, or give --pytest-arg=--override-ini=addopts=... without it"
        return "%s: pytest refused its arguments: %s (%s): no plugin installed in %s adds it: %s" % (
            path, reason, source, sys.executable, remedy)
    if type(error).__name__ == "ConftestImportFailure":
        cause = getattr(error, "cause", None) or error.__cause__ or error
        return "%s: its conftest %s does not import: %s" % (path, getattr(error, "path", "?"),
                                                           contract.describe_exception(cause))
    if isinstance(error, Warning):
        text = " ".join(str(error).split())
        remedy = ""
        if text.startswith("Unknown config option"):
            remedy = ": no plugin installed in %s reads it: install the one that does, or remove the key" % sys.executable
        return ("%s: pytest stopped at a warning that the project's filterwarnings turns into an error: %s: %s%s%s"
                % (path, type(error).__name__, text, _user_frame(error), remedy))
    return "%s: pytest could not start (an internal error): %s: %s%s" % (
        path, type(error).__name__, " ".join(str(error).split()), _user_frame(error))


def collect(path, select="", args=()):
    """The tests of one file: [{"test", "function", "params", "benchmark", "doctest", "node_id",
    "skipped"}] (_tests_of); BridgeError naming the file when it does not collect (an import
    error, a syntax error, a bad argument: pytest's reason, in one line)."""
    pytest = _pytest()
    if not os.path.isfile(path):
        raise BridgeError("%s: no such test file" % path)
    argv = [path, "--collect-only"] + _COMMON_ARGS + (["-k", select] if select else []) + list(args)
    stdout = sys.stdout
    sys.stdout = sys.stderr  # pytest's listing is not the collection's answer
    skipped = {}
    try:
        collector = _Collector()
        try:
            config, session = _collected_session(list(argv), _plugins() + [collector])  # pytest adds addopts to it
            items = list(session.items)
            skipped = _skips(items)
            config._ensure_unconfigure()
        except _Internals:
            collector = _Collector()
            code = pytest.main(list(argv), plugins=_plugins() + [collector])
            if not collector.errors and code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
                raise BridgeError("%s: pytest ended with %s (its reasons are above, on standard error)"
                                  % (path, pytest.ExitCode(code).name)) from None
            items = collector.items
            skipped = _skips(items)  # pytest has unconfigured: a condition that needs it is left to the set-up
        except (Exception, SystemExit) as error:  # noqa: BLE001 - pytest's refusal, in its words
            if collector.errors:  # a collection error, reported as such below
                items = []
            else:
                raise BridgeError(_refusal(path, error, argv)) from None
    finally:
        sys.stdout = stdout
    if collector.errors:
        raise BridgeError("%s does not collect: %s" % (path, "; ".join(collector.errors)))
    return _tests_of(path, items, skipped)


class _Handed:
    """The callable a test handed to the fixture, with its arguments: the timed launch, and the
    teardown benchmark.pedantic was given (once, when the worker is done with the instance)."""

    __slots__ = ("target", "args", "kwargs", "after")

    def __init__(self, target, args, kwargs, after=None):
        self.target, self.args, self.kwargs = target, tuple(args), dict(kwargs or {})
        self.after = after

    def __call__(self):
        self.target(*self.args, **self.kwargs)

    def launch(self):
        self.target(*self.args, **self.kwargs)

    @property
    def teardown(self):
        if self.after is None:
            return None
        return lambda: self.after(*self.args, **self.kwargs)


class _Body:
    """A test measured by its mark (pytest-codspeed's marker-only style): its body, as pytest calls
    it (the pytest_pyfunc_call hook) with the fixture values of its set-up, kept past their
    teardown as the fixture's callable keeps what it closes over."""

    __slots__ = ("item", "runtest", "funcargs", "teardown")

    def __init__(self, item, runtest, funcargs):
        self.item, self.runtest, self.funcargs = item, runtest, funcargs
        self.teardown = None

    def __call__(self):
        self.item.funcargs = self.funcargs
        self.runtest()

    launch = __call__


class BenchmarkFixture:
    """What a test gets as `benchmark` (or `codspeed_benchmark`) in a worker: pytest-benchmark's and
    pytest-codspeed's call API (the decorator style too: `@benchmark` on a function calls it),
    not their timers."""

    def __init__(self):
        self.handed = None
        self.extra_info = {}
        self.group = None
        self.name = None

    def _hand(self, target, args, kwargs, after=None):
        if self.handed is not None:
            raise BridgeError("the test calls benchmark more than once: isobench times one callable per test")
        if not callable(target):
            raise BridgeError("benchmark() was given %s, not a callable" % type(target).__name__)
        self.handed = _Handed(target, args, kwargs, after)
        return target(*self.handed.args, **self.handed.kwargs)

    def __call__(self, function, *args, **kwargs):
        return self._hand(function, args, kwargs)

    def pedantic(self, target, args=(), kwargs=None, setup=None, teardown=None, rounds=1, warmup_rounds=0,
                 iterations=1):
        del rounds, warmup_rounds, iterations  # the sweep's samples, warmup and inner decide these
        if setup is not None:
            made = setup()
            if made is not None:
                args, kwargs = made
        return self._hand(target, args, kwargs, teardown)


def _runner_plugin():
    """A pytest plugin for a worker's session: it gives the test the fixture (through `fixtures`,
    registered when the session starts: _plugins), wraps the body of a test measured by its mark,
    and keeps the reports of the test that runs (reset() before the next)."""
    pytest = _pytest()

    class Fixtures:
        def __init__(self, runner):
            self.runner = runner

        @pytest.fixture(name=FIXTURE)
        def benchmark_fixture(self):
            return self.runner.fixture

        @pytest.fixture(name="codspeed_benchmark")
        def codspeed_benchmark_fixture(self):
            return self.runner.fixture

    class Runner:
        def __init__(self):
            self.fixtures = Fixtures(self)
            self.reset()

        def reset(self):
            self.fixture = BenchmarkFixture()
            self.reports = []

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_protocol(self, item, nextitem):
            del nextitem
            if not _measured_by_mark(item):
                return
            runtest, fixture = item.runtest, self.fixture

            def run_and_hand_over():
                runtest()  # the test's own call: its assertions run, untimed
                fixture.handed = _Body(item, runtest, dict(item.funcargs))

            item.runtest = run_and_hand_over

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
        self.config, session = _collected_session([path] + _COMMON_ARGS + list(args),
                                                  _plugins(self.runner) + [collector])
        if collector.errors or session.testsfailed:
            self.config._ensure_unconfigure()
            raise RuntimeError("the file does not collect")
        self.tests = _tests_of(path, session.items)
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
        item.__dict__.pop("runtest", None)  # a body measured by its mark is wrapped anew each time
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
    after starts with the session made (time each worker would otherwise spend:
    docs/evidence.md#behind-the-code).
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
            _pytest().main([self.label] + _COMMON_ARGS + self.args, plugins=_plugins(runner))
        ran = [r for r in runner.reports if r.when == "call"]
        for report in runner.reports:
            if report.failed:
                raise BridgeError("%s failed in its %s: %s" % (self.label, report.when, _reason(report)))
            if report.skipped:
                raise BridgeError("%s was skipped: %s" % (self.label, _reason(report)))
        if not ran:
            raise BridgeError("%s did not run (pytest found no such test)" % self.label)
        if runner.fixture.handed is None:
            raise BridgeError("%s never called benchmark(): there is nothing to time (a test measured without "
                              "the fixture is marked @pytest.mark.benchmark)" % self.label)
        return runner.fixture.handed


def run_test(path, test, args=()):
    """Runs one test in this process's session for the file (a session of its own where that
    cannot be made) and returns its reports: what a do_bench test's thread runs
    (isobench.do_bench)."""
    session = _worker_session(path, list(args))
    runner = session.run(test) if session is not None else None
    if runner is None:
        runner = _runner_plugin()
        _pytest().main(["%s::%s" % (path, test)] + _COMMON_ARGS + list(args), plugins=_plugins(runner))
    if not any(r.when == "call" for r in runner.reports) and not any(r.failed or r.skipped for r in runner.reports):
        raise BridgeError("%s::%s did not run (pytest found no such test)" % (path, test))
    return runner.reports


def worker_session(path, args=()):
    """This process's session for the file (made, and the file imported, on first use)."""
    return _worker_session(path, list(args))


TIMINGS = ("auto", "fixture", "do_bench")


def _cuda_initialised():
    torch = sys.modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized())
    except Exception:  # noqa: BLE001 - a torch without CUDA
        return False


def collect_suite(path, select="", args=(), timing="auto"):
    """collect(), and how the file's tests time: {"tests", "timing", "import_in_worker",
    "import_seconds"}. timing "fixture": the benchmark fixture or mark (collect() alone); "do_bench":
    each test runs once here and its timing calls through triton.testing are listed in its
    "calls" (isobench.do_bench); "auto": the fixture where a collected test takes it, else do_bench
    where the file imported triton. import_in_worker: importing the file initialised CUDA here, so
    no zygote may import it. BridgeError when a do_bench file makes no timing call."""
    if timing not in TIMINGS:
        raise BridgeError("%s: --timing %s: expected one of %s" % (path, timing, ", ".join(TIMINGS)))
    began = time.monotonic()
    tests = collect(path, select, args)
    took = time.monotonic() - began
    answer = {"tests": tests, "timing": "fixture", "import_in_worker": _cuda_initialised(),
              "import_seconds": round(took, 3)}
    if timing == "fixture" or (timing == "auto" and (any(t["benchmark"] for t in tests) or "triton" not in sys.modules)):
        return answer
    from . import do_bench
    runnable = [t["test"] for t in tests if not t["doctest"] and "skipped" not in t]
    stdout = sys.stdout
    sys.stdout = sys.stderr  # the tests' own printing is not the collection's answer
    try:
        session = _make_session(path, list(args))
        if session is None:
            raise BridgeError("%s: pytest could not make a session to run its tests in" % path)
        calls = do_bench.enumerate_calls(session, runnable, path)
    except do_bench.DoBenchError as error:
        raise BridgeError(str(error)) from None
    finally:
        sys.stdout = stdout
    if not any(calls.values()):
        if timing == "auto":
            return answer
        raise BridgeError("%s: no collected test times through triton.testing.do_bench or do_bench_cudagraph "
                          "(%d collected%s)" % (path, len(tests), " with -k " + select if select else ""))
    for entry in tests:
        entry["calls"] = calls.get(entry["test"], [])
    answer["timing"] = "do_bench"
    return answer


def _main(argv):
    if len(argv) < 2 or argv[0] != "collect":
        sys.stderr.write("usage: python3 -m isobench.pytest_bridge collect FILE [--select EXPR] [--timing MODE] "
                         "[-- PYTEST_ARGS...]\n")
        return 2
    path, rest = argv[1], argv[2:]
    extra = rest[rest.index("--") + 1:] if "--" in rest else []
    rest = rest[:rest.index("--")] if "--" in rest else rest
    select = rest[rest.index("--select") + 1] if "--select" in rest else ""
    # As collect_suite: auto, so that a do_bench file collected by hand lists its timing calls.
    timing = rest[rest.index("--timing") + 1] if "--timing" in rest else "auto"
    return print_collection(lambda: collect_suite(os.path.abspath(path), select, extra, timing), BridgeError)


def print_collection(collect, refusal):
    """The collector's answer on standard output, one JSON line: what collect() returned, or
    {"error": ...} with the one line of a `refusal` it raised; exit code 0 or 1."""
    bytecode.keep()  # the file imports torch as each side's zygote does
    try:
        answer = collect()
    except refusal as error:
        answer = {"error": " ".join(str(error).split())}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0 if "tests" in answer else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
