"""do_bench suites: pytest files whose tests time through `triton.testing.do_bench` or
`do_bench_cudagraph` (FlagGems' benchmark/, Liger-Kernel's scripts, tritonbench), A/B'd as they
are (docs/python.md, "do_bench suites").

Each timing call a test makes is an instance, named by what it measures:
- a FlagGems `Benchmark` (its `get_latency(op, *args)` called from its `run()`): OP/IMPL/DTYPE/SHAPE,
  IMPL "torch" for the torch operator and "gems" for the same call inside `flag_gems.use_gems()`
  (or the Benchmark's own gems_op), SHAPE the sizes of its tensor arguments ("1024x1024", several
  joined by ","), a repeat of a name within the test suffixed "#2", "#3", ...;
- a call made on behalf of a run input in the style of Liger-Kernel's benchmark scripts (a
  function on the stack holds an object with `x` and `kernel_provider`, its SingleBenchmarkRunInput,
  and one holds `kernel_name`, its run_benchmarks): KERNEL/PROVIDER/MODE/X
  ("rms_norm/liger/forward/1024"; MODE left out where the input has none), a repeat suffixed as above;
- anything else: the function that called do_bench (its qualified name; a script's module-level
  code is the file's stem) and the ordinal of the call among that function's calls in the test:
  "bench_softmax#1".
The names come from running the test, so they are the same on both sides of a run as long as the
test makes the same calls. A FlagGems call of IMPL "torch" is a control: it times the torch
operator, which an A/B of two FlagGems builds does not change, so it should come out SAME (the
listing marks it `"control": true`, the report shows it apart). So is a Liger-style call whose
PROVIDER does not start with "liger" (Liger's "huggingface" and "torch" references). Other
suites' calls have no rule that tells a control, and are none.

At collection (`enumerate_calls`, in the orchestrator's collector process, which may touch CUDA)
each test runs once with do_bench answering at once (the callable is not called, the answer is
PLACEHOLDER_MS of do_bench's kind): the test's calls are listed, not timed.

In a worker (`DoBenchTest`), an instance's set-up runs its test in a thread of its own up to the
call it names: earlier calls answer at once, as at collection; at the call the test stops, inside
do_bench, and the callable it passed is what the worker times, in place: whatever the call's
context holds (FlagGems' use_gems() overrides) holds while it is timed. The test goes forward: the
set-up of a later call of the same test moves the stopped test on to that call (the calls between
answer at once) rather than running it again, so a worker whose tasks list a test's calls in call
order (the schedule keeps them so) runs the test once and times each call as the test reaches it.
Each such instance is set up in its turn, right before the worker times it (worker/worker_session.cpp):
its callable holds only until the test goes on. A stopped test changes what the others' callables
run (use_gems() overrides the whole process), so at most one test is stopped at a time: setting
up or launching an instance of another test, or an earlier call of this one, lets the stopped test
go (do_bench returns, and the test ends at its next timing call) and runs the other instance's
test again up to its call. When moved on or let go, the call returns the host time per launch the
worker spent in it, in do_bench's kind (a float in ms; a list with quantiles= or return_mode="all"):
a value for the test to go on with, not the measurement, which is isobench's.

Calls made by autotuners pass through to Triton's own do_bench untouched: calls from a module of
triton or flag_gems (Triton's Autotuner looks do_bench up when it first benchmarks; FlagGems'
tuner binds it when imported), and any call made while a Triton Autotuner is on the stack.
"""

import os
import sys
import threading
import time

from . import benchmark as contract

NAMES = ("do_bench", "do_bench_cudagraph")
PLACEHOLDER_MS = 1.0
# Modules whose calls are autotuning, never a test's own timing.
_TUNER_PACKAGES = ("triton", "flag_gems")

_local = threading.local()  # .run: the _Listing or _TestRun of the test running in this thread


class DoBenchError(contract.ContractError):
    """A test whose timing calls cannot be listed or reached: one line."""


