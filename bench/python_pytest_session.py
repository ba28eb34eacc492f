#!/usr/bin/env python3
"""What one pytest session of the pytest bridge costs (python/isobench/pytest_bridge.py): every
worker runs each pytest-benchmark test it sets up in a session of its own, so this is paid per
instance per worker, untimed but on the way to a verdict. Times PytestTest calls of a trivial
test after a warm-up call, with the bridge's plugin list and with the built-in plugins it leaves
out put back, and prints ms per session for each.

    PYTHONPATH=python python3 bench/python_pytest_session.py [--calls 20]
"""
import argparse
import os
import sys
import tempfile
import time

from isobench import pytest_bridge

TEST = '''import pytest
@pytest.mark.parametrize("n", [1, 2])
def test_noop(benchmark, n):
    benchmark(lambda: None)
'''


def per_session_ms(path, calls):
    test = pytest_bridge.PytestTest(path, "test_noop[1]")
    test(0, "cpu", None)
    began = time.perf_counter()
    for _ in range(calls):
        test(0, "cpu", None)
    return (time.perf_counter() - began) * 1e3 / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20)
    calls = parser.parse_args().calls
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "test_noop.py")
        with open(path, "w") as f:
            f.write(TEST)
        pytest_bridge.collect(path)
        stdout, sys.stdout = sys.stdout, sys.stderr  # the sessions' own lines
        try:
            bridge = per_session_ms(path, calls)
            quiet = {"no:" + p for p in pytest_bridge._QUIET_PLUGINS}
            base, every_args, i = list(pytest_bridge._COMMON_ARGS), [], 0
            while i < len(base):  # the bridge's arguments less its "-p no:<quiet plugin>" pairs
                if base[i] == "-p" and i + 1 < len(base) and base[i + 1] in quiet:
                    i += 2
                    continue
                every_args.append(base[i])
                i += 1
            pytest_bridge._COMMON_ARGS[:] = every_args
            every = per_session_ms(path, calls)
        finally:
            sys.stdout = stdout
    print(f"pytest session of the bridge: {bridge:.1f} ms; with the built-in plugins it leaves out: {every:.1f} ms "
          f"({calls} calls each)")


if __name__ == "__main__":
    main()
