"""Work a zygote does once, before it forks, so that none of its workers does it again.

A forked worker starts from the zygote's memory: whatever the zygote computed and kept is there
for free, whatever it left lazy every worker computes on its own, on the way to its first sample.
On the H200 (bench/gpu/worker_setup_probe.py, docs/results/2026-12-02-h200-python-ab) the first
Triton launch of each forked worker was slow with every kernel already compiled, nearly all of it in
`triton_key()`, a hash of Triton's own files that Triton keeps for the life of a process, and in
importing `triton.experimental.gluon`, which Triton imports on its first compile (the figures:
docs/evidence.md#behind-the-code). Neither
touches CUDA, so the zygote does both once. Each step is skipped where this Triton lacks it; one
that fails here is left to the worker, which meets it and reports it as it would have anyway.
"""

import importlib
import sys
import time

# Where triton_key() lives: triton.runtime.cache (Triton 3.4 on), triton.compiler.compiler (before).
KEY_MODULES = ("triton.runtime.cache", "triton.compiler.compiler")
# Modules Triton imports lazily on a process's first compile.
LAZY_MODULES = ("triton.experimental.gluon",)


def warm_up():
    """Does the steps for the modules loaded now; returns [{"step": ..., "seconds": ...}] of those done."""
    if "triton" not in sys.modules:
        return []
    done = []

    def timed(step, work):
        began = time.monotonic()
        try:
            work()
        except Exception:  # noqa: BLE001 - the worker meets the same failure and reports it
            return False
        done.append({"step": step, "seconds": round(time.monotonic() - began, 4)})
        return True

    for name in KEY_MODULES:
        try:
            key = getattr(importlib.import_module(name), "triton_key", None)
        except Exception:  # noqa: BLE001 - an older or newer Triton: the next place, or none
            continue
        if callable(key) and timed(name + ".triton_key()", key):
            break
    for name in LAZY_MODULES:
        timed("import " + name, lambda: importlib.import_module(name))
    return done
