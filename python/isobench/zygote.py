"""The zygote: one long-lived Python process per side of a run, forking a worker per job.

    python3 -m isobench.zygote ORCHESTRATOR_PID        (started by orchestrate, never by hand)

It imports the run's benchmark modules and their dependencies (torch, triton) once, never
touches CUDA, and forks a fresh worker for each sample or batch the schedule asks for. A file whose
import asks torch about the GPU (`import flag_gems`) is imported with CUDA deferred
(isobench.deferred_cuda: torch answers from facts recorded in a fresh interpreter), or left to each
worker where its import needs a CUDA context all the same. A forked
worker is a full isobench worker (isobench.worker_library): it attaches to the run's segment,
waits for its context permit, creates its CUDA context, sets its instances up, waits for its
measure permit, times them, seals its slots and exits. Nothing a worker did survives into the
next one: each is forked from the zygote's state as it was after the imports.

The orchestrator talks to it over the AF_UNIX stream socket on its stdin, one JSON object per
line (orchestrator/python/zygote.cpp is the other end):

  orchestrator -> zygote
    {"op": "import", "protocol": 1, "library": PATH, "benchmarks": [{"module": M, "pytest": {"args": [...]}}]}
      none or more before the load: a zygote started while the sweep is loaded collects (and so
      imports) each pytest file the sweep names while the orchestrator collects it too; nothing
      is answered, and a file that does not collect is refused by the load that needs it (a
      zygote of an isobench older than this line refuses it and exits: the orchestrator then
      starts that side's zygote again once the plan is made). With "defer_cuda": true (sent to
      zygotes of the orchestrator's own build only), CUDA is deferred from torch's import on
      (deferred_cuda.install_when_imported): a file that asks about the device is imported as the
      load would import it with CUDA deferred, one that asks nothing as plainly as without; then
      {"op": "imported", "flag_gems": bool} is answered once the request's files are imported
      (whether flag_gems, which reads FLAGGEMS_CACHE_DIR when imported, was among them)
    {"op": "load", "protocol": 1, "library": PATH, "benchmarks": [{"module": M, "function": F,
      "instances": [{"id": ID, "params": {...}, "device": "cpu" | "cuda"}]}], "unset": [NAME...]}
      then this line ("unset", optional: variables the zygote was started with that the plan's
      zygote has not, taken out of its environment before any worker is forked)
      (a test of a pytest file: M the file, F the test's name in it, and "pytest": {"args": [...]},
      with "timing": "do_bench" and "import_in_worker": true|false for a file timed through
      triton.testing.do_bench: isobench.do_bench; "import_in_worker": the collector saw its import
      initialise CUDA, so the zygote imports it with CUDA deferred, or leaves it to each worker;
      and "script": true for a benchmark script, M the script, F its stem: isobench.script_bridge)
    {"op": "output", "path": PATH}        its and its workers' stdout and stderr from now on
    {"op": "fork", "serial": N, "args": [...]}  a worker with isobench-worker's arguments
  zygote -> orchestrator
    {"op": "ready", "protocol": 1, "python": ..., "imports": [...], "warm_up": [...], "notes": [...],
     "deferred_cuda": {...}}
      (an import, or a step of isobench.fork_warmup, done before the load is marked "early";
      "deferred_cuda" where a file was imported with CUDA deferred: Zygote.deferred_record)
    {"op": "refused", "module": M, "function": F, "instance": ID, "reason": ...}   then it exits
    {"op": "forked", "serial": N, "pid": P}   with the worker's pidfd attached (SCM_RIGHTS)
    {"op": "exited", "pid": P, "status": S}   S: the raw wait status, once it is reaped

The pidfd lets the orchestrator signal its worker with no race against a reused pid; the exit
status can only come from the zygote, the worker's parent. When the socket closes (the
orchestrator is done or gone) the zygote kills its workers and exits; it dies with the
orchestrator (PR_SET_PDEATHSIG), and its workers with it.
"""

