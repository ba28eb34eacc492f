"""The IR of the Triton kernels an instance launched (docs/python.md, "The IR of what ran").

When an instance's set-up is over (a `python:` benchmark's, or a do_bench suite's call, whose
set-up has already called the callable once: worker_library's set-up callback serves both), the
worker launches it once more, untimed, with a Triton launch hook installed: every Triton kernel that one launch of the instance runs is noted, in
launch order, by name and by its CUDA function handle. The compiled kernel behind each handle is
found among the JIT functions of the loaded modules (their compiled-kernel caches), and its IR
stages are written to the instance's artifact folder (ISOBENCH_ARTIFACT_DIR):

    triton/kernels.json        the launches: order, name, hash, launch options, constants, files
    triton/<order>-<name>-w<warps>-s<stages>-<constexpr><value>.../<name>.ttir
                               .ttgir, .llir, .ptx, and .sass where cuobjdump runs

so that the orchestrator archives them with their SHA-256 and `orchestrate compare` names the
instances whose TTGIR differs between the sides of an A/B; `orchestrate ir-diff` prints the
difference. Paths carry the launch order, the kernel's name and its configuration (warps, stages,
constexpr arguments: what the autotune record pins on both sides), not its hash: a compiler
change changes the hash, and the two sides' files must meet under one path to be compared.

The SASS is made beside the run's samples, not in the worker, whose set-up the run would wait
on (cuobjdump is slow per kernel: docs/evidence.md#behind-the-code): a worker leaves each kernel's .cubin
(noted as "cubin" in kernels.json), and the orchestrator runs
`python -m isobench.triton_ir sass <run>/artifacts` before it archives them, which disassembles
them side by side and removes the cubins.

Only the first worker of a side writes them (the folder is the side's, for every worker of the
run): a later worker finds kernels.json there and leaves it. Nothing here runs in a timed sample.
Nothing imports triton: the hooks and the JIT functions are reached through `sys.modules`.
"""

import ctypes
import json
import os
import shutil
import subprocess
import sys
import traceback

from . import module_scan

FOLDER = "triton"
INDEX = "kernels.json"
STAGES = ("ttir", "ttgir", "llir", "ptx")
SCHEMA_VERSION = 1


def artifact_folder():
    """This instance's artifact folder: ISOBENCH_ARTIFACT_DIR as the worker set it, with
    setenv(), just before this set-up (os.environ is the interpreter's copy from its start and
    does not see it)."""
    libc = ctypes.CDLL(None)
    libc.getenv.restype = ctypes.c_char_p
    libc.getenv.argtypes = [ctypes.c_char_p]
    value = libc.getenv(b"ISOBENCH_ARTIFACT_DIR")
    return value.decode() if value else None


def wanted(folder):
    """Whether this worker should record the IR into `folder`: Triton is loaded, the worker
    gave a folder, and no earlier worker of the side recorded it there."""
    return ("triton" in sys.modules and folder is not None
            and not os.path.exists(os.path.join(folder, FOLDER, INDEX)))


class _Hooks:
    """Where this Triton keeps its launch-enter hook: triton.knobs.runtime (3.4 on) or the
    CompiledKernel class (before)."""

    def __init__(self):
        knobs = getattr(sys.modules.get("triton"), "knobs", None)
        runtime = getattr(knobs, "runtime", None)
        if runtime is not None and hasattr(runtime, "launch_enter_hook"):
            self.owner = runtime
        else:
            compiler = sys.modules.get("triton.compiler.compiler") or sys.modules.get("triton.compiler")
            self.owner = getattr(compiler, "CompiledKernel", None)
        if self.owner is None or not hasattr(self.owner, "launch_enter_hook"):
            raise RuntimeError("this Triton has no launch_enter_hook (knobs.runtime or CompiledKernel)")

    def get(self):
        return getattr(self.owner, "launch_enter_hook")

    def set(self, hook):
        setattr(self.owner, "launch_enter_hook", hook)


