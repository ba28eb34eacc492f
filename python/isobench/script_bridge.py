"""Benchmark scripts: programs run as `python FILE ARGS...` that time through
`triton.testing.do_bench` or `do_bench_cudagraph` (Liger-Kernel's benchmark/scripts/benchmark_*.py),
A/B'd unchanged (docs/python.md, "do_bench scripts").

A script is one test of the do_bench route (isobench.do_bench), named by the file's stem: its run
as __main__, with sys.argv [FILE, ARGS...] and its folder first on sys.path, as `python FILE ARGS`
runs it. Each timing call the run makes is an instance, named as the route names calls (Liger's
KERNEL/PROVIDER/MODE/X); a worker runs the script up to the call it times and on through the calls
its tasks hold, and when it lets the script go the script ends inside that call (do_bench's
ENDS_WHEN_LET_GO): nothing after its last timing call runs in a worker.

Where it runs: the script's folder is linked, entry by entry, into a temporary folder made per
process that runs it (the collector, each zygote, whose workers share it), and the script runs
from there: what it reads is the user's, what it writes beside itself or one folder up (Liger's
../data/all_benchmark_data.csv, which the collection's run would fill with placeholder values) is
new in that folder and removed with it. A file that exists in the script's own folder is written
through its link all the same.

The zygote imports what the script imports at its top level (its import statements, not the rest
of its code, which may run the benchmark where a script has no `if __name__ == "__main__"`), from
the linked folder, so that torch, triton and the kernels' package are imported before the fork;
where those imports initialised CUDA at collection (the driver, through torch.cuda.is_available()),
with CUDA deferred (isobench.deferred_cuda), else in each worker.

    python3 -m isobench.script_bridge collect FILE [-- ARGS...]

prints the collection as pytest_bridge's collect does, one JSON object: {"tests": [one test, with
its "calls"], "timing": "do_bench", "import_in_worker", "import_seconds"} or {"error": ...}.
"""

import ast
import os
import runpy
import shutil
import sys
import tempfile
import time

from . import benchmark as contract
from . import do_bench


class ScriptError(contract.ContractError):
    """A script that cannot be listed or run: one line naming the file."""


def test_name(path):
    """The script's one test, as instances name it (TEST::CALL): the file's stem."""
    return os.path.splitext(os.path.basename(path))[0]


class LinkedFolder:
    """A temporary folder holding a link to every entry of the script's folder, under the same
    folder name, so that `__file__`-relative writes land in the temporary folder."""

    def __init__(self, path):
        self.original = os.path.dirname(os.path.abspath(path))
        self.root = tempfile.mkdtemp(prefix="isobench-script-")
        self.folder = os.path.join(self.root, os.path.basename(self.original) or "script")
        os.mkdir(self.folder)
        for entry in os.listdir(self.original):
            os.symlink(os.path.join(self.original, entry), os.path.join(self.folder, entry))
        self.script = os.path.join(self.folder, os.path.basename(path))
        self.pid = os.getpid()

    def untranslated(self, text):
        """Text naming the linked folder's files, naming the user's instead."""
        return text.replace(self.folder, self.original)

    def remove(self):
        shutil.rmtree(self.root, ignore_errors=True)  # the links, never what they point to


_FOLDERS = {}  # script path -> this process's (or its zygote's) LinkedFolder


def linked_folder(path):
    """The linked folder of the script in this process, made on first use; a worker uses its zygote's."""
    if path not in _FOLDERS:
        _FOLDERS[path] = LinkedFolder(path)
    return _FOLDERS[path]


def remove_linked_folders():
    """Removes the folders this process made (not a zygote's, from one of its workers)."""
    for path, folder in list(_FOLDERS.items()):
        if folder.pid == os.getpid():
            folder.remove()
            del _FOLDERS[path]


def _on_path(folder):
    if not sys.path or sys.path[0] != folder:
        sys.path.insert(0, folder)


def import_dependencies(script):
    """Runs the script's top-level import statements (only those) with its folder first on sys.path."""
    with open(script, "rb") as f:
        tree = ast.parse(f.read(), filename=script)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               and not (isinstance(node, ast.ImportFrom) and (node.module == "__future__" or node.level))]
    _on_path(os.path.dirname(script))
    module = ast.Module(body=imports, type_ignores=[])
    exec(compile(module, script, "exec"), {"__name__": "isobench_script_imports", "__file__": script})  # noqa: S102


def run(script, args):
    """The script as `python script args` runs it: as __main__, with its argv and folder."""
    _on_path(os.path.dirname(script))
    argv = sys.argv
    sys.argv = [script] + list(args)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv = argv


def _exit_code(error):
    code = error.code
    return 0 if code is None else code if isinstance(code, int) else 1


class _LastLine:
    """Standard error, passed on, its last line kept: what a script said as it exited (argparse's
    reason for refusing its arguments)."""

    def __init__(self, stream):
        self.stream, self.last, self.partial = stream, "", ""

    def write(self, text):
        self.partial += text
        lines = [line.strip() for line in self.partial.splitlines() if line.strip()]
        if lines:
            self.last = lines[-1]
        self.partial = self.partial.rsplit("\n", 1)[-1]
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _with_args(args):
    return " with arguments %s" % " ".join(args) if args else " without arguments"


