"""The results tool. Run from the repository root:

  python3 tools/results write [DOCUMENT...]  derive every figure marker's text (markers.py) in the
                                             documents (default: every document `check` reads)
  python3 tools/results check                exit 1, naming each problem, unless every figure in
                                             README.md and docs/ is what the raw data gives, no
                                             measured number is typed outside markers, every cited
                                             path resolves (in place or inside an archive), none
                                             leads out of the repository, and every results folder
                                             with an archive tracks nothing else but Markdown/SVG/PNG
  python3 tools/results pack FOLDER...       archive each folder's raw files into FOLDER/raw.tar.xz,
                                             keeping what it already archived
                                             (the files stay; delete them with git rm once verified)
  python3 tools/results verify REV FOLDER... list each folder's files at git revision REV against
                                             what the folder holds now, in place and archived

A new results folder (docs/results/NAME/): its run directories and command output packed with
`pack`, its README asking for figures with markers, filled with `write`; `check` (and its CI test,
tests/tools/test_results.py) keeps them true.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from results import archive, documents  # noqa: E402
from results.folder import ResultsFolder  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv):
    if not argv or argv[0] not in ("write", "check", "pack", "verify") or (argv[0] in ("pack", "verify") and len(argv) < 2):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    verb, args = argv[0], argv[1:]
    if verb == "write":
        for path in args or documents.with_markers(REPO):
            changed = documents.write(REPO, path)
            print(f"{path}: {'figures written' if changed else 'unchanged'}")
        return 0
    if verb == "check":
        problems = documents.check(REPO)
        print("\n".join(problems) if problems else "results: every figure, number and path checks out")
        return 1 if problems else 0
    if verb == "pack":
        for path in args:
            # Members archived before stay: a folder packed once and given more files later
            # would otherwise lose everything it had archived (files on disk win where both are).
            archive.pack(path, {**ResultsFolder(path).members(), **archive.raw_files_on_disk(path)})
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
