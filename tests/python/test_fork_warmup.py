"""isobench.fork_warmup with the stand-in Triton (tests/python/fake_triton): the zygote computes
triton_key() once and every worker forked after inherits it, instead of hashing Triton's files
again on its first launch; nothing is done where Triton is not loaded, and a step that fails is
left to the worker. Each case runs in a fresh interpreter: whether Triton is loaded is the point."""

import os
import subprocess
import sys
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHONPATH = os.pathsep.join([os.path.join(HERE, "fake_triton"), os.path.join(HERE, "..", "..", "python")])


def run(code, **env):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": PYTHONPATH, **env}, timeout=60)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout.strip()


class ForkWarmup(unittest.TestCase):
    def test_a_forked_worker_inherits_the_key_the_zygote_computed(self):
        out = run("""
            import os
            import triton
            import triton.runtime.cache as cache
            from isobench import fork_warmup
            steps = [s["step"] for s in fork_warmup.warm_up()]
            pid = os.fork()
            if pid == 0:
                cache.triton_key()              # a worker's first launch asks for it
                os._exit(cache.computed)        # 1: computed in the zygote only
            _, status = os.waitpid(pid, 0)
            print(steps, cache.computed, os.waitstatus_to_exitcode(status))
        """)
        self.assertEqual(out, "['triton.runtime.cache.triton_key()'] 1 1")

    def test_without_triton_loaded_nothing_is_done(self):
        out = run("""
            import sys
            from isobench import fork_warmup
            print(fork_warmup.warm_up(), "triton" in sys.modules)
        """)
        self.assertEqual(out, "[] False")

    def test_a_step_that_fails_is_left_to_the_worker(self):
        out = run("""
            import triton
            from isobench import fork_warmup
            print(fork_warmup.warm_up())
        """, FAKE_TRITON_KEY_FAILS="1")
        self.assertEqual(out, "[]")


if __name__ == "__main__":
    unittest.main()
