"""Bytecode kept for the interpreters isobench starts (docs/python.md, "The zygote", step 2).

Where bytecode writing is off (PYTHONDONTWRITEBYTECODE, python -B) Python writes no .pyc, and in an
environment that holds none every process compiles what it imports from source again: on the H200
(PYTHONDONTWRITEBYTECODE=1, a venv whose torch modules have no .pyc), that compilation was more than
half of importing a Triton benchmark module (torch, Triton)
(docs/results/2026-12-04-h200-import-bytecode; the figures: docs/evidence.md#behind-the-code). Each
side's zygote and the pytest collector import torch once per run: that compilation was on the way to
every verdict.

keep() is called by those processes before they import the user's modules. Where bytecode
writing is off and no prefix is set, it points sys.pycache_prefix at isobench's own cache
(cache_root(): ISOBENCH_BYTECODE_CACHE, "off" for none, else $XDG_CACHE_HOME/isobench/bytecode,
else ~/.cache/isobench/bytecode, beside isobench's Triton caches) and lets the process write
bytecode there. With a prefix, Python reads and writes every module's bytecode under it, at the
source's own path, validated against the source as in __pycache__ and named after the
interpreter; nothing is written beside any source: what PYTHONDONTWRITEBYTECODE keeps out of the
user's tree stays out of it. The flag is the process's own (sys.dont_write_bytecode, not the
environment): the programs a benchmark starts see the environment as it was. Where bytecode
writing is on, or a prefix is set, nothing changes.
"""

import os
import sys

VARIABLE = "ISOBENCH_BYTECODE_CACHE"


def own_cache(variable, name):
    """One of isobench's caches: the folder the environment variable names (None for "off"), else
    $XDG_CACHE_HOME/isobench/NAME, else ~/.cache/isobench/NAME (beside isobench's Triton caches)."""
    root = os.environ.get(variable)
    if root:
        return None if root == "off" else os.path.abspath(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "isobench", name)


def cache_root():
    """The folder bytecode is kept in: ISOBENCH_BYTECODE_CACHE (None for "off"), else
    $XDG_CACHE_HOME/isobench/bytecode, else ~/.cache/isobench/bytecode."""
    return own_cache(VARIABLE, "bytecode")


def keep():
    """Bytecode written to and read from cache_root() from now on, where bytecode writing is off
    and no prefix is set; returns that folder, or None where nothing changed (writing on, a
    prefix of the user's, "off", or a folder that cannot be made or written)."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return None
    root = cache_root()
    if root is None:
        return None
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        return None
    if not os.access(root, os.W_OK | os.X_OK):
        return None
    sys.pycache_prefix = root
    sys.dont_write_bytecode = False
    return root
