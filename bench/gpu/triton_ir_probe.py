"""What Triton on the H200 offers for tying compiled kernels to the launches of one instance
("the IR of what ran", docs/python.md): the launch hooks and what they are handed, the JIT
function's compiled-kernel caches, a compiled kernel's IR stages and metadata, whether the hooks
fire inside CUDA graph capture, and cuobjdump. Writes one JSON object to stdout.

    python3 bench/gpu/triton_ir_probe.py > probe.json
"""
import json
import shutil
import sys
import traceback

import torch
import triton
import triton.language as tl

out = {"python": sys.version, "torch": torch.__version__, "triton": triton.__version__,
       "cuobjdump": shutil.which("cuobjdump") or (shutil.os.path.exists("/usr/local/cuda/bin/cuobjdump")
                                                  and "/usr/local/cuda/bin/cuobjdump")}


def describe(obj, depth=0):
    try:
        if isinstance(obj, (int, float, str, bool)) or obj is None:
            return obj
        if isinstance(obj, dict):
            return {str(k): (describe(v, depth + 1) if depth < 2 else type(v).__name__) for k, v in list(obj.items())[:40]}
        if isinstance(obj, (list, tuple)):
            return [describe(v, depth + 1) if depth < 2 else type(v).__name__ for v in list(obj)[:10]]
        return "<%s>" % type(obj).__name__
    except Exception as e:  # noqa: BLE001
        return "<error %s>" % e


@triton.jit
def add_kernel(x, y, z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) * 2.0 + tl.load(y + offs, mask=m), mask=m)


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)],
                 key=["n"])
@triton.jit
def tuned_kernel(x, y, z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) * 3.0 + tl.load(y + offs, mask=m), mask=m)


def section(name, fn):
    try:
        out[name] = fn()
    except Exception:  # noqa: BLE001
        out[name] = {"error": traceback.format_exc()}


knobs = getattr(triton, "knobs", None)
section("knobs_runtime", lambda: sorted(a for a in dir(knobs.runtime) if not a.startswith("_")) if knobs else None)
section("knobs_compilation", lambda: sorted(a for a in dir(knobs.compilation) if not a.startswith("_")) if knobs else None)

seen = []


def enter(md):
    entry = {"type": type(md).__name__, "attrs": sorted(a for a in dir(md) if not a.startswith("__"))}
    try:
        data = md.get() if hasattr(md, "get") else md
        entry["data"] = describe(data)
    except Exception as e:  # noqa: BLE001
        entry["get_error"] = str(e)
    for a in ("data", "extras"):
        if hasattr(md, a):
            entry[a + "_raw"] = describe(getattr(md, a))
    seen.append(entry)


post_compile = []


def post_hook(*args, **kwargs):
    post_compile.append({"args": [type(a).__name__ for a in args], "kwargs": {k: describe(v) for k, v in kwargs.items()}})
    return False


def run_all():
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    z = torch.empty_like(x)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)
    tuned_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, z, n)
    torch.cuda.synchronize()
    return x, y, z, n


def hooks():
    r = {}
    if knobs is not None:
        r["launch_enter_hook_before"] = repr(getattr(knobs.runtime, "launch_enter_hook", "absent"))
        knobs.runtime.launch_enter_hook = enter
        for name in ("jit_post_compile_hook", "jit_cache_hook"):
            if hasattr(knobs.runtime, name):
                setattr(knobs.runtime, name, post_hook)
    x, y, z, n = run_all()
    # Once more (cached: do the hooks fire again, and with what?)
    r["first_pass_launches"] = len(seen)
    run_all()
    r["second_pass_launches"] = len(seen)
    # Inside CUDA graph capture.
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        before = len(seen)
        with torch.cuda.graph(g, stream=s):
            add_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)
        r["launches_seen_during_capture"] = len(seen) - before
    g.replay()
    torch.cuda.synchronize()
    r["launches"] = seen[:3]
    r["post_compile"] = post_compile[:4]
    if knobs is not None:
        knobs.runtime.launch_enter_hook = None
    return r


section("hooks", hooks)


def caches():
    r = {}
    for name, fn in (("add_kernel", add_kernel), ("tuned_kernel", tuned_kernel.fn)):
        entry = {"type": type(fn).__name__, "attrs": sorted(a for a in dir(fn) if "cache" in a.lower())}
        dc = getattr(fn, "device_caches", None)
        entry["device_caches_type"] = type(dc).__name__
        kernels = []
        if dc is not None:
            for dev, value in dc.items():
                entry["device_cache_value"] = [type(v).__name__ for v in (value if isinstance(value, tuple) else (value,))]
                first = value[0] if isinstance(value, tuple) else value
                for key, k in list(first.items())[:3]:
                    ke = {"key_type": type(key).__name__, "type": type(k).__name__,
                          "attrs": sorted(a for a in dir(k) if not a.startswith("__")),
                          "name": getattr(k, "name", None), "hash": getattr(k, "hash", None),
                          "asm_keys": sorted(getattr(k, "asm", {}).keys()),
                          "metadata": describe(getattr(k, "metadata", None)._asdict()
                                               if hasattr(getattr(k, "metadata", None), "_asdict")
                                               else getattr(k, "metadata", None))}
                    try:
                        ke["function"] = int(k.function) if getattr(k, "function", None) is not None else None
                    except Exception as e:  # noqa: BLE001
                        ke["function"] = "error %s" % e
                    ke["ttgir_head"] = str(k.asm.get("ttgir", ""))[:300]
                    kernels.append(ke)
        entry["kernels"] = kernels
        r[name] = entry
    return r


section("caches", caches)
def fp_fusion():
    """Which IR stages TRITON_DEFAULT_FP_FUSION's switch changes: the same kernel compiled with
    fusion on and off (the enable_fp_fusion launch option), stage by stage."""
    n = 1 << 16
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    z = torch.empty_like(x)
    a = add_kernel[(triton.cdiv(n, 512),)](x, y, z, n, BLOCK=512, enable_fp_fusion=True)
    b = add_kernel[(triton.cdiv(n, 512),)](x, y, z, n, BLOCK=512, enable_fp_fusion=False)
    torch.cuda.synchronize()
    r = {"types": [type(a).__name__, type(b).__name__]}
    if hasattr(a, "asm") and hasattr(b, "asm"):
        r["stages_differ"] = {k: a.asm.get(k) != b.asm.get(k) for k in sorted(a.asm)}
        r["hash_differ"] = getattr(a, "hash", None) != getattr(b, "hash", None)
        r["ptx_fma_counts"] = [str(a.asm.get("ptx", "")).count("fma."), str(b.asm.get("ptx", "")).count("fma.")]
    return r


section("fp_fusion", fp_fusion)


section("autotuner_attrs", lambda: sorted(a for a in dir(tuned_kernel) if not a.startswith("__")))
print(json.dumps(out, indent=1, default=str))
