"""A profile of the pytest route's collection (isobench.pytest_bridge.collect) of one test file
once torch, Triton, pytest and the module are imported (PYTHONPATH: the side's folder and
isobench's python/): the imports' time, the collection's, the modules pytest rewrote
(_rewrite_test calls) and cProfile's 45 heaviest calls by cumulative time. Used by
bench/gpu/pytest_start_profile.sh and bench/gpu/pytest_rewrite_cache.sh.

    python3 bench/gpu/collect_profile.py TEST_FILE
"""

import cProfile
import pstats
import sys
import time

began = time.monotonic()
import torch  # noqa: E402,F401 - the imports timed apart
import triton  # noqa: E402,F401
import pytest  # noqa: E402,F401
import softmax_mod  # noqa: E402,F401
from isobench import pytest_bridge  # noqa: E402

print("imports before the profile: %.3f s" % (time.monotonic() - began))
began = time.monotonic()
profile = cProfile.Profile()
profile.runcall(pytest_bridge.collect, sys.argv[1])
print("collect after the imports: %.3f s" % (time.monotonic() - began))
stats = pstats.Stats(profile)
print("modules rewritten: %d" % sum(calls for (_file, _line, name), (calls, *_rest) in stats.stats.items()
                                    if name == "_rewrite_test"))
stats.sort_stats("cumulative").print_stats(45)
