"""triton.runtime.jit of the stand-in (see triton/__init__.py): a JITFunction that "compiles"
one CompiledKernel per distinct set of constexpr arguments into device_caches[0][0] (Triton
3.x's layout), and launches it through knobs.runtime.launch_enter_hook with a LazyDict-like
metadata object (`.data` holds name, function, stream), as CompiledKernel.launch_metadata does."""

import itertools

from .. import knobs

_handles = itertools.count(0x7f0000001000, 0x100)


class _Metadata(dict):
    def _asdict(self):
        return dict(self)


class _Source:
    """ASTSource: constants keyed by argument path, as Triton 3.x keys them ((0,) -> 1024)."""

    def __init__(self, fn, constants):
        self.fn = fn
        self.constants = {(fn.arg_names.index(k),): v for k, v in constants.items()}


class CompiledKernel:
    def __init__(self, fn, constants, num_warps, fp_fusion):
        name = fn.fn.__name__
        self.name = name
        self.function = next(_handles)
        self.hash = "%016x" % (hash((name, tuple(sorted(constants.items())), num_warps, fp_fusion)) & (2 ** 64 - 1))
        self.metadata = _Metadata(num_warps=num_warps, num_stages=3, num_ctas=1, shared=0, enable_fp_fusion=fp_fusion)
        self.src = _Source(fn, constants)
        contract = "contract" if fp_fusion else "nocontract"
        body = "%s %s" % (name, " ".join("%s=%s" % kv for kv in sorted(constants.items())))
        self.asm = {"ttir": "// ttir %s\n" % body, "ttgir": "// ttgir %s %s\n" % (body, contract),
                    "llir": "; llir %s %s\n" % (body, contract), "ptx": "// ptx %s\n" % body,
                    "cubin": b"\x7fELF fake cubin " + body.encode()}


class LazyDict:
    def __init__(self, data):
        self.data = data

    def get(self):
        return self.data


class KernelInterface:
    """Triton's base of JITFunction, Autotuner and Heuristics."""


class JITFunction(KernelInterface):
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.arg_names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        self.constexprs = list(range(len(self.arg_names)))  # every argument of the stand-in's kernels is one
        self.device_caches = {0: ({}, None, None)}
        self.launched = 0

    def launch(self, num_warps=4, fp_fusion=True, **constants):
        cache = self.device_caches[0][0]
        key = (tuple(sorted(constants.items())), num_warps, fp_fusion)
        if key not in cache:
            cache[key] = CompiledKernel(self, constants, num_warps, fp_fusion)
        kernel = cache[key]
        if knobs.runtime.launch_enter_hook is not None:
            knobs.runtime.launch_enter_hook(LazyDict({"name": kernel.name, "function": kernel.function, "stream": 0}))
        self.launched += 1
        self.fn(**constants)


def jit(fn):
    return JITFunction(fn)
