"""The packaging parts of the isobench package (docs/install.md): python -m isobench.examples finds
the example sweeps of a checkout (the wheel's copies are checked by scripts/wheel-check.sh), and
the orchestrate console script of a package without its build refuses in one line, exit 2."""

import os
import subprocess
import sys
import unittest

import isobench
from isobench import examples

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(isobench.__file__))))


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


class Examples(unittest.TestCase):
    def test_every_example_is_a_file_of_the_checkout(self):
        self.assertEqual(examples.root(), REPO)
        for name, (relative, _, _) in examples.EXAMPLES.items():
            self.assertTrue(os.path.isfile(examples.path(name)), name)
            self.assertEqual(examples.path(name), os.path.join(REPO, relative))

    def test_the_command_prints_one_path_or_every_command(self):
        r = run("-m", "isobench.examples", "pytest-cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, os.path.join(REPO, "examples/pytest/test_cpu_suite.py") + "\n")
        r = run("-m", "isobench.examples")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("orchestrate --device cpu " + os.path.join(REPO, "examples/python/cpu.yaml"), r.stdout)
        r = run("-m", "isobench.examples", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1)
        self.assertIn("one of quick, cpu", r.stderr)


class Launcher(unittest.TestCase):
    def test_a_package_without_its_build_refuses_in_one_line(self):
        # In the checkout, isobench/_build does not exist: what a package installed without the
        # wheel's build would meet.
        r = run("-c", "import isobench._installed as i; i.orchestrate()", "--version")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1)
        self.assertIn("isobench/_build/bin/orchestrate is missing", r.stderr)


if __name__ == "__main__":
    unittest.main()