class LaunchCapture:
    """`with LaunchCapture() as c: launch()`: c.launches is [(name, function handle)] of the
    Triton kernels launched inside, in order. A hook installed before is called too, and put
    back after."""

    def __init__(self):
        self.launches = []
        self.hooks = _Hooks()
        self.previous = None

    def _enter(self, metadata):
        data = getattr(metadata, "data", None)
        if not isinstance(data, dict):
            data = metadata.get() if hasattr(metadata, "get") else {}
        function = data.get("function")
        self.launches.append((str(data.get("name", "?")), int(function) if function is not None else None))
        if self.previous is not None:
            self.previous(metadata)

    def __enter__(self):
        self.previous = self.hooks.get()
        self.hooks.set(self._enter)
        return self

    def __exit__(self, *exc):
        self.hooks.set(self.previous)
        return False


def _jit_functions():
    """The JIT functions reachable from the loaded modules' globals: @triton.jit functions, and
    those under @triton.autotune and @triton.heuristics (their .fn)."""
    runtime = sys.modules.get("triton.runtime.jit")
    jit = getattr(runtime, "JITFunction", None)
    wrapper = getattr(runtime, "KernelInterface", None) or jit  # Autotuner, Heuristics: a kernel in .fn
    if jit is None:
        return []
    found = {}
    for value in module_scan.loaded_globals():
        depth = 0
        # Only Triton's own wrappers are unwrapped: getattr on any global may run code
        # (ctypes.cdll.fn would load a library called "fn").
        while module_scan.is_a(value, wrapper) and not module_scan.is_a(value, jit) and depth < 8:
            value = getattr(value, "fn", None)
            depth += 1
        if module_scan.is_a(value, jit):
            found[id(value)] = value
    return list(found.values())


def _compiled_kernels(function):
    """The compiled kernels of one JIT function, from its per-device caches (Triton 3.x:
    device_caches[device] = (kernel cache, ...); earlier: cache[device])."""
    caches = getattr(function, "device_caches", None)
    if caches is None:
        caches = getattr(function, "cache", {})
    for entry in list(dict(caches).values()):
        table = entry[0] if isinstance(entry, tuple) else entry
        if isinstance(table, dict):
            yield from list(table.values())


def _handle(kernel):
    function = getattr(kernel, "function", None)
    try:
        return int(function) if function is not None else None
    except (TypeError, ValueError):
        return None


def _metadata(kernel):
    metadata = getattr(kernel, "metadata", None)
    if hasattr(metadata, "_asdict"):
        metadata = metadata._asdict()
    fields = {}
    for name in ("num_warps", "num_stages", "num_ctas", "shared", "maxnreg", "enable_fp_fusion", "arch", "target"):
        value = metadata.get(name) if isinstance(metadata, dict) else getattr(metadata, name, None)
        if value is not None:
            fields[name] = value if isinstance(value, (bool, int, float, str)) else str(value)
    named = _constants(kernel)
    if named:
        fields["constants"] = {k: v for k, v, _ in named}
    return fields


def _constants(kernel):
    """The compiled kernel's specialised arguments as [(name, value, declared constexpr)]: Triton
    3.x keys them by argument path ((12,)), named here from the JIT function's arg_names."""
    src = getattr(kernel, "src", None)
    constants = getattr(src, "constants", None)
    if not isinstance(constants, dict):
        return []
    fn = getattr(src, "fn", None)
    arg_names = list(getattr(fn, "arg_names", None) or [])
    declared = set(getattr(fn, "constexprs", None) or [])
    out = []
    for key, value in constants.items():
        index = key[0] if isinstance(key, tuple) and len(key) == 1 and isinstance(key[0], int) else None
        name = arg_names[index] if index is not None and index < len(arg_names) else str(key)
        value = value if isinstance(value, (bool, int, float, str)) or value is None else str(value)
        out.append((index if index is not None else 1 << 30, name, value, index in declared if declared else True))
    return [(name, value, constexpr) for _, name, value, constexpr in sorted(out, key=lambda item: item[:2])]


