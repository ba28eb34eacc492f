"""scripts/wheel_abi_check.py on small wheels made here: each thing it must refuse, refused with the
file and the version named, and a wheel that needs nothing newer passed. The wheels hold ELF files
GCC builds on this machine (Debian 12, glibc 2.36), so what they need is known."""

import os
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

CHECK = Path(__file__).resolve().parents[2] / "scripts" / "wheel_abi_check.py"


class WheelAbiCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def compile(self, name, source, *flags, compiler="gcc", suffix=".c"):
        src = self.dir / f"{name}{suffix}"
        src.write_text(source)
        out = self.dir / name
        subprocess.run([compiler, str(src), "-o", str(out), *flags], check=True)
        return out

    def wheel(self, files, tag="manylinux_2_28_x86_64"):
        path = self.dir / f"isobench-0.1.0-py3-none-{tag}.whl"
        with zipfile.ZipFile(path, "w") as archive:
            for name, file in files.items():
                archive.write(file, name)
            archive.writestr("isobench/__init__.py", "")
        return path

    def check(self, wheel, *args):
        return subprocess.run([sys.executable, str(CHECK), str(wheel), *args], capture_output=True, text=True)

    def plain_library(self):
        # No symbol from any library: needs no version at all.
        return self.compile("libplain.so", "int plain(int x) { return 2 * x; }\n", "-shared", "-fPIC", "-nostdlib")

    def test_a_wheel_that_needs_nothing_newer_passes(self):
        result = self.check(self.wheel({"isobench/_build/lib/libplain.so": self.plain_library()}))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("every ELF file runs on glibc 2.28", result.stdout)

    def test_a_program_linked_against_this_glibc_is_refused_with_the_symbol(self):
        # glibc >= 2.34's start files call __libc_start_main@GLIBC_2.34.
        program = self.compile("program", "int main(void) { return 0; }\n")
        result = self.check(self.wheel({"isobench/_build/bin/program": program}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("isobench/_build/bin/program: needs GLIBC_2.34 of libc.so.6 (newer than glibc 2.28): "
                      "__libc_start_main", result.stderr)
        # The same program passes a check of the glibc it was built with.
        self.assertNotIn("GLIBC_2.34", self.check(self.wheel({"bin/program": program}, "manylinux_2_36_x86_64"),
                                                  "--glibc", "2.36").stderr)

    def test_the_systems_cpp_runtime_is_refused(self):
        library = self.compile("libcxx.so", '#include <string>\nstd::string f() { return std::string(40, \'x\'); }\n',
                               "-shared", "-fPIC", compiler="g++", suffix=".cpp")
        result = self.check(self.wheel({"isobench/_build/lib/libcxx.so": library}))
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"libcxx\.so: needs GLIBCXX_[0-9.]+ of libstdc\+\+\.so\.6, the system's C\+\+ "
                                        r"runtime")

    def test_a_library_neither_glibcs_nor_in_the_wheel_is_refused(self):
        plain = self.plain_library()
        user = self.compile("libuser.so", "int plain(int); int twice(int x) { return plain(x); }\n", "-shared", "-fPIC",
                            "-nostdlib", f"-L{self.dir}", "-lplain")
        result = self.check(self.wheel({"isobench/_build/lib/libuser.so": user}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("libuser.so: links libplain.so, which is neither glibc's nor in the wheel", result.stderr)
        # Grafted into the wheel (auditwheel's isobench.libs/), the library is found.
        grafted = self.wheel({"isobench/_build/lib/libuser.so": user, "isobench.libs/libplain.so": plain})
        self.assertEqual(self.check(grafted).returncode, 0)

    def test_a_tag_other_than_the_promised_one_is_refused(self):
        result = self.check(self.wheel({"lib/libplain.so": self.plain_library()}, "linux_x86_64"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("its platform tag is not manylinux_2_28_<arch>", result.stderr)

    def test_a_wheel_without_elf_files_is_refused(self):
        note = self.dir / "note.txt"
        note.write_text("no binaries\n")
        result = self.check(self.wheel({"isobench/note.txt": note}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("no ELF file in it", result.stderr)

    def test_bad_usage_is_exit_2(self):
        self.assertEqual(self.check(self.dir / "missing.whl").returncode, 2)
        self.assertEqual(self.check(self.wheel({}), "--glibc", "2.x").returncode, 2)


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    unittest.main()
