#!/usr/bin/env python3
"""Whether modules can be imported in a zygote with CUDA deferred (python/isobench/deferred_cuda.py,
docs/python.md "The zygote"), and whether workers forked after it use the GPU. As a zygote does:
the device facts from a fresh interpreter, torch imported, the stand-ins installed, then each MODULE
imported in turn (from the current folder too: `benchmark.consts` in FlagGems' source), saying its
seconds, any torch.cuda._lazy_init caller (file:line) and any exception; then whether CUDA was
initialised in this process anyway (torch.cuda.is_initialized(), and the CUDA driver, asked of
libcuda). Then CHILDREN forked one after another, each with the real torch.cuda back: a torch op on
the GPU, checked, and, where flag_gems was imported, torch.softmax under flag_gems.use_gems()
against torch's own. Last, the parent makes a tensor on the GPU itself, to show that both checks see
a CUDA that is initialised (they must say true there). One JSON line per step on stdout.

    deferred_cuda_probe.py MODULE [MODULE...] [--children 3]

In FlagGems' source folder, with the venv of bench/gpu/flaggems_ab.sh:
    (cd .flaggems/src && ../venv/bin/python ../../bench/gpu/deferred_cuda_probe.py flag_gems benchmark.consts)
"""
import argparse
import importlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.path.insert(1, os.getcwd())

from isobench import deferred_cuda  # noqa: E402


def say(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def cuda_state(torch):
    return {"torch_initialized": bool(torch.cuda.is_initialized()), "driver_initialised": deferred_cuda.driver_initialised()}


def child(torch, number):
    deferred_cuda.restore()
    began = time.monotonic()
    result = {"child": number, "pid": os.getpid()}
    try:
        x = torch.arange(1024, device="cuda", dtype=torch.float32)
        result["sum"] = float((x * 2).sum().item())
        result["torch_ok"] = result["sum"] == 1023 * 1024.0
        result["device"] = torch.cuda.get_device_name()
        if "flag_gems" in sys.modules:
            flag_gems = sys.modules["flag_gems"]
            y = torch.randn(64, 1024, device="cuda", dtype=torch.float16)
            expected = torch.softmax(y, dim=-1)
            with flag_gems.use_gems():
                got = torch.softmax(y, dim=-1)
            torch.cuda.synchronize()
            result["gems_softmax_max_error"] = float((got.float() - expected.float()).abs().max().item())
            result["gems_ok"] = result["gems_softmax_max_error"] < 1e-2
    except BaseException as error:  # noqa: B036 - the probe reports any failure
        result["error"] = "%s: %s" % (type(error).__name__, error)
        result["traceback"] = traceback.format_exc().splitlines()[-6:]
    result["seconds"] = round(time.monotonic() - began, 3)
    say(**result)
    sys.stdout.flush()
    os._exit(0 if "error" not in result else 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--children", type=int, default=3)
    args = parser.parse_args()

    recorder = deferred_cuda.Recorder()
    began = time.monotonic()
    import torch
    say(step="import torch", seconds=round(time.monotonic() - began, 3), version=torch.__version__, **cuda_state(torch))
    facts = recorder.wait()
    say(step="facts", seconds=round(recorder.seconds, 3), device_count=facts["device_count"],
        devices=[{k: d.get(k) for k in ("name", "major", "minor", "total_memory", "multi_processor_count")}
                 for d in facts["devices"]], triton_devices=facts.get("triton_devices"))
    deferred_cuda.install(facts)
    imports = []
    for name in args.modules:
        deferred_cuda.clear_callers()
        began = time.monotonic()
        entry = {"step": "import", "module": name}
        try:
            importlib.import_module(name)
            entry["imported"] = True
        except BaseException as error:  # noqa: B036 - the probe reports any failure
            entry["imported"] = False
            entry["error"] = "%s: %s" % (type(error).__name__, error)
            entry["traceback"] = traceback.format_exc().splitlines()[-8:]
        entry["seconds"] = round(time.monotonic() - began, 3)
        entry["lazy_init"] = list(dict.fromkeys(deferred_cuda.callers()))
        entry.update(cuda_state(torch))
        imports.append(entry)
        say(**entry)
    state = cuda_state(torch)
    # Deferred: every module imported, none reached _lazy_init, and CUDA untouched in this process.
    say(step="after imports", deferred=all(e["imported"] and not e["lazy_init"] for e in imports)
        and not state["torch_initialized"] and not state["driver_initialised"], **state)
    # Forked whatever the checks said: whether a child can use the GPU after them is the point.
    failed = 0
    for number in range(args.children):
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(torch, number)
        _, status = os.waitpid(pid, 0)
        failed += 0 if os.waitstatus_to_exitcode(status) == 0 else 1
    say(step="children", forked=args.children, failed=failed)
    deferred_cuda.restore()
    if state["torch_initialized"]:
        return 0
    torch.zeros(1, device="cuda")
    say(step="parent made a tensor on the GPU (both checks must say true)", **cuda_state(torch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
