"""A test file whose import ends its interpreter (os._exit(3) after a line on standard error), as a
crash in an extension module would: the collection is refused with the collector's exit code and
that line (tests/python/test_deferred_cuda.py), whoever else imported it meanwhile."""

import os
import sys

sys.stderr.write("collect_crash: the import ends the interpreter here\n")
sys.stderr.flush()
os._exit(3)
