"""Link-time stand-ins for an older glibc, made by zig (PyPI's ziglang), for cmake/GlibcFloor.cmake.

    python3 cmake/glibc_link_stubs.py VERSION ARCH OUT_DIR      (2.28 x86_64 build/glibc-2.28)

zig links C for any glibc release from its own record of every release's symbols: it makes stub
libc.so.6, libm.so.6, libpthread.so.0, libdl.so.2, librt.so.1 and ld-linux that export exactly
the symbols, with their versions, that this glibc release had, the start file (Scrt1.o) and the
libc_nonshared.a of that release. This script has zig link one program so that it makes them,
copies them into OUT_DIR and writes there the libc.so, libm.so, ... linker scripts GCC's -l finds:
GCC linking with -B OUT_DIR then binds every symbol to a version that release has, or fails.
Of these only Scrt1.o and libc_nonshared.a end up in a binary: glibc's own code, compiled by zig.

zig's stubs give each exported variable its own address, where glibc makes some weak aliases of
one variable (environ of __environ, program_invocation_name of __progname_full, tzname of
__tzname, ...). A program's copy of environ must be glibc's __environ too, or glibc sets one and
the program reads the other (a null environ); so each variable the build machine's glibc aliases
is aliased in the stubs as well, and GNU ld then copies the variable once under all its names.
"""

import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

# The libraries a glibc release links against; the ld-linux stub's file is libld.so.2.
LIBRARIES = {"c": "libc.so.6", "m": "libm.so.6", "pthread": "libpthread.so.0", "dl": "libdl.so.2",
             "rt": "librt.so.1", "util": "libutil.so.1", "resolv": "libresolv.so.2"}
LOADER = "libld.so.2"
REVISION = 3  # of what this script makes: a folder made by another revision is made again


def zig_version():
    return subprocess.run([sys.executable, "-m", "ziglang", "version"], check=True, capture_output=True,
                          text=True).stdout.strip()


def link_line(version, arch, scratch):
    """The ld.lld command zig ran to link a PIE program against glibc VERSION, as a token list."""
    source = scratch / "main.c"
    source.write_text("int main(void) { return 0; }\n")
    env = dict(os.environ, ZIG_GLOBAL_CACHE_DIR=str(scratch / "zig-cache"), ZIG_LOCAL_CACHE_DIR=str(scratch / "zig-cache"))
    program = scratch / "main"
    # -nostdlib -lc: glibc's files alone, without building zig's compiler-rt, which takes a while.
    result = subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", f"{arch}-linux-gnu.{version}",
                             "-fPIE", "-pie", "-O2", "-fno-sanitize=all", "-nostdlib", "-lc", str(source), "-o",
                             str(program), "-v"],
                            env=env, cwd=scratch, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"glibc_link_stubs.py: zig cc for glibc {version} failed:\n{result.stderr[-3000:]}")
    for line in reversed(result.stderr.splitlines()):
        tokens = shlex.split(line)
        if tokens and tokens[0].endswith("ld.lld") and "-o" in tokens and tokens[tokens.index("-o") + 1].endswith("main"):
            return [scratch / t if not os.path.isabs(t) else Path(t) for t in tokens]
    sys.exit("glibc_link_stubs.py: zig cc -v printed no link command for the program (another zig version?)")


def dynamic_symbols(data):
    """[(name, offset of its Elf64_Sym)] of an ELF64 little-endian file's .dynsym."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for _, kind, _, _, offset, size, link, _, _, _ in sections:
        if kind == 11:  # SHT_DYNSYM
            strings = sections[link][4]
            return [(data[strings + name:data.index(b"\0", strings + name)].decode(), at)
                    for at in range(offset, offset + size, 24) for name in struct.unpack_from("<I", data, at)]
    return []


def weak_aliases(library):
    """{weak variable: its strong variable} of a shared library (its variables at one address)."""
    data = library.read_bytes()
    at_address = {}
    for name, at in dynamic_symbols(data):
        info, _, shndx, value, size = struct.unpack_from("<BBHQQ", data, at + 4)
        if info & 0xF == 1 and shndx != 0 and size > 0:  # STT_OBJECT, defined
            at_address.setdefault(value, set()).add((name, info >> 4))
    aliases = {}
    for names in at_address.values():
        strong = [n for n, binding in names if binding == 1]
        if len(strong) == 1:
            aliases.update({n: strong[0] for n, binding in names if binding == 2})
    return aliases


def alias_like(stub, host):
    """Gives the stub's weak variables the address of their strong one, as the host library has."""
    aliases = weak_aliases(host)
    data = bytearray(stub.read_bytes())
    where = dict(dynamic_symbols(data))
    for weak, strong in aliases.items():
        if weak in where and strong in where:
            info, other, shndx, value, size = struct.unpack_from("<BBHQQ", data, where[strong] + 4)
            struct.pack_into("<BBHQQ", data, where[weak] + 4, (2 << 4) | (info & 0xF), other, shndx, value, size)
    stub.write_bytes(bytes(data))


def host_library(soname):
    """The build machine's glibc library of that name (gcc knows where it lies)."""
    path = subprocess.run(["gcc", f"-print-file-name={soname}"], capture_output=True, text=True).stdout.strip()
    return Path(path) if os.path.isabs(path) and Path(path).is_file() else None


def main():
    if len(sys.argv) != 4 or not re.fullmatch(r"2\.\d+", sys.argv[1]):
        sys.exit("usage: glibc_link_stubs.py VERSION ARCH OUT_DIR   (VERSION like 2.28)")
    version, arch, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]).resolve()
    stamp = out / "stamp"
    wanted = f"glibc {version} {arch}, zig {zig_version()}, stubs {REVISION}\n"
    if stamp.exists() and stamp.read_text() == wanted:
        return
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="glibc-stubs-", dir=out.parent) as tmp:
        tokens = link_line(version, arch, Path(tmp))
        by_name = {t.name: t for t in tokens if t.suffix == ".o" or ".so." in t.name or t.name.endswith(".a")}
        needed = ["Scrt1.o", "libc_nonshared.a", LOADER, *LIBRARIES.values()]
        missing = [n for n in needed if n not in by_name]
        if missing:
            sys.exit(f"glibc_link_stubs.py: zig's link command has no {', '.join(missing)} (another zig version?)")
        for name in needed:
            shutil.copy2(by_name[name], out / name)
    for soname in LIBRARIES.values():
        host = host_library(soname)
        if host is None:
            sys.exit(f"glibc_link_stubs.py: gcc -print-file-name={soname} finds no library of the build machine's glibc")
        alias_like(out / soname, host)
    # crt1.o too (a program linked -no-pie): Scrt1.o is position-independent and serves both, and
    # the system's crt1.o must never be picked, as glibc >= 2.34's does not run the program's
    # constructors on an older glibc.
    shutil.copy2(out / "Scrt1.o", out / "crt1.o")
    for flag, soname in LIBRARIES.items():
        members = f"{out / soname}"
        if flag == "c":
            members += f" {out / 'libc_nonshared.a'} AS_NEEDED ( {out / LOADER} )"
        (out / f"lib{flag}.so").write_text(f"/* glibc {version}'s lib{flag}, for linking only */\nGROUP ( {members} )\n")
    stamp.write_text(wanted)


if __name__ == "__main__":
    main()
