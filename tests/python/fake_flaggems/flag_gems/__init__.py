"""A stand-in of FlagGems' tuner for the tests, with no torch and no GPU (libentry.py): written
from the interface isobench relies on, not from FlagGems' code."""

import os

# FlagGems makes its tuner database's folder when imported (seen with FlagGems 5.3.4 on the H100:
# a zygote's import made <run>/flaggems-cache/side-N before the run directory was created).
# (Only where the variable is set: a test never makes ~/.flaggems.)
if os.environ.get("FLAGGEMS_CACHE_DIR"):
    os.makedirs(os.environ["FLAGGEMS_CACHE_DIR"], exist_ok=True)