class _LetGo(BaseException):
    """Raised at a test's next timing call once the worker let it go: the test ends there (a
    BaseException, so that a test's `except Exception` does not keep it going)."""


def answer(kwargs, value_ms):
    """value_ms in the kind do_bench returns for these keyword arguments: a list with quantiles
    (one value alone as Triton gives it) or return_mode="all", else a float."""
    quantiles = kwargs.get("quantiles")
    if quantiles is not None:
        values = [float(value_ms)] * len(quantiles)
        return values[0] if len(values) == 1 else values
    if kwargs.get("return_mode") == "all":
        return [float(value_ms)]
    return float(value_ms)


def _from_tuner(frame):
    """Whether the do_bench call made from `frame` is an autotuner's."""
    if frame.f_globals.get("__name__", "").split(".")[0] in _TUNER_PACKAGES:
        return True
    autotuner = sys.modules.get("triton.runtime.autotuner")
    tuner_class = getattr(autotuner, "Autotuner", None)
    depth = 0
    while frame is not None and depth < 64 and tuner_class is not None:
        if isinstance(frame.f_locals.get("self"), tuner_class):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _shape(args):
    shapes = []
    for arg in args:
        size = getattr(arg, "shape", None)
        if size is not None and not isinstance(arg, type):
            shapes.append("x".join(str(int(d)) for d in size) or "scalar")
    return ",".join(shapes) or "noshape"


def _flaggems_name(frame):
    """(OP/IMPL/DTYPE/SHAPE, IMPL) when the call comes from a FlagGems Benchmark's get_latency, else None."""
    depth = 0
    while frame is not None and depth < 16:
        bench = frame.f_locals.get("self") if frame.f_code.co_name == "get_latency" else None
        if bench is not None and hasattr(bench, "op_name") and hasattr(bench, "torch_op"):
            op = frame.f_locals.get("op")
            gems = sys.modules.get("flag_gems")
            overridden = gems is not None and getattr(gems, "current_work_registrar", None) is not None
            impl = "gems" if (op is not None and op is getattr(bench, "gems_op", None)) or overridden else "torch"
            caller = frame.f_back
            dtype = caller.f_locals.get("dtype") if caller is not None else None
            dtype = str(dtype).replace("torch.", "") if dtype is not None else "nodtype"
            return "%s/%s/%s/%s" % (bench.op_name, impl, dtype, _shape(frame.f_locals.get("args", ()))), impl
        frame, depth = frame.f_back, depth + 1
    return None


def _is_run_input(value):
    try:
        return not isinstance(value, type) and hasattr(value, "kernel_provider") and hasattr(value, "x")
    except Exception:  # noqa: BLE001 - a property that raises more than AttributeError: not one
        return False


def _liger_name(frame):
    """(KERNEL/PROVIDER/MODE/X, PROVIDER) when a function on the stack holds a run input shaped
    like Liger-Kernel's SingleBenchmarkRunInput (x, kernel_provider, kernel_operation_mode),
    KERNEL the `kernel_name` a caller of it holds (its run_benchmarks); else None."""
    run_input, kernel, depth = None, None, 0
    while frame is not None and depth < 16 and kernel is None:
        if run_input is None:
            run_input = next((value for value in frame.f_locals.values() if _is_run_input(value)), None)
        name = frame.f_locals.get("kernel_name")
        if run_input is not None and isinstance(name, str):
            kernel = name
        frame, depth = frame.f_back, depth + 1
    if run_input is None:
        return None
    provider = str(run_input.kernel_provider)
    parts = [kernel, provider, getattr(run_input, "kernel_operation_mode", None), run_input.x]
    return "/".join(str(part) for part in parts if part not in (None, "")), provider


