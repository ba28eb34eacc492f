"""Every path a document cites must resolve: in the repository, in place in a results folder, or
inside that folder's raw.tar.xz.

A cited path is a code span of one word that looks like a file or folder (it holds a '/' or ends
in a file extension, and is not an option, an instance id `cast[n=...]`, a placeholder `<name>`,
a URL, an absolute path such as the device machine's /tmp/..., or a build output build*/), or a
word of a longer code span (a command line) that starts with a top folder of the repository, so
that a script renamed without its citations fails. Citations inside
a results folder's README are tried relative to that folder first (a bare file name may name any
file of the folder: `NAME.out` beside every run), then relative to the repository root; glob
patterns (`session-*/commands-*.log`) must match at least one file.
"""
import fnmatch
import os
import re

from .folder import ResultsFolder

CODE_SPAN = re.compile(r"`([^`\n]+)`")
EXTENSIONS = (".md", ".txt", ".json", ".jsonl", ".out", ".err", ".log", ".yaml", ".svg", ".py", ".sh",
              ".cpp", ".hpp", ".cu", ".h", ".xz", ".csv")


def _path_like(word):
    if word.startswith(("\\", "-", "/", "$", "~", "build")) or "://" in word or "::" in word:
        return False
    if word.startswith(".") and "/" not in word:  # an extension named on its own (`.out`)
        return False
    if any(c in word for c in "=[<{"):
        return False
    return "/" in word or word.endswith(EXTENSIONS)


def cited_paths(markdown, top_folders):
    """The paths a Markdown text cites, in order, without repeats: each code span that is one
    path-like word, and the words of longer spans (command lines) that start with one of the
    repository's top folders (bench/, configs/, ...)."""
    seen = []
    for span in CODE_SPAN.findall(markdown):
        words = [w.strip("(),;:'\"") for w in span.split()]
        if len(words) == 1:
            chosen = [w for w in words if _path_like(w)]
        else:
            chosen = [w for w in words if _path_like(w) and w.split("/")[0] in top_folders]
        seen += [w for w in chosen if w not in seen]
    return seen


def _matches_in_folder(folder, pattern):
    names = list(folder.members())
    names += sorted({os.path.dirname(m) for m in folder.members()} - {""})
    for root, dirs, files in os.walk(folder.path):
        rel_root = os.path.relpath(root, folder.path)
        for n in files + dirs:
            names.append(os.path.normpath(os.path.join(rel_root, n)))
    pattern = os.path.normpath(pattern.rstrip("/"))
    if "/" not in pattern:  # a bare name: any file of the folder with that name
        return any(fnmatch.fnmatch(os.path.basename(n), pattern) for n in names)
    return any(fnmatch.fnmatch(n, pattern) or fnmatch.fnmatch(n, pattern + "/*") for n in names)


class Resolver:
    def __init__(self, repo):
        self.repo = repo
        self._folders = {}

    def folder(self, path):
        path = os.path.normpath(path)
        if path not in self._folders:
            self._folders[path] = ResultsFolder(path)
        return self._folders[path]

    def _results_folder_of(self, absolute):
        """(folder, path inside it) when the path lies in docs/results/NAME/, else None."""
        results = os.path.join(self.repo, "docs", "results")
        rel = os.path.relpath(absolute, results)
        if rel.startswith("..") or rel == ".":
            return None
        parts = rel.split(os.sep)
        folder = os.path.join(results, parts[0])
        if not os.path.isdir(folder):
            return None
        return self.folder(folder), os.path.join(*parts[1:]) if len(parts) > 1 else "."

    def resolves(self, base_dir, cited):
        """Whether a cited path resolves from base_dir (the citing document's folder) or the root."""
        for base in (base_dir, self.repo):
            absolute = os.path.normpath(os.path.join(base, cited))
            if any(c in cited for c in "*?"):
                inside = self._results_folder_of(absolute)
                if inside and _matches_in_folder(inside[0], inside[1]):
                    return True
                if fnmatch.filter(_walk(os.path.dirname(absolute)), absolute):
                    return True
                continue
            # A program cited by its build target (bench/bench_plan) is its source file.
            if os.path.exists(absolute) or os.path.exists(absolute + ".cpp"):
                return True
            inside = self._results_folder_of(absolute)
            if inside and inside[0].where(inside[1]):
                return True
        inside = self._results_folder_of(os.path.join(base_dir, "x"))
        if inside and "/" not in cited.rstrip("/"):
            return _matches_in_folder(inside[0], cited)
        return False

    def top_folders(self):
        return {n for n in os.listdir(self.repo) if os.path.isdir(os.path.join(self.repo, n))
                and not n.startswith((".", "build"))}

    def unresolved(self, document, only_repository_paths=False):
        """The paths a document cites that resolve nowhere. only_repository_paths: check only
        paths that start with a top folder (for guides, whose other names are generic, such as
        `plan.json` for any run's plan)."""
        base = os.path.dirname(os.path.abspath(document))
        with open(document, encoding="utf-8") as f:
            text = f.read()
        top = self.top_folders()
        paths = cited_paths(text, top)
        if only_repository_paths:
            paths = [p for p in paths if p.split("/")[0] in top or p.startswith("../")]
        return [p for p in paths if not self.resolves(base, p)]

    def outside(self, document):
        """The paths a document cites that lead out of the repository (../shared/...)."""
        base = os.path.dirname(os.path.abspath(document))
        with open(document, encoding="utf-8") as f:
            text = f.read()
        root = os.path.abspath(self.repo) + os.sep
        return [p for p in cited_paths(text, self.top_folders())
                if not os.path.abspath(os.path.join(base, p)).startswith(root)]


def _walk(directory):
    if not os.path.isdir(directory):
        return []
    return [os.path.join(directory, n) for n in os.listdir(directory)]
