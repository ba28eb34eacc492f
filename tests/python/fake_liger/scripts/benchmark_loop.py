"""A stand-in script written without `if __name__ == "__main__"`: its timing calls are made by its
module-level code, in a loop (named by the file's stem and their ordinal)."""

import time

import triton.testing

from utils import log

for us in (20, 60):
    log("loop", us, triton.testing.do_bench(lambda: time.sleep(us * 1e-6)))