def _caller_name(frame):
    """The function outside isobench and triton that made the call: its qualified name (a
    module's own code, a script's loop, by the file's stem)."""
    ours = os.path.dirname(os.path.abspath(__file__))
    while frame is not None and (os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == ours
                                 or frame.f_globals.get("__name__", "").split(".")[0] == "triton"):
        frame = frame.f_back
    if frame is None:
        return "call"
    if frame.f_code.co_name == "<module>":
        return os.path.splitext(os.path.basename(frame.f_code.co_filename))[0]
    return getattr(frame.f_code, "co_qualname", frame.f_code.co_name)


class _Names:
    """The names of one run of a test's timing calls, in order, and whether each is a control."""

    def __init__(self):
        self.seen = {}

    def next(self, frame):
        """(name, control): control is True for a FlagGems torch-operator call and a Liger-style
        call of a provider other than Liger's own."""
        named = _flaggems_name(frame)
        control = named is not None and named[1] == "torch"
        if named is None:
            named = _liger_name(frame)
            control = named is not None and not named[1].startswith("liger")
        base = named[0] if named is not None else _caller_name(frame)
        count = self.seen.get(base, 0) + 1
        self.seen[base] = count
        if named is None:
            return "%s#%d" % (base, count), False
        return (base if count == 1 else "%s#%d" % (base, count)), control


def keywords_of(original, args, kwargs):
    """The call's arguments after fn by name (quantiles, return_mode, ... given by position too),
    as do_bench's signature names them."""
    if not args:
        return kwargs
    import inspect
    try:
        bound = inspect.signature(original).bind_partial(None, *args, **kwargs).arguments
    except (TypeError, ValueError):
        return kwargs
    bound.pop(next(iter(bound)), None)  # fn
    return dict(bound)


def _timing_function(original, kind):
    def timing(fn, *args, **kwargs):
        run = getattr(_local, "run", None)
        caller = sys._getframe(1)
        if run is None or _from_tuner(caller):
            return original(fn, *args, **kwargs)
        return run.timing_call(kind, fn, keywords_of(original, args, kwargs), caller)

    timing.isobench_original = original
    timing.__name__ = kind
    timing.__doc__ = getattr(original, "__doc__", None)
    return timing


def install():
    """triton.testing's do_bench and do_bench_cudagraph, replaced by isobench's (they pass every
    call through unless a test this module runs makes it). DoBenchError where triton.testing does
    not import."""
    try:
        import triton.testing as testing
    except Exception as error:  # noqa: BLE001 - why, in one line
        raise DoBenchError("do_bench suites need triton.testing in the interpreter that runs them: %s"
                           % contract.describe_exception(error)) from None
    for kind in NAMES:
        current = getattr(testing, kind, None)
        if current is not None and getattr(current, "isobench_original", None) is None:
            setattr(testing, kind, _timing_function(current, kind))
    return testing


class _Listing:
    """A test run at collection: its timing calls, answered at once."""

    def __init__(self):
        self.names = _Names()
        self.calls = []

    def timing_call(self, kind, fn, kwargs, caller):
        del fn
        name, control = self.names.next(caller)
        call = {"name": name, "kind": kind}
        if control:
            call["control"] = True
        self.calls.append(call)
        return answer(kwargs, PLACEHOLDER_MS)


def enumerate_calls(session, tests, label):
    """{test: [{"name", "kind"}]} for each test of `tests` run in `session` (a pytest_bridge
    worker session), listing its timing calls; DoBenchError naming the test when one fails."""
    install()
    from .pytest_bridge import _reason
    found = {}
    for test in tests:
        listing = _Listing()
        _local.run = listing
        try:
            runner = session.run(test)
        finally:
            _local.run = None
        for report in runner.reports if runner is not None else ():
            if report.failed:
                raise DoBenchError("%s::%s failed while its timing calls were listed (in its %s): %s"
                                   % (label, test, report.when, _reason(report)))
        skipped = runner is None or any(r.skipped for r in runner.reports)
        found[test] = [] if skipped else listing.calls
    return found