import array
import ctypes
import gc
import json
import os
import select
import signal
import socket
import sys
import time

from . import benchmark as contract
from . import bytecode
from . import deferred_cuda
from . import do_bench
from . import fork_warmup
from . import pytest_bridge
from . import script_bridge
from .worker_library import WorkerLibrary

PROTOCOL = 1
_PR_SET_PDEATHSIG = 1


class Refusal(Exception):
    """Why the zygote cannot serve the run: one line naming the module, function and instance."""

    def __init__(self, module, function, instance, reason):
        super().__init__(reason)
        self.fields = {"module": module, "function": function, "instance": instance, "reason": reason}


def _die_with_parent(expected_parent):
    """SIGKILL when the parent dies; exits at once when it is already gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != expected_parent:
        os._exit(1)


_CUDA_INITIALISED = "importing it initialised CUDA (torch.cuda.is_initialized()): a zygote must never touch CUDA, " \
    "or no worker forked from it can; move CUDA work (tensors on the GPU, torch.cuda calls) into the set-up function"


def _cuda_initialised_by(module):
    """The check that keeps CUDA out of the zygote: a CUDA context made before fork() is unusable
    in every child. torch says whether it initialised CUDA; a refusal names the module whose
    import did. A libcuda mapped into the process is noted (it is loaded, not necessarily
    initialised, and other libraries load it for other reasons)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return _CUDA_INITIALISED
    return None


# What a failed deferred import leaves imported: the zygote's own (torch, Triton, pytest, isobench
# hold each other), and numpy, whose extension refuses a second initialisation in one process.
_KEPT_PACKAGES = ("torch", "triton", "isobench", "pytest", "_pytest", "pluggy", "numpy")


def _forget_imports_since(before):
    """Removes from sys.modules the pure-Python modules imported since `before` (a set of names),
    so that a worker imports them again, as a fresh process would: those of the file, its
    conftests and what they import (flag_gems). Extension modules stay: most cannot be initialised
    twice, and they hold no state of the failed import."""
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        source = getattr(module, "__file__", None) or ""
        if name.partition(".")[0] not in _KEPT_PACKAGES and source.endswith(".py"):
            del sys.modules[name]
    # Collected now, before gc.freeze() keeps them for good: what they registered with torch
    # (torch.library.Library objects undo their registrations when collected) is undone before the
    # workers import them again.
    gc.collect()


def _libcuda_loaded():
    try:
        with open("/proc/self/maps") as maps:
            return any("libcuda.so" in line for line in maps)
    except OSError:
        return False


class _PytestImport:
    """How Zygote.import_deferred imports a pytest file: by collecting it."""

    def __init__(self, zygote, path, args):
        self.zygote, self.path, self.args = zygote, path, args

    def prepare(self):
        try:
            pytest_bridge._pytest()  # pytest itself stays: the zygote's own modules hold it
        except pytest_bridge.BridgeError:
            pass  # the collection says so

    def attempt(self):
        """Why the file was not imported (a line), or None."""
        try:  # pytest's session first: where the import reaches _lazy_init, collect() would import it again
            pytest_bridge.prepare_for_workers(self.path, self.args)
        except BaseException:  # noqa: B036 - collect() below says what went wrong
            pass
        if deferred_cuda.callers():
            return None  # said as the lazy_init it reached
        tests = self.zygote.collect(self.path, self.args)
        return "it does not collect with CUDA deferred: %s" % tests if isinstance(tests, str) else None

    def forget(self):
        key = (self.path, tuple(self.args))
        self.zygote.collected.pop(key, None)
        pytest_bridge._PREPARED.pop(key, None)  # each worker makes its own session


class _ScriptImport:
    """How Zygote.import_deferred imports a benchmark script: its top-level import statements."""

    def __init__(self, test):
        self.test = test

    def prepare(self):
        pass

    def attempt(self):
        try:
            self.test.import_here()
        except BaseException as error:  # noqa: B036 - said as the reason its workers import it
            return "its imports fail with CUDA deferred: %s" % contract.describe_exception(error)
        return None

    def forget(self):
        pass


