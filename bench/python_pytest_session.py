#!/usr/bin/env python3
"""What the pytest bridge's sessions cost (python/isobench/pytest_bridge.py), untimed but on the
way to every verdict of a pytest A/B:

- a worker: a forked child of a process that collected the file (as a zygote is) sets up N tests
  (default 4, the softmax A/B's batch), once in the worker's one session (configured and
  collected once, then each test by the runtest protocol) and once with a session of its own per
  test (what every worker did before, and still does where the worker's session cannot be made);
- one session of its own: PytestTest calls of a trivial test, with the bridge's plugin list and
  with the built-in plugins it leaves out put back.

Prints the median ms of each (workers: --workers forks; sessions: --calls calls).

    PYTHONPATH=python python3 bench/python_pytest_session.py [--calls 20] [--workers 9] [--tests 4]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

from isobench import pytest_bridge

TEST = '''import pytest
@pytest.mark.parametrize("n", list(range(16)))
def test_noop(benchmark, n):
    benchmark(lambda: None)
'''


def per_session_ms(path, calls):
    """ms per set-up of one test when every set-up is a session of its own."""
    test = pytest_bridge.PytestTest(path, "test_noop[1]")
    test(0, "cpu", None)
    began = time.perf_counter()
    for _ in range(calls):
        test(0, "cpu", None)
    return (time.perf_counter() - began) * 1e3 / calls


def worker_ms(path, tests, workers):
    """Median ms a forked worker takes to set up `tests` tests."""
    times = []
    for _ in range(workers):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            began = time.perf_counter()
            for n in range(tests):
                pytest_bridge.PytestTest(path, "test_noop[%d]" % n)(0, "cpu", None)
            os.write(write, repr(time.perf_counter() - began).encode())
            os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        times.append(float(os.read(read, 64)) * 1e3)
        os.close(read)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--workers", type=int, default=9)
    parser.add_argument("--tests", type=int, default=4)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "test_noop.py")
        with open(path, "w") as f:
            f.write(TEST)
        pytest_bridge.collect(path)
        stdout, sys.stdout = sys.stdout, sys.stderr  # the sessions' own lines
        try:
            shared = worker_ms(path, options.tests, options.workers)
            worker_session = pytest_bridge._worker_session
            pytest_bridge._worker_session = lambda path, args: None  # a session of its own per test
            separate = worker_ms(path, options.tests, options.workers)
            bridge = per_session_ms(path, options.calls)
            quiet = pytest_bridge._QUIET_PLUGINS
            pytest_bridge._QUIET_PLUGINS = ()  # the bridge's session less its blocking of the quiet plugins
            every = per_session_ms(path, options.calls)
            pytest_bridge._QUIET_PLUGINS = quiet
            pytest_bridge._worker_session = worker_session
        finally:
            sys.stdout = stdout
    print(f"a worker setting up {options.tests} tests: {shared:.1f} ms in its one session, {separate:.1f} ms with a "
          f"session per test (median of {options.workers} forks)")
    print(f"pytest session of the bridge: {bridge:.1f} ms; with the built-in plugins it leaves out: {every:.1f} ms "
          f"({options.calls} calls each)")


if __name__ == "__main__":
    main()