def _folder(order, name, kernel, metadata):
    """<order>-<name>-w<warps>-s<stages>-<constexpr><value>...: the launch by kernel and
    configuration (`metadata`: its _metadata()). The compiler's hash stays out, so that two
    compilers' files meet."""
    parts = ["%d-%s" % (order, name)]
    for key, tag in (("num_warps", "w"), ("num_stages", "s")):
        if key in metadata:
            parts.append("%s%s" % (tag, metadata[key]))
    parts += ["%s%s" % (k, v) for k, v, declared in _constants(kernel)
              if declared and isinstance(v, (bool, int)) and not k.startswith("(")]
    return _safe("-".join(parts))


def cuobjdump():
    found = shutil.which("cuobjdump")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "cuobjdump"), os.X_OK):
            return os.path.join(root, "bin", "cuobjdump")
    return None


class _Sass:
    """`cuobjdump -sass` of one cubin file, started at once and finished by result(): the SASS,
    or (None, why not). Kernels are disassembled side by side, each in its own process: one
    `cuobjdump` is slow (docs/evidence.md#behind-the-code)."""

    def __init__(self, cubin_path, tool):
        self.path, self.process, self.why, self.done = cubin_path, None, None, None
        if tool is None:
            self.why = "no cuobjdump on PATH or under CUDA_HOME"
            return
        try:
            self.process = subprocess.Popen([tool, "-sass", cubin_path], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE)
        except OSError as failure:
            self.why = "cuobjdump: %s" % failure

    def result(self):
        if self.done is None:
            self.done = self._finish()
        return self.done

    def _finish(self):
        if self.process is None:
            return None, self.why
        try:
            out, err = self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return None, "cuobjdump: timed out after 60 s"
        if self.process.returncode != 0:
            return None, "cuobjdump exited %d: %s" % (self.process.returncode,
                                                      err.decode(errors="replace").strip()[:200])
        # cuobjdump names the cubin's file in its header: drop that line, so that two sides'
        # SASS differ only where their code does.
        lines = [line for line in out.decode(errors="replace").splitlines() if self.path not in line]
        return "\n".join(lines) + "\n", None


def _disassemble(pending, tool, at_once=16):
    """The SASS of `pending` [(root, entry)]: entries whose "cubin" (a path under root) is still
    to disassemble, `at_once` processes at a time. Each entry gets its .sass among its files, or
    "sass": why not; the cubin goes (it is the SASS's source, not an artifact: it carries the
    source file's path, which differs between two checkouts of one kernel)."""
    for start in range(0, len(pending), at_once):
        started = [(root, entry, _Sass(os.path.join(root, entry["cubin"]), tool))
                   for root, entry in pending[start:start + at_once]]
        for root, entry, sass in started:
            text, why = sass.result()
            cubin = entry.pop("cubin")
            if text is not None:
                path = cubin[:-len(".cubin")] + ".sass"
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
                entry.setdefault("files", []).append(path)
            else:
                entry["sass"] = why
            try:
                os.remove(os.path.join(root, cubin))
            except OSError:
                pass


def _write_index(root, index):
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, INDEX), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")


def finish_sass(folders, tool=None, find_tool=True):
    """The SASS of every kernel whose IR a worker recorded with defer_sass, under `folders` (a
    run's artifact folders, searched for triton/kernels.json): what the orchestrator asks for once
    the samples are taken (`python -m isobench.triton_ir sass FOLDER...`), so that no worker spends
    its set-up on it. Returns how many kernels were disassembled or given a reason."""
    if tool is None and find_tool:
        tool = cuobjdump()
    indexes, pending = [], []
    for folder in folders:
        for here, _, names in os.walk(folder):
            if os.path.basename(here) != FOLDER or INDEX not in names:
                continue
            try:
                with open(os.path.join(here, INDEX)) as f:
                    index = json.load(f)
            except (OSError, ValueError):
                continue  # not one this module wrote
            waiting = [(here, e) for e in index.get("launches", []) if isinstance(e, dict) and "cubin" in e]
            if waiting:
                indexes.append((here, index))
                pending += waiting
    _disassemble(pending, tool)
    for root, index in indexes:
        _write_index(root, index)
    return len(pending)


