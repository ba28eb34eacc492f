#!/usr/bin/env python3
"""Every `orchestrate` command in README.md and docs/*.md parses, and names repository files that exist.

    test_doc_commands.py [ORCHESTRATE]     the binary under test (default: build/bin/orchestrate)

Each command is run as `orchestrate --parse-only ...` (CLI11 parses it, nothing runs): every
verb and option must exist and every value must be one its option takes. Commands that need a
GPU, a Slurm cluster or a run directory are checked the same way, since nothing runs.

What is a command: in a fenced code block, a line that starts with `$ orchestrate ` (a prompt,
in any block), or with `orchestrate ` in a block tagged sh, bash, shell or console (an untagged
or text block is output: `orchestrate 0.1.0 (commit ...)`); a line ending in `\\` goes on with
the next; `# ...` is a comment. Inline code in prose is not checked.

How a command's words are read (the convention the docs keep):
- Paths whose first folder is one of the repository's (configs/, examples/, docs/, ...) are the
  repository's: the file must exist, and is given by its absolute path. `build/...` is the build
  tree of the binary under test (build/lib/libisobench_example_cpu.so).
- `$(python -m isobench.examples NAME)` is that example's file in the repository (it must be
  one of isobench.examples' names); any other `$(...)` stands for the one word it prints, X.
- Every other word is the user's: CAPITALS (RUN, RUN_A, OLD, NEW, W, FILE, COMMIT, RUN...),
  <angle brackets>, and paths outside the repository's folders (sweep.yaml, old/isobench-worker,
  runs/nightly-1, benchmark/test_softmax.py) are passed as they are, from an empty folder in
  which each such relative file path with a suffix (.yaml, .py, .json, ...) is made as an empty
  file, so that an option which checks its file exists (ab --pytest) takes it.
- A lone `...` stands for options left out, and is dropped.

The other cases show that the extractor finds what it should and that the check can fail.
"""
import glob
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORCHESTRATE = os.path.join(REPO, "build", "bin", "orchestrate")
if __name__ == "__main__" and len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
    ORCHESTRATE = os.path.abspath(sys.argv.pop(1))

SHELL_TAGS = {"sh", "bash", "shell", "console"}
USER_FILE = re.compile(r"^[\w.-]+(/[\w.-]+)*\.(yaml|yml|py|json|jsonl|txt|so|csv|sqlite)$")
SUBSTITUTION = re.compile(r"\$\(([^()]*)\)")
EXAMPLE = re.compile(r"^python3? -m isobench\.examples (\S+)$")


def documents():
    return [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "*.md")))


def commands(text):
    """(line number, command) for every orchestrate command in the fenced code blocks of text."""
    found = []
    tag = None  # the open block's info string; None outside a block
    pending = None  # a command continued on the next line: [line, text]
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            tag = None if tag is not None else stripped[3:].strip().lower()
            continue
        if tag is None:
            continue
        if pending is not None:
            pending[1] += " " + stripped
        elif stripped.startswith("$ orchestrate ") or (tag in SHELL_TAGS and stripped.startswith("orchestrate ")):
            pending = [number, stripped[2:] if stripped.startswith("$ ") else stripped]
        else:
            continue
        if pending[1].endswith("\\"):
            pending[1] = pending[1][:-1].rstrip()
        else:
            found.append(tuple(pending))
            pending = None
    return found