class _TestRun:
    """One run of a test in a thread of its own. It stops at the timing call named `target`,
    inside do_bench, and waits there until the worker moves it on to a later call (advance) or
    lets it go; the calls on the way answer at once."""

    def __init__(self, run_test, label, stream, device_index, ends_when_let_go=False):
        self.run_test, self.label = run_test, label
        # A script's run ends inside the call it waits at when let go (_LetGo raised there), so
        # nothing after its last timing call runs (the CSV a Liger-Kernel script writes at its
        # end); a pytest test's call returns and the test ends at its next call, as before.
        self.ends_when_let_go = ends_when_let_go
        self.stream, self.device_index = stream, device_index
        self.names = _Names()
        self.target = None
        self.fn = None
        self.kwargs = {}
        self.seen = []
        self.arrived = threading.Event()
        self.resume = threading.Event()
        self.reply = None     # what the call it waits at returns when it goes on
        self.released = False
        self.failure = None
        self.launches, self.launch_seconds = 0, 0.0
        self.thread = None

    def start(self, target):
        self.target = target
        self.thread = threading.Thread(target=self._body, name="isobench-test", daemon=True)
        self.thread.start()
        self._wait_for_target()

    def passed(self, target):
        """Whether the test made the call named `target` already (going on cannot reach it)."""
        return target in self.seen

    def advance(self, target):
        """From the call it waits at on to the later call named `target`."""
        self._reply_for_current()
        self.target, self.fn, self.kwargs = target, None, {}
        self.arrived.clear()
        self.resume.set()
        self._wait_for_target()

    def let_go(self):
        self._reply_for_current()
        self.released = True
        self.resume.set()
        self.thread.join()

    def _wait_for_target(self):
        self.arrived.wait()
        if self.fn is None:
            self.thread.join()
            if self.failure:
                raise DoBenchError(self.failure)
            raise DoBenchError("%s made no timing call named %s (its calls here: %s)"
                               % (self.label, self.target, ", ".join(self.seen) or "none"))

    def _reply_for_current(self):
        per_launch = self.launch_seconds / self.launches * 1e3 if self.launches else PLACEHOLDER_MS
        self.reply = answer(self.kwargs, per_launch)
        self.launches, self.launch_seconds = 0, 0.0

    def _body(self):
        _local.run = self
        try:
            torch = sys.modules.get("torch")
            if self.stream is not None and torch is not None:
                from . import streams
                torch.cuda.set_device(self.device_index)
                streams.torch_stream(self.stream, self.device_index).__enter__()
            self.failure = self.run_test(before_target=lambda: self.fn is None)
        except BaseException as error:  # noqa: B036 - said by start()
            self.failure = "%s: %s" % (self.label, contract.describe_exception(error))
        finally:
            _local.run = None
            self.arrived.set()

    def timing_call(self, kind, fn, kwargs, caller):
        del kind
        if self.released:
            raise _LetGo()
        name, _ = self.names.next(caller)
        self.seen.append(name)
        if name != self.target:
            return answer(kwargs, PLACEHOLDER_MS)
        self.fn, self.kwargs = fn, kwargs
        self.arrived.set()
        self.resume.wait()
        self.resume.clear()  # before the next call waits on it; the worker sets it only once arrived
        if self.released and self.ends_when_let_go:
            raise _LetGo()
        return self.reply


