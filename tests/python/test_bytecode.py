"""isobench.bytecode: where bytecode writing is off, the processes isobench starts keep their
imports' bytecode in isobench's cache (and only there), and read it back the next time; where it
is on, or the user set a prefix, or the cache is "off", nothing changes. Each case runs in a fresh
interpreter: keep() changes its process. The zygote's side of it (python.json's "bytecode") is
tests/integration/test_python.cpp."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

from isobench import bytecode

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(bytecode.__file__)))

# Calls keep(), imports the module "probe" from the folder on sys.argv[1], and prints what keep()
# returned, whether the module was compiled from source in this process, and the process's flag.
PROGRAM = r"""
import importlib.machinery, json, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from isobench import bytecode
kept = bytecode.keep()
compiled = []
original = importlib.machinery.SourceFileLoader.source_to_code
def source_to_code(self, data, path, *args, **kwargs):
    compiled.append(os.path.basename(path))
    return original(self, data, path, *args, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = source_to_code
import probe
child = subprocess.run([sys.executable, "-c", "import sys; print(sys.flags.dont_write_bytecode)"],
                       capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps({"kept": kept, "compiled": "probe.py" in compiled, "dont_write": sys.dont_write_bytecode,
                  "prefix": sys.pycache_prefix, "child_flag": child,
                  "cached": probe.__cached__}))
"""


class KeptBytecode(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.folder = os.path.join(self.tmp.name, "modules")
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "probe.py"), "w") as f:
            f.write("VALUE = 1\n")
        self.cache = os.path.join(self.tmp.name, "cache")

    def tearDown(self):
        self.tmp.cleanup()

    def start(self, no_bytecode=True, cache=None, prefix=None):
        env = dict(os.environ, PYTHONPATH=PACKAGE)
        env[bytecode.VARIABLE] = self.cache if cache is None else cache
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("PYTHONPYCACHEPREFIX", None)
        if no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        if prefix:
            env["PYTHONPYCACHEPREFIX"] = prefix
        done = subprocess.run([sys.executable, "-c", PROGRAM, self.folder], env=env, capture_output=True, text=True,
                              check=False)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        return json.loads(done.stdout)

    def beside_the_source(self):
        return os.path.exists(os.path.join(self.folder, "__pycache__"))

    def test_with_writing_off_bytecode_goes_to_the_cache_and_is_read_back(self):
        first = self.start()
        self.assertEqual(first["kept"], self.cache)
        self.assertEqual(first["prefix"], self.cache)
        self.assertFalse(first["dont_write"])
        self.assertTrue(first["compiled"])
        # The programs it starts see the environment as it was: bytecode writing off.
        self.assertEqual(first["child_flag"], "1")
        mirrored = os.path.join(self.cache, *os.path.realpath(self.folder).split(os.sep)[1:])
        written = glob.glob(os.path.join(self.cache, "**", "probe.*.pyc"), recursive=True)
        self.assertEqual(len(written), 1, written)
        self.assertEqual(os.path.realpath(os.path.dirname(written[0])), os.path.realpath(mirrored))
        self.assertFalse(self.beside_the_source())
        stamp = os.stat(written[0]).st_mtime_ns
        second = self.start()
        self.assertFalse(second["compiled"])  # read from the cache
        self.assertEqual(os.stat(written[0]).st_mtime_ns, stamp)
        self.assertFalse(self.beside_the_source())
        # A changed source is compiled again, as with __pycache__.
        with open(os.path.join(self.folder, "probe.py"), "w") as f:
            f.write("VALUE = 22\n")
        self.assertTrue(self.start()["compiled"])

    def test_off_leaves_the_flag_and_writes_nothing(self):
        answer = self.start(cache="off")
        self.assertIsNone(answer["kept"])
        self.assertTrue(answer["dont_write"])
        self.assertIsNone(answer["prefix"])
        self.assertTrue(self.start(cache="off")["compiled"])
        self.assertFalse(os.path.exists(self.cache))
        self.assertFalse(self.beside_the_source())

    def test_with_writing_on_nothing_changes(self):
        answer = self.start(no_bytecode=False)
        self.assertIsNone(answer["kept"])
        self.assertIsNone(answer["prefix"])
        self.assertFalse(os.path.exists(self.cache))
        self.assertTrue(self.beside_the_source())

    def test_a_prefix_of_the_users_is_left_as_it_is(self):
        own = os.path.join(self.tmp.name, "own")
        answer = self.start(prefix=own)
        self.assertIsNone(answer["kept"])
        self.assertEqual(answer["prefix"], own)
        self.assertTrue(answer["dont_write"])
        self.assertFalse(os.path.exists(self.cache))

    def test_a_cache_that_cannot_be_made_changes_nothing(self):
        blocker = os.path.join(self.tmp.name, "file")
        open(blocker, "w").close()
        answer = self.start(cache=os.path.join(blocker, "cache"))
        self.assertIsNone(answer["kept"])
        self.assertTrue(answer["dont_write"])
        self.assertIsNone(answer["prefix"])

    def test_the_default_folder_is_beside_isobenchs_other_caches(self):
        env = {k: v for k, v in os.environ.items() if k != bytecode.VARIABLE}
        code = "import sys; sys.path.insert(0, sys.argv[1]); from isobench import bytecode; print(bytecode.cache_root())"
        run = lambda extra: subprocess.run([sys.executable, "-c", code, PACKAGE], env=dict(env, **extra),  # noqa: E731
                                           capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(run({"XDG_CACHE_HOME": "/xdg"}), "/xdg/isobench/bytecode")
        env.pop("XDG_CACHE_HOME", None)
        self.assertEqual(run({"HOME": "/home/u"}), "/home/u/.cache/isobench/bytecode")


if __name__ == "__main__":
    unittest.main()
