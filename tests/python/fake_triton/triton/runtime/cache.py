"""triton.runtime.cache's triton_key() as Triton 3.x has it: computed once per process
(functools.lru_cache), here counting its computations (tests/python/test_fork_warmup.py).
FAKE_TRITON_KEY_FAILS=1 makes it raise, as a Triton whose files cannot be read would."""

import functools
import os

computed = 0


@functools.lru_cache()
def triton_key():
    global computed
    if os.environ.get("FAKE_TRITON_KEY_FAILS") == "1":
        raise OSError("cannot read the Triton package's files")
    computed += 1
    return "fake-key"
