"""What a wheel's binaries need from the system, checked on every ELF file in it.

    python3 scripts/wheel_abi_check.py WHEEL [--glibc 2.28]

For each ELF file in the wheel (found by its magic number, wherever it lies) it reads the symbol
versions the file needs (readelf's version-needs section) and the libraries it names (DT_NEEDED),
and fails when one:
  - needs a glibc symbol version newer than --glibc,
  - needs a libstdc++ or libgcc_s version (GLIBCXX_, CXXABI_, GCC_): the wheel's C++ runtime
    must be inside its binaries, never the system's,
  - names a library that is neither glibc's nor in the wheel itself (auditwheel's grafted ones).
It also fails when the wheel's platform tag is not manylinux_<glibc> (auditwheel gave another).
One line per ELF file on stdout; each failure on stderr with the file, the version and the
symbols that need it. Exit 0 when all pass, 1 when one does not, 2 on bad usage.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# glibc's own libraries, which every manylinux system has (PEP 600's policy for x86-64).
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
                   "libresolv.so.2", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
SYSTEM_CXX_VERSIONS = ("GLIBCXX_", "CXXABI_", "GCC_", "CXXABI_TM_")


def release(text):
    return tuple(int(part) for part in text.split("."))


def version_needs(path):
    """{version name: library file} of the file's version-needs section."""
    out = subprocess.run(["readelf", "-V", "-W", str(path)], check=True, capture_output=True, text=True).stdout
    needs, library = {}, None
    for line in out.splitlines():
        if m := re.search(r"Version: \d+\s+File: (\S+)", line):
            library = m.group(1)
        elif (m := re.search(r"Name: (\S+)\s+Flags", line)) and library:
            needs[m.group(1)] = library
    return needs


def needed_libraries(path):
    out = subprocess.run(["readelf", "-d", "-W", str(path)], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def symbols_of(path, version):
    out = subprocess.run(["objdump", "-T", "-w", str(path)], check=True, capture_output=True, text=True).stdout
    return sorted({line.split()[-1] for line in out.splitlines() if f"({version})" in line or f" {version} " in line})


def check(wheel, floor):
    problems, report = [], []
    tag = re.search(r"-((?:manylinux|linux)[^-]*)\.whl$", wheel.name)
    wanted_tag = f"manylinux_{floor.replace('.', '_')}_"
    if not tag or not any(t.startswith(wanted_tag) for t in tag.group(1).split(".")):
        problems.append(f"{wheel.name}: its platform tag is not {wanted_tag}<arch> (auditwheel repair gives the tag "
                        f"the binaries earn)")
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory() as tmp:
        names = archive.namelist()
        basenames = {Path(n).name for n in names}
        elf_files = 0
        for name in names:
            with archive.open(name) as f:
                if f.read(4) != b"\x7fELF":
                    continue
            elf_files += 1
            path = Path(archive.extract(name, tmp))
            newest = (0, 0)
            for version, library in version_needs(path).items():
                if version.startswith("GLIBC_") and re.fullmatch(r"GLIBC_\d+(\.\d+)+", version):
                    number = release(version[len("GLIBC_"):])
                    newest = max(newest, number)
                    if number > release(floor):
                        problems.append(f"{name}: needs {version} of {library} (newer than glibc {floor}): "
                                        f"{', '.join(symbols_of(path, version))}")
                elif version.startswith(SYSTEM_CXX_VERSIONS):
                    problems.append(f"{name}: needs {version} of {library}, the system's C++ runtime: "
                                    f"{', '.join(symbols_of(path, version))}")
            for library in needed_libraries(path):
                if library not in GLIBC_LIBRARIES and library not in basenames:
                    problems.append(f"{name}: links {library}, which is neither glibc's nor in the wheel")
            report.append(f"{name}: glibc {'.'.join(map(str, newest)) if newest != (0, 0) else 'none'} at most, "
                          f"libraries {' '.join(needed_libraries(path)) or 'none'}")
        if elf_files == 0:
            problems.append(f"{wheel.name}: no ELF file in it (not isobench's wheel?)")
    return report, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--glibc", default="2.28", help="the oldest glibc the wheel promises (default 2.28)")
    args = parser.parse_args()
    if not re.fullmatch(r"2\.\d+", args.glibc):
        parser.error(f"--glibc {args.glibc}: give a glibc release like 2.28")
    if not args.wheel.is_file():
        parser.error(f"{args.wheel}: no such wheel")
    report, problems = check(args.wheel, args.glibc)
    for line in report:
        print(f"wheel_abi_check: {line}")
    for line in problems:
        print(f"wheel_abi_check: FAILED: {line}", file=sys.stderr)
    if not problems:
        print(f"wheel_abi_check: {args.wheel.name}: every ELF file runs on glibc {args.glibc} without the system's C++ "
              f"runtime")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
