"""The build installed inside this package by the wheel: isobench/_build/ holds bin/ (orchestrate,
isobench-worker), lib/ (libisobench-worker.so), python/ (the package the zygotes import) and
share/isobench/ (the example sweeps), laid out like a build folder, so the binaries find each
other the same way in both.

`orchestrate` on PATH is orchestrate() below: it executes the real binary in its place. Run from a
virtual environment that is not activated (venv/bin/orchestrate), it puts that environment's bin/
first on PATH, so `python3` in Python benchmarks and the pytest route is the environment's own,
as if it were activated.
"""

import os
import sys

BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build")


def _environment_bin_first():
    here = os.path.dirname(sys.executable)
    path = os.environ.get("PATH", "")
    if here and here not in path.split(os.pathsep):
        os.environ["PATH"] = here + (os.pathsep + path if path else "")


def orchestrate():
    binary = os.path.join(BUILD, "bin", "orchestrate")
    if not os.access(binary, os.X_OK):
        sys.stderr.write(
            "orchestrate: " + binary + " is missing: this isobench package has no build in it "
            "(install the wheel, or run build/bin/orchestrate of a source build)\n"
        )
        sys.exit(2)
    _environment_bin_first()
    os.execv(binary, [binary] + sys.argv[1:])
