"""Packing a results folder's raw data into its archive, and proving nothing was lost.

What stays in place is what a reader opens on the web: the README and every report (*.md), chart
(*.svg) and screenshot (*.png, a report page as a browser showed it). Everything else (run directories, journals, logs, command output) goes into
raw.tar.xz beside them, with member names relative to the folder, so `tar -xJf raw.tar.xz` in the
folder restores the tree exactly as it was.

Why tar.xz: Python's tarfile reads it with the standard library alone (the figures and their CI
test read the archive directly, without unpacking), `tar -xJf` reads it on every Linux and macOS,
and xz compresses these thousands of similar JSON lines about 15 times (zip compresses file by
file and does far worse on small files; zstd needs a module Python 3.11 lacks).

The archive is byte-for-byte reproducible: members sorted, mode 0644, owner 0, mtime 0, so packing
the same tree twice gives the same file and git stores it once.
"""
import hashlib
import io
import lzma
import os
import subprocess
import tarfile

from .folder import ARCHIVE


def stays_in_place(rel):
    return os.path.basename(rel) == ARCHIVE or rel.endswith((".md", ".svg", ".png"))


def pack(folder_path, files):
    """Writes folder_path/raw.tar.xz from {relative path: bytes} (the files to archive)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(files):
            data = files[rel]
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    compressed = lzma.compress(buffer.getvalue(), format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME)
    with open(os.path.join(folder_path, ARCHIVE), "wb") as out:
        out.write(compressed)


def raw_files_on_disk(folder_path):
    """{relative path: bytes} of every file under the folder that does not stay in place."""
    files = {}
    for root, _, names in os.walk(folder_path):
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), folder_path)
            if not stays_in_place(rel):
                with open(os.path.join(root, name), "rb") as f:
                    files[rel] = f.read()
    return files


def tracked_files(repo, revision, folder_rel):
    """{path relative to the folder: bytes} of every file git tracks under folder_rel at revision."""
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "-z", "--name-only", revision, "--", folder_rel],
                           check=True, capture_output=True).stdout.decode().split("\0")
    names = [n for n in names if n]
    request = "".join(f"{revision}:{n}\n" for n in names).encode()
    out = subprocess.run(["git", "-C", repo, "cat-file", "--batch"], input=request, check=True,
                         capture_output=True).stdout
    files, pos = {}, 0
    for name in names:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        files[os.path.relpath(name, folder_rel)] = out[header_end + 1:header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return files


def verify(folder, old_files):
    """Compares a folder (in place + archived) with the files it held before ({rel: bytes}).
    Returns (report lines, ok)."""
    digest = lambda b: hashlib.sha256(b).hexdigest()
    members = folder.members()
    kept = archived = 0
    problems = []
    for rel, data in sorted(old_files.items()):
        if stays_in_place(rel):
            path = os.path.join(folder.path, rel)
            if not os.path.isfile(path):
                problems.append(f"missing in place: {rel}")
            kept += 1
        elif rel not in members:
            problems.append(f"missing from {ARCHIVE}: {rel}")
        elif digest(members[rel]) != digest(data):
            problems.append(f"changed in {ARCHIVE}: {rel}")
        else:
            archived += 1
    extra = sorted(set(members) - set(old_files))
    problems += [f"in {ARCHIVE} but not before: {rel}" for rel in extra]
    lines = [f"{folder.path}: {len(old_files)} files before; {kept} stay in place, {archived} of "
             f"{len(members)} archive members identical (sha256), {len(problems)} problems"]
    return lines + problems, not problems
