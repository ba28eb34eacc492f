"""GPU probe (session 7): can `import flag_gems` (and FlagGems' benchmark modules) happen in a
process that never initialises CUDA, with torch.cuda's device queries answered from facts recorded
in another process?  Usage: python flaggems_import_probe.py MODULE...   (run from .flaggems/src)
The current folder is put first on sys.path, as `python -m` would (FlagGems' benchmark/ package
is imported from the folder holding it).  Prints JSON lines: the recorded facts, each module's
import (time, error), every _lazy_init caller (stack), torch.cuda.is_initialized(), whether libcuda is mapped, and 3 forked children each
running FlagGems' softmax on the GPU with the real functions back."""
import json, os, subprocess, sys, time, traceback

sys.path.insert(0, os.getcwd())


def out(**kw):
    print(json.dumps(kw), flush=True)

facts_src = r'''
import json, torch
p = torch.cuda.get_device_properties(0)
keep = {k: getattr(p, k) for k in dir(p) if not k.startswith("_") and isinstance(getattr(p, k), (int, float, str, bool))}
print(json.dumps({"count": torch.cuda.device_count(), "current": torch.cuda.current_device(),
  "capability": list(torch.cuda.get_device_capability(0)), "name": torch.cuda.get_device_name(0), "props": keep}))
'''
t = time.time()
facts = json.loads(subprocess.run([sys.executable, "-c", facts_src], capture_output=True, text=True, check=True).stdout)
out(step="facts", seconds=round(time.time() - t, 3), facts=facts)

os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
t = time.time()
import torch
import torch.cuda as tc
out(step="import torch", seconds=round(time.time() - t, 3))

class Props:
    def __init__(self, d):
        self.__dict__.update(d)
    def __repr__(self):
        return f"Props({self.__dict__})"

real = {n: getattr(tc, n) for n in ("is_available", "device_count", "current_device", "get_device_properties", "get_device_capability", "get_device_name", "_lazy_init")}
lazy_callers = []
def fake_lazy_init():
    lazy_callers.append("".join(traceback.format_stack(limit=10)[:-1]))
    raise RuntimeError("probe: torch.cuda._lazy_init reached during import")
shims = {
    "is_available": lambda: True,
    "device_count": lambda: facts["count"],
    "current_device": lambda: facts["current"],
    "get_device_properties": lambda d=None: Props(facts["props"]),
    "get_device_capability": lambda d=None: tuple(facts["capability"]),
    "get_device_name": lambda d=None: facts["name"],
    "_lazy_init": fake_lazy_init,
}
for n, f in shims.items():
    setattr(tc, n, f)
    if hasattr(torch, "cuda"):
        pass

def maps_libcuda():
    with open("/proc/self/maps") as f:
        return any("libcuda.so" in line for line in f)

for mod in sys.argv[1:]:
    t = time.time()
    try:
        __import__(mod)
        err = None
    except BaseException as e:
        err = f"{type(e).__name__}: {e}"
        tb = traceback.format_exc(limit=-12)
    out(step="import", module=mod, seconds=round(time.time() - t, 3), error=err,
        traceback=tb if err else None, lazy_callers=lazy_callers[:3], n_lazy=len(lazy_callers))
    lazy_callers.clear()

for n, f in real.items():
    setattr(tc, n, f)
out(step="after imports", is_initialized=tc.is_initialized(), libcuda_mapped=maps_libcuda())

kids = []
for i in range(3):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            t = time.time()
            x = torch.randn(1024, 1024, device="cuda")
            import flag_gems
            with flag_gems.use_gems():
                y = torch.softmax(x, dim=-1)
            torch.cuda.synchronize()
            ok = torch.allclose(y, torch.softmax(x, dim=-1), atol=1e-5)
            out(step="child", i=i, seconds=round(time.time() - t, 3), ok=bool(ok))
        except BaseException as e:
            out(step="child", i=i, error=f"{type(e).__name__}: {e}")
            code = 3
        os._exit(code)
    kids.append(pid)
out(step="children", exits=[os.waitpid(p, 0)[1] >> 8 for p in kids])
