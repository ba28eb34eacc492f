"""Figures in Markdown: markers that say what to derive, and the derived text between them.

A block (a table, with its settings and GPU below it):

    <!-- figures calibration session-b/calibrate -->
    | mode | ... |
    <!-- /figures -->

A value inside a sentence:

    ... found <!-- figure verdicts session-c2/ab-slow5-gap50 SLOWER -->3 of 9<!-- /figure --> SLOWER

The marker's words are a kind of figures/ and its arguments (shell quoting: instances="cast 1M;
gemm 1024^3"). `write` fills every marker of a document; `check` reports every marker whose text
is not what the data gives, so a hand-edited figure fails. A marker inside code (a fenced block or
a code span) is an example, not a figure.

A measured number typed by hand outside markers fails `check` too: percentages, ratios such as
1.67x, "6 of 9", times and rates with a unit, ratios with 3 or more decimals (not an alpha:
"alpha 0.001"). Numbers that are
settings, not measurements (a 5% injected slowdown, a 2% floor, a 50 ms gap), are declared once
in the document, where a reader sees them:

    <!-- settings, not measurements: 5%; 2%; 50 ms -->
"""
import re
import shlex

from .figures import KINDS, OPTIONS, FigureError

BLOCK = re.compile(r"(<!-- figures (.*?) -->\n)(.*?)(<!-- /figures -->)", re.S)
INLINE = re.compile(r"(<!-- figure (.*?) -->)(.*?)(<!-- /figure -->)")
SETTINGS = re.compile(r"<!-- settings, not measurements: (.*?) -->", re.S)
MEASURED = re.compile(
    r"\d+(?:\.\d+)?\s?%|\b\d+(?:\.\d+)?x\b|\b\d+ of \d+\b|"
    r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|s|MHz|TFLOP/s|GB/s|TB/s|samples/min)(?![\w/])|(?<!alpha )(?<!alpha = )\b\d\.\d{3,}\b")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def _derive(context, spec):
    words = shlex.split(spec)
    if not words or words[0] not in KINDS:
        raise FigureError(f"unknown figure kind in <!-- {spec} -->; kinds: {', '.join(sorted(KINDS))}")
    # An option is a known key=value word; anything else (a path, an instance, a regex that holds
    # an '=') is an argument.
    is_option = lambda w: "=" in w and w.split("=", 1)[0] in OPTIONS
    args = [w for w in words[1:] if not is_option(w)]
    opts = dict(w.split("=", 1) for w in words[1:] if is_option(w))
    return KINDS[words[0]](context, args, opts)


def _code_ranges(text):
    return [m.span() for m in CODE.finditer(text)]


def _outside_code(pattern, text):
    """The pattern's matches that do not start inside code (a fenced block or a code span), so
    that a document can show a marker as an example."""
    code = _code_ranges(text)
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in code)]


def fill(text, context):
    """The document with every marker's text derived anew."""
    for pattern, derive in ((BLOCK, lambda m: m.group(1) + _derive(context, m.group(2)) + "\n" + m.group(4)),
                            (INLINE, lambda m: m.group(1) + _derive(context, m.group(2)) + m.group(4))):
        out, pos = [], 0
        for m in _outside_code(pattern, text):
            out += [text[pos:m.start()], derive(m)]
            pos = m.end()
        text = "".join(out) + text[pos:]
    return text


def differences(text, context):
    """(marker, written, derived) for every marker whose text is not the derived one."""
    out = []
    for m in _outside_code(BLOCK, text):
        derived = _derive(context, m.group(2)) + "\n"
        if m.group(3) != derived:
            out.append((m.group(2), m.group(3), derived))
    for m in _outside_code(INLINE, text):
        derived = _derive(context, m.group(2))
        if m.group(3) != derived:
            out.append((m.group(2), m.group(3), derived))
    return out


def has_markers(text):
    return bool(_outside_code(BLOCK, text) or _outside_code(INLINE, text))


def hand_typed(text, section=None):
    """Measured-looking numbers outside markers, code and declared settings: [(line, token)].
    section: a heading ("## Measured on an H200"); only that section is read."""
    allowed = set()
    for m in SETTINGS.finditer(text):
        allowed.update(" ".join(t.split()) for t in m.group(1).split(";") if t.strip())
    start = 0
    if section is not None:
        start = text.index(section)
        end = text.find("\n## ", start + len(section))
        text = text[:end if end >= 0 else len(text)]
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    stripped = BLOCK.sub(blank, text)
    stripped = INLINE.sub(blank, stripped)
    stripped = SETTINGS.sub(blank, stripped)
    stripped = CODE.sub(blank, stripped)
    stripped = re.sub(r"<!--.*?-->", blank, stripped, flags=re.S)
    found = []
    for m in MEASURED.finditer(stripped, start):
        token = m.group(0)
        if " ".join(token.split()) not in allowed:
            found.append((stripped.count("\n", 0, m.start()) + 1, token))
    return found
