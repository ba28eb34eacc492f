#!/usr/bin/env python3
"""tools/check_includes.py: it finds a cycle between rooms when one is planted (so the check of
orchestrator/ that ctest runs can fail), through includes from the repository root and includes
beside the including file, and passes a tree whose rooms depend one way."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))

import check_includes  # noqa: E402


class CheckIncludes(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = self.folder.name

    def tearDown(self):
        self.folder.cleanup()

    def write(self, path, *includes):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("#pragma once\n" + "".join(f'#include "{i}"\n' for i in includes))

    def check(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = check_includes.main(["--root", self.root])
        return code, out.getvalue()

    def one_way_tree(self):
        # run/ above format/ and the root, stats/ outside orchestrator/, a library header.
        self.write("orchestrator/errors.hpp", "stats/verdict.hpp")
        self.write("orchestrator/format/numbers.hpp")
        self.write("orchestrator/run/run.hpp", "orchestrator/errors.hpp", "orchestrator/format/numbers.hpp",
                   "executor.hpp")
        self.write("orchestrator/run/executor.hpp", "nlohmann/json.hpp")
        self.write("stats/verdict.hpp", "orchestrator/run/run.hpp")

    def test_rooms_that_depend_one_way_pass(self):
        self.one_way_tree()
        self.assertEqual(self.check(), (0, ""))

    def planted(self, path, include):
        """The checker's report of the one-way tree with `path` including `include`; it fails."""
        self.one_way_tree()
        self.write(path, include)
        code, out = self.check()
        self.assertEqual(code, 1)
        return out

    def test_a_planted_cycle_between_two_rooms_is_found(self):
        out = self.planted("orchestrator/format/numbers.cpp", "orchestrator/run/run.hpp")
        self.assertIn("cycle between orchestrator/format/, orchestrator/run/:", out)
        self.assertIn('orchestrator/format/ -> orchestrator/run/: orchestrator/format/numbers.cpp:2: '
                      '#include "orchestrator/run/run.hpp"', out)
        self.assertIn("orchestrator/run/ -> orchestrator/format/:", out)

    def test_a_room_above_that_includes_back_is_a_cycle(self):
        # The root includes a room (beside itself, as main.cpp once did) that includes the root.
        out = self.planted("orchestrator/main.cpp", "run/run.hpp")
        self.assertIn("cycle between orchestrator/, orchestrator/run/:", out)
        self.assertIn('orchestrator/main.cpp:2: #include "run/run.hpp"', out)

    def test_a_cycle_through_three_rooms_is_one_cycle(self):
        self.write("orchestrator/a/a.hpp", "orchestrator/b/b.hpp")
        self.write("orchestrator/b/b.hpp", "orchestrator/c/c.hpp")
        self.write("orchestrator/c/c.hpp", "orchestrator/a/a.hpp")
        code, out = self.check()
        self.assertEqual(code, 1)
        self.assertEqual(out.count("cycle between"), 1)
        self.assertIn("orchestrator/a/, orchestrator/b/, orchestrator/c/", out)

    def test_a_folders_face_beside_it_is_in_its_room(self):
        # orchestrator/sweep.hpp beside orchestrator/sweep/ is sweep's: a file of sweep/ that includes
        # a room which includes sweep.hpp ties the two, though no file of sweep/ is included by name.
        self.write("orchestrator/sweep.hpp", "orchestrator/errors.hpp")
        self.write("orchestrator/errors.hpp")
        self.write("orchestrator/sweep/expansion.cpp", "orchestrator/sweep.hpp", "orchestrator/python/collection.hpp")
        self.write("orchestrator/python/collection.hpp", "orchestrator/sweep.hpp")
        code, out = self.check()
        self.assertEqual(code, 1)
        self.assertIn("cycle between orchestrator/python/, orchestrator/sweep/:", out)
        self.assertIn('orchestrator/python/ -> orchestrator/sweep/: orchestrator/python/collection.hpp:2: '
                      '#include "orchestrator/sweep.hpp"', out)

    def test_a_face_without_its_folder_stays_in_the_room_it_sits_in(self):
        self.write("orchestrator/errors.hpp")
        self.write("orchestrator/sweep.hpp", "orchestrator/errors.hpp")
        self.write("orchestrator/python/collection.hpp", "orchestrator/sweep.hpp")
        self.assertEqual(self.check(), (0, ""))


if __name__ == "__main__":
    unittest.main()