def _safe(name):
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name)[:120] or "kernel"


def _write_stages(order, name, kernel, root):
    """The index entry of one launch, its IR stages written under root, and its cubin, whose
    SASS is still to make (entry["cubin"])."""
    entry = {"order": order, "name": name}
    if kernel is None:
        entry["missing"] = ("its compiled kernel is not among the JIT functions of the loaded modules "
                            "(a kernel built outside a module's globals)")
        return entry
    entry["hash"] = getattr(kernel, "hash", None)
    metadata = _metadata(kernel)
    entry.update(metadata)
    sub = _folder(order, name, kernel, metadata)
    os.makedirs(os.path.join(root, sub), exist_ok=True)
    files = []
    asm = getattr(kernel, "asm", {}) or {}
    for stage in STAGES + ("cubin",):
        text = asm.get(stage)
        if text is None or (stage == "cubin" and not isinstance(text, bytes)):
            continue
        path = os.path.join(sub, "%s.%s" % (_safe(name), stage))
        mode, data = ("wb", text) if isinstance(text, bytes) else ("w", str(text))
        with open(os.path.join(root, path), mode) as f:
            f.write(data)
        if stage == "cubin":
            entry["cubin"] = path
        else:
            files.append(path)
    entry["files"] = files
    return entry


def write(launches, folder, tool=None, find_tool=True, defer_sass=False):
    """The IR of `launches` (LaunchCapture.launches) into folder/triton/: returns the index.
    `tool`: the cuobjdump to run (found on PATH or under CUDA_HOME when `find_tool`). With
    `defer_sass`, each kernel's cubin is left beside its IR for finish_sass()."""
    by_handle = {}
    for function in _jit_functions():
        for kernel in _compiled_kernels(function):
            handle = _handle(kernel)
            if handle is not None:
                by_handle.setdefault(handle, kernel)
    root = os.path.join(folder, FOLDER)
    entries = [_write_stages(order, name, by_handle.get(handle), root)
               for order, (name, handle) in enumerate(launches)]
    if not defer_sass:
        if tool is None and find_tool:
            tool = cuobjdump()
        _disassemble([(root, e) for e in entries if "cubin" in e], tool)
    index = {"schema_version": SCHEMA_VERSION, "launches": entries}
    _write_index(root, index)
    return index


def record(launch, folder, synchronize, defer_sass=False):
    """One untimed launch of the instance under the capture, synchronised, and its IR written
    (`defer_sass`: as write()'s). A Triton without the hook writes an index that says so, and the
    instance goes on."""
    try:
        capture = LaunchCapture()
    except RuntimeError as why:
        os.makedirs(os.path.join(folder, FOLDER), exist_ok=True)
        with open(os.path.join(folder, FOLDER, INDEX), "w") as f:
            json.dump({"schema_version": SCHEMA_VERSION, "launches": [], "unavailable": str(why)}, f, indent=1)
            f.write("\n")
        return None
    with capture:
        launch()
    synchronize()
    try:
        return write(capture.launches, folder, defer_sass=defer_sass)
    except Exception as failure:  # noqa: BLE001 - the IR explains a result; it never fails the instance
        traceback.print_exc()
        os.makedirs(os.path.join(folder, FOLDER), exist_ok=True)
        with open(os.path.join(folder, FOLDER, INDEX), "w") as f:
            json.dump({"schema_version": SCHEMA_VERSION, "launches": [], "error": repr(failure)}, f, indent=1)
            f.write("\n")
        return None


def main(argv):
    if len(argv) < 2 or argv[0] != "sass":
        sys.stderr.write("usage: python -m isobench.triton_ir sass FOLDER...\n")
        return 2
    print("%d kernels disassembled" % finish_sass(argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