class DoBenchInstance:
    """One timing call of one test, as the worker times it: launch() calls the callable the test
    passed to do_bench while the test waits inside the call."""

    holder = None  # the instance whose test waits at its call, in this process

    def __init__(self, test, call, stream, device_index):
        self.test, self.call = test, call
        self.stream, self.device_index = stream, device_index
        self.run = None

    def ensure(self):
        """Brings the test to this instance's call: on from the call it waits at when that is an
        earlier call of the same test, else in a run of its own from the start."""
        holder = DoBenchInstance.holder
        if holder is self:
            return
        DoBenchInstance.holder = None
        if holder is not None and holder.test is self.test and not holder.run.passed(self.call):
            run = holder.run
            run.advance(self.call)
        else:
            if holder is not None:
                holder.run.let_go()
            run = _TestRun(self.test.run_test, self.test.label, self.stream, self.device_index,
                           self.test.ENDS_WHEN_LET_GO)
            run.start(self.call)
        self.run = run
        DoBenchInstance.holder = self

    def first_launch(self):
        """The callable's first call, in the set-up, as do_bench's own first call: what it compiles
        and autotunes for its inputs is done before any timed launch (isobench.autotune refuses
        autotuning in a sample)."""
        self.run.fn()

    def release(self):
        if DoBenchInstance.holder is self:
            DoBenchInstance.holder = None
            self.run.let_go()

    def launch(self):
        if DoBenchInstance.holder is not self:
            self.ensure()
        run = self.run
        began = time.perf_counter()
        run.fn()
        run.launch_seconds += time.perf_counter() - began
        run.launches += 1

    def teardown(self):
        self.release()


class DoBenchTest:
    """The set-up function of a do_bench test's instances (the zygote registers one per test):
    called with the instance's parameters, `call` among them, it runs the test up to that call
    (DoBenchInstance). import_in_worker: the file initialises CUDA when imported, so the zygote
    never imported it and this worker does, once, saying how long it took."""

    imported = set()
    ENDS_WHEN_LET_GO = False  # a test goes on to its next timing call (_TestRun)

    def __init__(self, path, test, args=(), import_in_worker=False):
        self.path, self.test, self.args = path, test, list(args)
        self.label = "%s::%s" % (path, test)
        self.import_in_worker = import_in_worker

    def run_test(self, before_target):
        from . import pytest_bridge
        reports = pytest_bridge.run_test(self.path, self.test, self.args)
        for report in reports:
            if report.failed and before_target():
                return "%s failed in its %s before the timing call: %s" % (self.label, report.when,
                                                                           pytest_bridge._reason(report))
            if report.skipped and before_target():
                return "%s was skipped: %s" % (self.label, pytest_bridge._reason(report))
        return None

    def _import_here(self):
        key = (self.path, tuple(self.args))
        if key in DoBenchTest.imported:
            return
        from . import pytest_bridge
        began = time.monotonic()
        pytest_bridge.worker_session(self.path, self.args)
        took = time.monotonic() - began
        DoBenchTest.imported.add(key)
        if self.import_in_worker:
            import gc
            gc.freeze()  # as the zygote does after its imports: a test's gc.collect() skips them
            sys.stderr.write("isobench: %s imported in worker %d in %.2f s (it initialises CUDA when imported, "
                             "so the zygote did not import it)\n" % (self.path, os.getpid(), took))
            sys.stderr.flush()

    def __call__(self, seed, device, stream, call=None, **params):
        del seed, params
        if call is None:
            raise DoBenchError("%s: the instance names no timing call (its parameter `call`)" % self.label)
        install()
        self._import_here()
        device_index = int(device.split(":")[1]) if device.startswith("cuda:") else 0
        if stream is not None:
            _worker_stream(stream, device_index)
        instance = DoBenchInstance(self, call, stream, device_index)
        instance.ensure()
        from . import autotune
        autotune.rescan()  # the autotuners of a file this set-up imported, pinned and watched before they run
        instance.first_launch()
        return instance


_STREAM_ENTERED = []


def _worker_stream(stream, device_index):
    """The worker's stream as torch's current stream in this (the worker's main) thread, once: the
    worker makes it so before a set-up, but a file imported in the worker brought torch in only
    during the first set-up (isobench.streams)."""
    torch = sys.modules.get("torch")
    if _STREAM_ENTERED or torch is None:
        return
    from . import streams
    torch.cuda.set_device(device_index)
    streams.torch_stream(stream, device_index).__enter__()  # for the worker's life
    _STREAM_ENTERED.append(stream)
