"""A results folder (docs/results/NAME/): its README and reports in place, its raw run
directories in the archive beside them (ARCHIVE). Paths are relative to the folder and read the
same whichever side holds them, so the figures never depend on the archive being unpacked."""
import os
import tarfile

ARCHIVE = "raw.tar.xz"


class ResultsFolder:
    def __init__(self, path):
        self.path = os.path.normpath(path)
        self.name = os.path.basename(self.path)
        self._members = None

    @property
    def archive_path(self):
        return os.path.join(self.path, ARCHIVE)

    def members(self):
        """Every archived file: {relative path: bytes}, read once."""
        if self._members is None:
            self._members = {}
            if os.path.exists(self.archive_path):
                with tarfile.open(self.archive_path, "r:xz") as archive:
                    for member in archive:
                        if member.isfile():
                            self._members[member.name] = archive.extractfile(member).read()
        return self._members

    def _in_place(self, rel):
        return os.path.join(self.path, rel)

    def read(self, rel):
        """The bytes of a file, in place or archived; FileNotFoundError naming both."""
        rel = os.path.normpath(rel)
        if os.path.isfile(self._in_place(rel)):
            with open(self._in_place(rel), "rb") as f:
                return f.read()
        if rel in self.members():
            return self.members()[rel]
        raise FileNotFoundError(f"{self.path}/{rel}: neither in place nor in {ARCHIVE}")

    def text(self, rel):
        return self.read(rel).decode("utf-8")

    def is_file(self, rel):
        rel = os.path.normpath(rel)
        return os.path.isfile(self._in_place(rel)) or rel in self.members()

    def is_dir(self, rel):
        rel = os.path.normpath(rel).rstrip("/")
        if rel in ("", "."):
            return True
        return os.path.isdir(self._in_place(rel)) or any(m.startswith(rel + "/") for m in self.members())

    def where(self, rel):
        """'in place', 'archived' or None: where a path (file or folder) resolves."""
        rel = os.path.normpath(rel)
        if os.path.exists(self._in_place(rel)):
            return "in place"
        if rel in self.members() or any(m.startswith(rel + "/") for m in self.members()):
            return "archived"
        return None

    def children(self, rel):
        """Names directly under a folder, in place and archived together, sorted."""
        rel = os.path.normpath(rel).rstrip("/")
        prefix = "" if rel in ("", ".") else rel + "/"
        names = {m[len(prefix):].split("/")[0] for m in self.members() if m.startswith(prefix)}
        if os.path.isdir(self._in_place(rel)):
            names.update(os.listdir(self._in_place(rel)))
        return sorted(names)