def collect_script(path, args=()):
    """The script's timing calls, listed by running it once with do_bench answering at once
    (isobench.do_bench's listing: nothing is timed), from its linked folder. ScriptError naming the
    file when it does not run to its end or makes no timing call."""
    path, args = os.path.abspath(path), list(args)
    if not os.path.isfile(path):
        raise ScriptError("%s: no such file" % path)
    folder = LinkedFolder(path)
    stdout, stderr = sys.stdout, sys.stderr
    listing = do_bench._Listing()
    try:
        try:  # before the imports, so that a module binding do_bench by name binds isobench's
            do_bench.install()
        except do_bench.DoBenchError as error:
            raise ScriptError("%s: %s" % (path, error)) from None
        began = time.monotonic()
        try:
            import_dependencies(folder.script)
        except SyntaxError as error:
            raise ScriptError("%s: not a Python script: %s (line %s)" % (path, error.msg, error.lineno)) from None
        except BaseException as error:  # noqa: B036 - a script that cannot import what it needs, in one line
            raise ScriptError("%s: its imports fail: %s" % (path, folder.untranslated(
                contract.describe_exception(error)))) from None
        took = time.monotonic() - began
        from .deferred_cuda import driver_initialised
        from .pytest_bridge import _cuda_initialised
        # torch's CUDA, or the driver alone (torch.cuda.is_available(), which Liger's utils asks at
        # import): either, initialised before the fork, leaves the workers no CUDA, so the zygote
        # imports with CUDA deferred (or each worker imports).
        import_in_worker = _cuda_initialised() or driver_initialised()
        sys.stdout = sys.stderr = _LastLine(stderr)  # the script's printing is not the collection's answer
        do_bench._local.run = listing
        try:
            run(folder.script, args)
        except SystemExit as error:
            if _exit_code(error) != 0:
                said = sys.stderr.last
                raise ScriptError("%s exited with code %s while its timing calls were listed%s%s" % (
                    path, error.code, _with_args(args), ": " + folder.untranslated(said) if said else "")) from None
        except BaseException as error:  # noqa: B036 - what the script raised, in one line
            raise ScriptError("%s failed while its timing calls were listed%s: %s" % (
                path, _with_args(args), folder.untranslated(contract.describe_exception(error)))) from None
        finally:
            do_bench._local.run = None
            sys.stdout, sys.stderr = stdout, stderr
    finally:
        folder.remove()
    if not listing.calls:
        raise ScriptError("%s: the script made no timing call through triton.testing.do_bench or do_bench_cudagraph "
                          "(run as __main__%s)" % (path, _with_args(args)))
    name = test_name(path)
    return {"tests": [{"test": name, "function": name, "params": {}, "benchmark": False, "doctest": False,
                       "node_id": path, "calls": listing.calls}],
            "timing": "do_bench", "import_in_worker": import_in_worker, "import_seconds": round(took, 3)}


class ScriptTest(do_bench.DoBenchTest):
    """The set-up function of a script's instances (the zygote registers one per script): a
    do_bench test whose run is the script's run as __main__, from this process's linked folder
    (the zygote's, in a worker), ending inside the call it waits at when let go."""

    ENDS_WHEN_LET_GO = True

    def __init__(self, path, args=(), import_in_worker=False):
        super().__init__(path, test_name(path), args, import_in_worker)
        self.label = path
        self.folder = linked_folder(path)

    def import_here(self):
        """The script's top-level imports, in this process: the zygote's, once. isobench's do_bench
        first, so that a module binding it by name (`from triton.testing import do_bench`) binds it."""
        do_bench.install()
        import_dependencies(self.folder.script)

    def run_test(self, before_target):
        try:
            run(self.folder.script, self.args)
        except do_bench._LetGo:
            return None
        except SystemExit as error:
            if _exit_code(error) != 0 and before_target():
                return "%s exited with code %s before the timing call" % (self.label, error.code)
        except BaseException as error:  # noqa: B036 - said as the set-up's failure where it matters
            if before_target():
                return "%s failed before the timing call: %s" % (
                    self.label, self.folder.untranslated(contract.describe_exception(error)))
        return None

    def _import_here(self):
        key = (self.path, tuple(self.args))
        if key in do_bench.DoBenchTest.imported:
            return
        began = time.monotonic()
        if self.import_in_worker:
            self.import_here()
        do_bench.DoBenchTest.imported.add(key)
        if self.import_in_worker:
            import gc
            gc.freeze()  # as the zygote does after its imports
            sys.stderr.write("isobench: the imports of %s done in worker %d in %.2f s (they initialise CUDA, "
                             "so the zygote did not do them)\n" % (self.path, os.getpid(), time.monotonic() - began))
            sys.stderr.flush()


def _main(argv):
    if len(argv) < 2 or argv[0] != "collect":
        sys.stderr.write("usage: python3 -m isobench.script_bridge collect FILE [-- ARGS...]\n")
        return 2
    path, rest = argv[1], argv[2:]
    args = rest[rest.index("--") + 1:] if "--" in rest else []
    from .pytest_bridge import print_collection
    return print_collection(lambda: collect_script(path, args), ScriptError)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
