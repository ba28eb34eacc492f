"""Which documents hold figures and citations, and the checks run over them.

- README.md: its figures must hold what the data gives; its citations must resolve and none may
  lead out of the repository.
- docs/evidence.md (EVIDENCE), the one page of measured tables the README links: its
  measured-results section (MEASURED_SECTION) is figures only.
- docs/*.md (the guides, the evidence page among them): the repository paths they cite must
  resolve and their figures hold what the data gives.
- docs/results/*.md and every Markdown file inside a results folder: their markers must hold what
  the data gives; each folder's README.md also gets the hand-typed-number and citation checks.
- Every results folder with a raw.tar.xz tracks nothing else but its Markdown, SVG and PNG files (an
  archive beside loose copies of its members would be two records of one run).
"""
import glob
import os
import subprocess

from . import markers
from .archive import stays_in_place
from .figures import Context, FigureError
from .folder import ARCHIVE
from .calibration import CalibrationError
from .paths import Resolver

EVIDENCE = os.path.join("docs", "evidence.md")
MEASURED_SECTION = "## Measured on an H200"


def _results_markdown(repo):
    out = sorted(glob.glob(os.path.join(repo, "docs", "results", "*.md")))
    for folder in sorted(glob.glob(os.path.join(repo, "docs", "results", "*", ""))):
        for root, _, names in os.walk(folder):
            out += sorted(os.path.join(root, n) for n in names if n.endswith(".md"))
    return out


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def with_markers(repo):
    """Every document holding a figure marker, repository-relative."""
    candidates = [os.path.join(repo, "README.md")] + _results_markdown(repo)
    candidates += sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    found = []
    for path in candidates:
        if markers.has_markers(read_text(path)):
            found.append(os.path.relpath(path, repo))
    return found


def write(repo, path):
    absolute = os.path.join(repo, path)
    text = read_text(absolute)
    filled = markers.fill(text, Context(Resolver(repo), absolute))
    if filled != text:
        with open(absolute, "w", encoding="utf-8") as f:
            f.write(filled)
    return filled != text


def _figure_problems(repo, resolver, path):
    text = read_text(path)
    rel = os.path.relpath(path, repo)
    try:
        diffs = markers.differences(text, Context(resolver, path))
    except (FigureError, CalibrationError, FileNotFoundError, KeyError, ValueError) as e:
        return [f"{rel}: a figure cannot be derived: {e}"]
    problems = []
    for spec, written, derived in diffs:
        problems.append(f"{rel}: <!-- {spec} --> reads\n    {written.strip()}\n  but the data gives\n    "
                        f"{derived.strip()}\n  (python3 tools/results write {rel})")
    return problems


def _hand_typed_problems(repo, path, section=None):
    text = read_text(path)
    rel = os.path.relpath(path, repo)
    return [f"{rel}:{line}: '{token}' looks measured but is typed by hand: put it in a figure marker, or "
            "declare it in <!-- settings, not measurements: ... --> if it is a setting"
            for line, token in markers.hand_typed(text, section)]


def _tracked(repo, folder):
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files", "--", os.path.relpath(folder, repo)],
                             check=True, capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None  # not a git checkout: nothing to say about what is tracked
    return [os.path.relpath(os.path.join(repo, f), folder) for f in out]


def check(repo):
    resolver = Resolver(repo)
    problems = []
    readme = os.path.join(repo, "README.md")
    problems += [f"README.md cites {p}, which leads out of the repository" for p in resolver.outside(readme)]
    problems += [f"README.md cites {p}, which does not resolve" for p in resolver.unresolved(readme, True)]
    problems += _figure_problems(repo, resolver, readme)
    evidence = os.path.join(repo, EVIDENCE)
    if not os.path.exists(evidence):
        problems.append(f"{EVIDENCE} is missing: the measured tables live there (rename EVIDENCE in "
                        "tools/results/documents.py with it, so its figures stay checked)")
    elif MEASURED_SECTION in read_text(evidence):
        problems += _hand_typed_problems(repo, evidence, MEASURED_SECTION)
    else:
        problems.append(f"{EVIDENCE} has no section '{MEASURED_SECTION}': rename MEASURED_SECTION in "
                        "tools/results/documents.py with it, so its figures stay checked")
    for guide in sorted(glob.glob(os.path.join(repo, "docs", "*.md"))):
        rel = os.path.relpath(guide, repo)
        problems += [f"{rel} cites {p}, which does not resolve" for p in resolver.unresolved(guide, True)]
        problems += _figure_problems(repo, resolver, guide)
    results_dir = os.path.join(repo, "docs", "results")
    for document in _results_markdown(repo):
        if os.path.dirname(document) == results_dir:  # the index and the CPU benchmarks: guides
            rel = os.path.relpath(document, repo)
            problems += [f"{rel} cites {p}, which does not resolve" for p in resolver.unresolved(document, True)]
        rel = os.path.relpath(document, repo)
        problems += _figure_problems(repo, resolver, document)
        if os.path.basename(document) == "README.md" and os.path.dirname(os.path.dirname(document)) == results_dir:
            problems += [f"{rel} cites {p}, which resolves neither in place nor in {ARCHIVE}"
                         for p in resolver.unresolved(document)]
            problems += [f"{rel} cites {p}, which leads out of the repository" for p in resolver.outside(document)]
            problems += _hand_typed_problems(repo, document)
    for folder in sorted(glob.glob(os.path.join(repo, "docs", "results", "*", ARCHIVE))):
        folder = os.path.dirname(folder)
        loose = [f for f in (_tracked(repo, folder) or []) if not stays_in_place(f)]
        if loose:
            problems.append(f"{os.path.relpath(folder, repo)}: {len(loose)} raw files tracked beside {ARCHIVE} "
                            f"(e.g. {loose[0]}): pack them (python3 tools/results pack) and git rm them")
    return problems
