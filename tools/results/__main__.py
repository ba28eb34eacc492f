"""The results tool. Run from the repository root:

  python3 tools/results pack FOLDER...      archive each folder's raw files into FOLDER/raw.tar.xz
                                            (the files stay; delete them with git rm once verified)
  python3 tools/results verify REV FOLDER...
                                            list each folder's files at git revision REV against
                                            what the folder holds now, in place and archived
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from results import archive  # noqa: E402
from results.folder import ResultsFolder  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv):
    if len(argv) < 2 or argv[0] not in ("pack", "verify"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    verb, args = argv[0], argv[1:]
    if verb == "pack":
        for path in args:
            archive.pack(path, archive.raw_files_on_disk(path))
            print(f"{path}/{archive.ARCHIVE}: {os.path.getsize(os.path.join(path, archive.ARCHIVE))} bytes")
        return 0
    if verb == "verify":
        if len(args) < 2:
            print("usage: verify REV FOLDER...", file=sys.stderr)
            return 2
        revision, ok = args[0], True
        for path in args[1:]:
            rel = os.path.relpath(os.path.abspath(path), REPO)
            lines, good = archive.verify(ResultsFolder(path), archive.tracked_files(REPO, revision, rel))
            print("\n".join(lines))
            ok = ok and good
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