class Channel:
    """The socket to the orchestrator: JSON lines in, JSON lines (and pidfds) out."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def send(self, message, fds=()):
        data = (json.dumps(message) + "\n").encode()
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        sent = self.sock.sendmsg([data], ancillary)
        if sent < len(data):
            self.sock.sendall(data[sent:])

    def receive(self):
        """The next message, or None at end of file (blocks)."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def pending(self):
        return b"\n" in self.buffer


class Zygote:
    def __init__(self, channel):
        self.channel = channel
        self.library = None
        self.children = {}  # pidfd -> pid
        # (pytest file, args) -> {test name: collected test}, or why it does not collect (str)
        self.collected = {}
        self.imports, self.notes = [], []
        self.bytecode = None  # where the imports' bytecode is kept (isobench.bytecode), or None
        self.warmed = []  # the fork_warmup steps done so far, those of an "import" request marked early
        # Files whose import initialised CUDA at collection, imported here with CUDA deferred
        # (isobench.deferred_cuda): the recorder of the device facts, and per file what happened.
        self.facts = None
        self.deferred = []
        # (pytest file, args) -> what its early import with CUDA deferred found (import_early_deferred),
        # for a file that asked about the device: the load concludes it as it would its own attempt.
        self.early_deferred = {}
        self.said = []  # the lines for workers.log about them, written once its output is there

    def import_early(self, request):
        """An "import" request: each pytest file collected now, before the load that will need it,
        after the worker library as in a load. A request of another protocol, or a library that
        does not load, is left to the load to refuse."""
        if request.get("protocol") != PROTOCOL:
            return
        try:
            self.load_library(request["library"])
        except Refusal:
            return
        defer = request.get("defer_cuda") is True
        for entry in request["benchmarks"]:
            began = time.monotonic()
            had_libcuda = _libcuda_loaded()
            if defer:
                self.import_early_deferred(entry["module"], entry["pytest"]["args"])
            else:
                self.collect(entry["module"], entry["pytest"]["args"])
            self.imports.append({"module": entry["module"], "seconds": time.monotonic() - began, "early": True})
            self.note_libcuda(had_libcuda, entry["module"])
        # The warm-up too, while the orchestrator still collects (the load checks what it did).
        self.warm_up(early=True)
        if defer:
            # FLAGGEMS_CACHE_DIR, which the orchestrator gives a zygote that may serve do_bench
            # instances, is read by flag_gems' import: a plan without them takes this zygote only
            # where flag_gems was not imported (the variable then read by no one, and unset).
            self.channel.send({"op": "imported", "flag_gems": "flag_gems" in sys.modules})

    def import_early_deferred(self, path, args):
        """The early import of a pytest file with CUDA deferred from torch's import on
        (deferred_cuda.install_when_imported), as the load would import a file whose import
        initialises CUDA, but before anyone knows whether it does: the collector finds out at the
        same time. A file that asked nothing that initialises CUDA stands as a plain import left it
        (withdraw). One that asked is kept in early_deferred, as import_deferred's attempt would leave it (forgotten
        again where it reached _lazy_init or did not collect), for the load to conclude."""
        try:
            pytest_bridge._pytest()
        except pytest_bridge.BridgeError:
            pass  # the collection says so
        before = set(sys.modules)
        had_driver = deferred_cuda.driver_initialised()
        deferred_cuda.install_when_imported()
        deferred_cuda.clear_callers()
        deferred_cuda.clear_asked()
        began = time.monotonic()
        tests = self.collect(path, args)
        seconds = time.monotonic() - began
        if not set(deferred_cuda.asked()) & set(deferred_cuda.INITIALISING):
            # Nothing a plain import would have initialised CUDA for (is_available and device_count
            # do not): the answers were the facts' and the same, and the file stands as plainly imported.
            deferred_cuda.withdraw()
            return
        record = {"file": path, "imported": False, "lazy_init": list(dict.fromkeys(deferred_cuda.callers())),
                  "reason": None, "seconds": round(seconds, 3), "early": True}
        recorder = deferred_cuda.started_recorder()  # at the file's first question; none for _lazy_init alone
        if recorder is not None and recorder.facts is not None:
            record["facts_seconds"] = round(recorder.seconds, 3)
            record["devices"] = [d.get("name") for d in recorder.facts["devices"]]
        elif recorder is not None and recorder.error is not None:
            record["reason"] = "the device facts could not be recorded: %s" % recorder.error
        if record["reason"] is None and record["lazy_init"]:
            record["reason"] = "its import reached torch.cuda._lazy_init at %s" % ", ".join(record["lazy_init"])
        elif record["reason"] is None and isinstance(tests, str):
            record["reason"] = "it does not collect with CUDA deferred: %s" % tests
        self.early_deferred[(path, tuple(args))] = {
            "record": record, "initialised": _cuda_initialised_by(path) is not None,
            "driver": not had_driver and deferred_cuda.driver_initialised()}
        if record["reason"] is not None:
            _PytestImport(self, path, args).forget()
            _forget_imports_since(before)
    def warm_up(self, early):
        """What every worker's first Triton launch would compute again (isobench.fork_warmup),
        done now; a step done already is cached and not listed again."""
        done = {step["step"] for step in self.warmed}
        self.warmed += [dict(step, early=True) if early else step for step in fork_warmup.warm_up()
                        if step["step"] not in done]

    def load_library(self, path):
        if self.library is None:
            try:
                self.library = WorkerLibrary(path)
            except (OSError, contract.ContractError) as error:
                raise Refusal("", "", "", "cannot load the worker library: %s" % error) from None

    def note_libcuda(self, had_libcuda, module):
        if not had_libcuda and _libcuda_loaded():
            self.notes.append("libcuda was loaded while importing %s: if CUDA was initialised there, the workers "
                              "forked from this zygote cannot use it" % module)

    def load(self, request):
        if request.get("op") != "load" or request.get("protocol") != PROTOCOL:
            raise Refusal("", "", "", "this isobench package speaks zygote protocol %d, the orchestrator sent %s"
                          % (PROTOCOL, json.dumps({k: request.get(k) for k in ("op", "protocol")})))
        self.load_library(request["library"])
        for name in request.get("unset", []):
            os.environ.pop(name, None)
        imports, notes = self.imports, self.notes
        if any(entry.get("pytest", {}).get("import_in_worker") for entry in request["benchmarks"]):
            # beside the imports below: a fresh interpreter (the one an early import started, if any)
            self.facts = deferred_cuda.shared_recorder()
        for entry in request["benchmarks"]:
            module, function = entry["module"], entry["function"]
            first = entry["instances"][0]["id"] if entry["instances"] else ""
            began = time.monotonic()
            had_libcuda = _libcuda_loaded()
            if "pytest" in entry:
                found = self.pytest_test(module, function, entry["pytest"], first)
            else:
                try:
                    loaded = contract.load_module(module)
                except BaseException as error:  # noqa: B036 - any failure to import is a refusal
                    raise Refusal(module, function, first, "cannot import %s: %s"
                                  % (module, contract.describe_exception(error))) from None
            imports.append({"module": module, "seconds": time.monotonic() - began})
            if problem := _cuda_initialised_by(module):
                raise Refusal(module, function, first, problem)
            self.note_libcuda(had_libcuda, module)
            try:
                if "pytest" not in entry:
                    found = contract.resolve_function(loaded, module, function)
                for instance in entry["instances"]:
                    try:
                        contract.check_arguments(found, instance["params"], instance["device"])
                    except contract.ContractError as error:
                        raise Refusal(module, function, instance["id"], "%s() %s" % (function, error)) from None
                self.library.register(module, function, found)
            except contract.ContractError as error:
                raise Refusal(module, function, first, str(error)) from None
        self.warm_up(early=False)
        warmed = list(self.warmed)
        if _cuda_initialised_by("isobench.fork_warmup"):
            raise Refusal("", "", "", "isobench's warm-up of the zygote (%s) initialised CUDA, so no worker forked "
                          "from it could use CUDA: this Triton touches CUDA where it did not before (isobench.fork_warmup)"
                          % ", ".join(w["step"] for w in warmed))
        # Every object the imports made goes to the permanent generation: the workers' collections
        # then never walk them, so they neither pay for it nor copy the zygote's pages on write.
        gc.freeze()
        ready = {"op": "ready", "protocol": PROTOCOL, "pid": os.getpid(), "python": sys.version.split()[0],
                 "executable": sys.executable, "imports": imports, "warm_up": warmed, "notes": notes,
                 "bytecode": self.bytecode,
                 "versions": {name: getattr(sys.modules[name], "__version__", "?")
                              for name in ("torch", "triton", "numpy") if name in sys.modules}}
        if self.deferred_record() is not None:
            ready["deferred_cuda"] = self.deferred_record()
        self.channel.send(ready)

    def collect(self, path, args):
        """The file's tests by name, collected once per set of arguments (so that it and what it
        imports are imported before the fork), or why it does not collect. The collection is the
        pytest session every worker forked after runs its tests in (pytest_bridge.prepare_for_workers:
        pytest configured once in the zygote); where that session cannot be made, pytest's own
        collection says why."""
        key = (path, tuple(args))
        if key not in self.collected:
            try:
                tests = pytest_bridge.prepare_for_workers(path, args)
                if tests is None:
                    tests = pytest_bridge.collect(path, "", args)
                self.collected[key] = {t["test"]: t for t in tests}
            except BaseException as error:  # noqa: B036 - any failure to collect is a refusal
                self.collected[key] = \
                    str(error) if isinstance(error, pytest_bridge.BridgeError) else contract.describe_exception(error)
        return self.collected[key]

    def pytest_test(self, path, test, pytest, instance):
        """The set-up function of one test of a pytest file; a file that does not collect, or a
        test the collection does not find (another environment on this side), is a refusal. A
        test timed through do_bench (pytest "timing": "do_bench") is set up by isobench.do_bench;
        a file that initialises CUDA when imported ("import_in_worker") is not imported here at
        all: each worker imports it."""
        args = pytest["args"]
        if pytest.get("script"):
            return self.script_test(path, test, pytest, instance)
        if pytest.get("timing") == "do_bench" and pytest.get("import_in_worker"):
            if not self.import_deferred(path, test, args, instance, _PytestImport(self, path, args)):
                return do_bench.DoBenchTest(path, test, args, import_in_worker=True)
        elif (path, tuple(args)) in self.early_deferred:
            # It asked about the device when imported early, with CUDA deferred; a plain import
            # would have initialised CUDA here, which the plan's files may not: refused as then.
            raise Refusal(path, test, instance, _CUDA_INITIALISED)
        tests = self.collect(path, args)
        if isinstance(tests, str):
            raise Refusal(path, test, instance, tests)
        collected = tests.get(test)
        if collected is None:
            raise Refusal(path, test, instance, "pytest does not collect %s::%s in this environment" % (path, test))
        if pytest.get("timing") == "do_bench":
            return do_bench.DoBenchTest(path, test, args)
        if not collected["benchmark"]:
            raise Refusal(path, test, instance, "%s::%s does not take the benchmark fixture here" % (path, test))
        return pytest_bridge.PytestTest(path, test, args)

    def script_test(self, path, test, pytest, instance):
        """The set-up function of a benchmark script's timing calls (isobench.script_bridge), the
        script's top-level imports done here; where they initialised CUDA at collection (Liger's
        utils asks torch.cuda.is_available(), which initialises the driver), with CUDA deferred,
        or by each worker where that fails, as for a pytest file."""
        try:
            found = script_bridge.ScriptTest(path, pytest["args"])
        except OSError as error:
            raise Refusal(path, test, instance, "cannot link the script's folder: %s" % error) from None
        if pytest.get("import_in_worker"):
            found.import_in_worker = not self.import_deferred(path, test, pytest["args"], instance,
                                                              _ScriptImport(found))
            return found
        try:
            found.import_here()
        except BaseException as error:  # noqa: B036 - any failure to import is a refusal
            raise Refusal(path, test, instance, "cannot import what %s imports: %s"
                          % (path, contract.describe_exception(error))) from None
        return found

    def import_deferred(self, path, test, args, instance, importer):
        """Imports a file whose import initialised CUDA at collection with CUDA deferred
        (isobench.deferred_cuda), as `importer` imports it (a pytest file by collecting it, a
        script by its import statements): True where it was imported here and its workers need
        not import it, False where they must (its import reached torch.cuda._lazy_init, or did not
        succeed here, or the device facts could not be had): then whatever the attempt imported
        is forgotten again, so that each worker imports it as a fresh process would. A CUDA
        initialised by the attempt (torch.cuda.is_initialized()) is a refusal: no worker forked from
        this zygote could use it; a CUDA driver initialised past torch is said in the notes."""
        key = (path, tuple(args))
        done = next((d for d in self.deferred if d["key"] == key), None)
        if done is not None:
            return done["record"]["imported"]
        early = self.early_deferred.get(key)
        if early is not None:  # imported so while the sweep was loaded: concluded as below
            self.deferred.append({"key": key, "record": early["record"]})
            return self.conclude_deferred(early["record"], early["initialised"], early["driver"], path, test,
                                          instance)
        record = {"file": path, "imported": False, "lazy_init": [], "reason": None}
        self.deferred.append({"key": key, "record": record})
        for name in ("torch", "triton"):  # while the facts are recorded: the file imports them anyway
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - the file's own import says what is wrong
                pass
        try:
            facts = self.facts.wait()
        except deferred_cuda.FactsError as error:
            record["reason"] = "the device facts could not be recorded: %s" % error
            return self.fall_back(record)
        record["facts_seconds"] = round(self.facts.seconds, 3)
        record["devices"] = [d.get("name") for d in facts["devices"]]
        had_driver = deferred_cuda.driver_initialised()
        importer.prepare()
        before = set(sys.modules)
        deferred_cuda.install(facts)
        deferred_cuda.clear_callers()
        began = time.monotonic()
        problem = importer.attempt()
        record["seconds"] = round(time.monotonic() - began, 3)
        record["lazy_init"] = list(dict.fromkeys(deferred_cuda.callers()))
        if record["lazy_init"]:
            record["reason"] = "its import reached torch.cuda._lazy_init at %s" % ", ".join(record["lazy_init"])
        elif problem is not None:
            record["reason"] = problem
        if record["reason"] is not None and not _cuda_initialised_by(path):
            importer.forget()
            _forget_imports_since(before)
        return self.conclude_deferred(record, _cuda_initialised_by(path) is not None,
                                      not had_driver and deferred_cuda.driver_initialised(), path, test, instance)

    def conclude_deferred(self, record, initialised, driver, path, test, instance):
        """What an import with CUDA deferred comes to (import_deferred's, or an early one's): a
        refusal where CUDA was initialised all the same, else True where the zygote keeps the file,
        False where its workers import it (fall_back); said in the notes and workers.log."""
        if initialised:
            raise Refusal(path, test, instance, "importing it with CUDA deferred initialised CUDA all the same "
                          "(torch.cuda.is_initialized()): a zygote must never touch CUDA")
        if driver:
            # Not torch's context, and whether a driver initialised before fork() fails the workers
            # is theirs to show (bench/gpu/deferred_cuda_probe.py forks children to see): said, not refused.
            record["driver_initialised"] = True
            self.notes.append("%s: importing it with CUDA deferred initialised the CUDA driver (cuInit, not through "
                              "torch): a worker that cannot initialise CUDA fails for that" % path)
        if record["reason"] is not None:
            return self.fall_back(record)
        record["imported"] = True
        self.said.append("isobench: zygote %d imported %s with CUDA deferred in %.2f s (device facts from a fresh "
                         "interpreter in %.2f s: %s); its workers do not import it"
                         % (os.getpid(), path, record["seconds"], record["facts_seconds"],
                            ", ".join(record["devices"]) or "no device"))
        return True

    def fall_back(self, record):
        """The file is left to each worker (do_bench.DoBenchTest imports it there): said in the
        run's warnings (the ready message's notes), python.json and workers.log."""
        why = "%s: imported in each worker, not in the zygote: %s" % (record["file"], record["reason"])
        self.notes.append(why)
        self.said.append("isobench: zygote %d: %s" % (os.getpid(), why))
        return False

    def deferred_record(self):
        """What python.json records of the files imported with CUDA deferred, or None."""
        if not self.deferred:
            return None
        return {"facts_seconds": None if self.facts is None or self.facts.seconds is None
                else round(self.facts.seconds, 3),
                "files": [d["record"] for d in self.deferred]}

    def serve(self):
        while True:
            ready = [self.channel.sock] if self.channel.pending() else \
                select.select([self.channel.sock] + list(self.children), [], [])[0]
            for fd in ready:
                if fd is self.channel.sock:
                    message = self.channel.receive()
                    if message is None:
                        return
                    self.handle(message)
                else:
                    self.reap(fd)

    def handle(self, message):
        op = message.get("op")
        if op == "output":
            out = os.open(message["path"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.close(out)
            for line in self.said:  # in each new output: a zygote started per round says it again
                sys.stderr.write(line + "\n")
            sys.stderr.flush()
        elif op == "fork":
            self.fork(message["serial"], message["args"])

    def fork(self, serial, args):
        sys.stdout.flush()
        sys.stderr.flush()
        zygote_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                self.worker(zygote_pid, args)
            finally:
                os._exit(70)  # the worker never returns here; an exception in it did
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = pid
        self.channel.send({"op": "forked", "serial": serial, "pid": pid}, [pidfd])

    def worker(self, zygote_pid, args):
        """The forked child: an isobench worker, then _exit (no atexit handler of the zygote's
        modules runs, no state goes back anywhere)."""
        _die_with_parent(zygote_pid)
        deferred_cuda.restore()  # the real torch.cuda, before anything of the worker's
        self.channel.sock.close()
        for pidfd in self.children:
            os.close(pidfd)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        code = self.library.main(args)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    def reap(self, pidfd):
        pid = self.children.pop(pidfd)
        _, status = os.waitpid(pid, 0)
        os.close(pidfd)
        self.channel.send({"op": "exited", "pid": pid, "status": status})

    def stop(self):
        for pidfd, pid in self.children.items():
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def main():
    orchestrator = int(sys.argv[1])
    _die_with_parent(orchestrator)
    # Interrupts are the orchestrator's to handle: it stops the workers, then closes the socket.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The socket leaves stdin, so that nothing a benchmark module does with stdin reads the
    # protocol; stdin becomes /dev/null, for the workers too.
    sock = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    channel = Channel(sock)
    zygote = Zygote(channel)
    zygote.bytecode = bytecode.keep()  # before the first import of the user's modules
    request = channel.receive()
    while request is not None and request.get("op") == "import":
        zygote.import_early(request)
        request = channel.receive()
    if request is None:
        return 0
    try:
        zygote.load(request)
    except Refusal as refusal:
        channel.send(dict(op="refused", **refusal.fields))
        return 1
    try:
        zygote.serve()
    finally:
        zygote.stop()
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    script_bridge.remove_linked_folders()  # the scripts' folders of links this zygote made
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # no atexit handler of a benchmark's modules (torch's) runs in the zygote either