def repository_folders():
    """The repository's top-level folders (what git tracks where there is git)."""
    listed = subprocess.run(["git", "-C", REPO, "ls-files"], capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout:
        return {p.split("/")[0] for p in listed.stdout.split("\n") if "/" in p}
    return {e for e in os.listdir(REPO) if os.path.isdir(os.path.join(REPO, e)) and not e.startswith(("build", "."))}


def example_files():
    spec = importlib.util.spec_from_file_location("isobench_examples", os.path.join(REPO, "python", "isobench", "examples.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: entry[0] for name, entry in module.EXAMPLES.items()}


class Reading:
    """How one command's words are read (the module's docstring); problems holds what is wrong."""

    def __init__(self, command, build_root, folders, examples):
        self.build_root, self.folders, self.examples = build_root, folders, examples
        self.problems, self.user_files = [], []
        words = shlex.split(SUBSTITUTION.sub(self._substitute, command), comments=True)
        if not words or words[0] != "orchestrate":
            self.problems.append("does not start with orchestrate")
        self.args = [self._word(w) for w in words[1:] if w != "..."]

    def _substitute(self, match):
        example = EXAMPLE.match(match.group(1).strip())
        if not example:
            return "X"
        if example.group(1) not in self.examples:
            self.problems.append("isobench.examples has no example " + example.group(1))
            return "X"
        return self.examples[example.group(1)]

    def _word(self, word):
        if word.startswith("--") and "=" in word:
            option, value = word.split("=", 1)
            return option + "=" + self._word(value)
        first = word.split("/")[0]
        if "/" in word and first == "build":
            return self._repository_file(os.path.join(self.build_root, word[len("build/"):]), word)
        if "/" in word and first in self.folders:
            return self._repository_file(os.path.join(REPO, word), word)
        if USER_FILE.match(word) and not word.startswith("-"):
            self.user_files.append(word)
        return word

    def _repository_file(self, path, word):
        if not os.path.exists(path):
            self.problems.append(word + ": no such file in the " + ("build tree" if word.startswith("build/") else "repository"))
        return path


def check(command, orchestrate=None, build_root=None, folders=None, examples=None):
    """What is wrong with one command: [] when it parses and names only repository files that exist."""
    orchestrate = orchestrate or ORCHESTRATE
    reading = Reading(command, build_root or os.path.dirname(os.path.dirname(orchestrate)),
                      repository_folders() if folders is None else folders,
                      example_files() if examples is None else examples)
    with tempfile.TemporaryDirectory(prefix="doc-command-") as scratch:
        for f in reading.user_files:
            os.makedirs(os.path.join(scratch, os.path.dirname(f)), exist_ok=True)
            open(os.path.join(scratch, f), "a").close()
        r = subprocess.run([orchestrate, "--parse-only"] + reading.args, cwd=scratch, capture_output=True, text=True)
    problems = list(reading.problems)
    if r.returncode != 0:
        problems.append("exit %d: %s" % (r.returncode, (r.stderr.strip() or r.stdout.strip()).split("\n")[-1]))
    return problems


class CommittedDocuments(unittest.TestCase):
    def test_every_command_parses(self):
        folders, examples = repository_folders(), example_files()
        problems, checked = [], 0
        for path in documents():
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for number, command in commands(text):
                checked += 1
                for p in check(command, folders=folders, examples=examples):
                    problems.append("%s:%d: %s: %s" % (os.path.relpath(path, REPO), number, command, p))
        self.assertEqual(problems, [], "\n" + "\n".join(problems))
        # A check that finds no commands would pass on anything.
        self.assertGreaterEqual(checked, 60)


class TheExtractor(unittest.TestCase):
    def test_commands_in_shell_blocks_prompts_and_continuations(self):
        text = "\n".join([
            "orchestrate --in-prose sweep.yaml",
            "```sh",
            "orchestrate --samples 4 sweep.yaml   # a comment",
            "scripts/build.sh release",
            "orchestrate calibrate --runs 8 \\",
            "    --modes process sweep.yaml",
            "```",
            "```",
            "orchestrate 0.1.0 (commit 0123456789ab)",
            "$ orchestrate compare A B",
            "orchestrate: sweep.yaml: an error message",
            "```",
        ])
        self.assertEqual(commands(text), [
            (3, "orchestrate --samples 4 sweep.yaml   # a comment"),
            (5, "orchestrate calibrate --runs 8 --modes process sweep.yaml"),
            (10, "orchestrate compare A B"),
        ])

    def test_words_are_read_by_the_convention(self):
        reading = Reading("orchestrate ab ... --pytest $(python -m isobench.examples pytest-cpu) --out runs/x-$(date +%F) "
                          "--candidate-python venv-b/bin/python configs/quick.yaml sweep.yaml  # comment",
                          "/build", {"configs", "examples"}, {"pytest-cpu": "examples/pytest/test_cpu_suite.py"})
        self.assertEqual(reading.problems, [])
        self.assertEqual(reading.args, ["ab", "--pytest", os.path.join(REPO, "examples/pytest/test_cpu_suite.py"),
                                        "--out", "runs/x-X", "--candidate-python", "venv-b/bin/python",
                                        os.path.join(REPO, "configs/quick.yaml"), "sweep.yaml"])
        self.assertEqual(reading.user_files, ["sweep.yaml"])


@unittest.skipUnless(os.access(ORCHESTRATE, os.X_OK), "no orchestrate binary to check against")
class TheCheckCanFail(unittest.TestCase):
    def test_the_documents_commands_pass(self):
        self.assertEqual(check("orchestrate ab --pytest benchmark/test_softmax.py -k softmax --candidate-python venv-b/bin/python"), [])

    def test_an_option_that_does_not_exist(self):
        problems = check("orchestrate ab --baseline OLD --candidate NEW --no-such-option sweep.yaml")
        self.assertEqual(len(problems), 1)
        self.assertIn("--no-such-option", problems[0])

    def test_a_verb_that_does_not_exist(self):
        problems = check("orchestrate compair RUN_A RUN_B")
        self.assertEqual(len(problems), 1)
        self.assertIn("exit 2", problems[0])

    def test_a_value_the_option_does_not_take(self):
        problems = check("orchestrate bisect --device gpu --good A --bad B --build make --worker w sweep.yaml")
        self.assertEqual(len(problems), 1)
        self.assertIn("gpu", problems[0])

    def test_a_repository_file_that_does_not_exist(self):
        problems = check("orchestrate calibrate --device cpu configs/spinn.yaml")
        self.assertEqual(problems, ["configs/spinn.yaml: no such file in the repository"])

    def test_an_example_that_does_not_exist(self):
        problems = check("orchestrate $(python -m isobench.examples quik)")
        self.assertEqual(problems, ["isobench.examples has no example quik"])


if __name__ == "__main__":
    unittest.main()
