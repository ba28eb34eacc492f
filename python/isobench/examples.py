"""The example sweeps that come with isobench, for a user without the repository:

    python -m isobench.examples            where they are, and the command that runs each
    python -m isobench.examples quick      the path of one (quick, cpu, python-cpu, python-gpu, pytest-cpu)

    orchestrate $(python -m isobench.examples quick)

They are installed with the wheel (isobench/_build/share/isobench/); in a checkout they are the
repository's own files (configs/, examples/python/).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOTS = [os.path.join(_HERE, "_build", "share", "isobench"), os.path.dirname(os.path.dirname(_HERE))]

# name: (path below the root, what it measures, options it runs with)
EXAMPLES = {
    "quick": ("configs/quick.yaml", "a few CPU kernels, and GPU ones where there is a GPU", ""),
    "cpu": ("configs/cpu.yaml", "the CPU kernels across cache and memory sizes", ""),
    "python-cpu": ("examples/python/cpu.yaml", "pure-Python benchmarks on the CPU", "--device cpu "),
    "python-gpu": ("examples/python/gpu.yaml", "torch operators and Triton kernels on a GPU", ""),
    "pytest-cpu": ("examples/pytest/test_cpu_suite.py", "a pytest-benchmark suite, two environments compared",
                   "ab --candidate-env EXAMPLE_SORT_KEY=str --pytest "),
}


def root():
    """The folder that holds configs/ and examples/, or None."""
    for r in _ROOTS:
        if os.path.isfile(os.path.join(r, EXAMPLES["quick"][0])):
            return r
    return None


def path(name):
    """The path of the example sweep called name (a key of EXAMPLES)."""
    r = root()
    if r is None:
        raise FileNotFoundError("no isobench examples in " + " or ".join(_ROOTS))
    return os.path.join(r, EXAMPLES[name][0])


def main(argv):
    if len(argv) > 1 or (argv and argv[0] not in EXAMPLES):
        sys.stderr.write("isobench.examples: expected no argument or one of " + ", ".join(EXAMPLES) + "\n")
        return 2
    try:
        if argv:
            print(path(argv[0]))
            return 0
        print("isobench examples in " + os.path.dirname(os.path.dirname(path("quick"))))
    except FileNotFoundError as e:
        sys.stderr.write("isobench.examples: " + str(e) + "\n")
        return 2
    for name, (_, what, options) in EXAMPLES.items():
        print("  %-10s  %s\n              orchestrate %s%s" % (name, what, options, path(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
