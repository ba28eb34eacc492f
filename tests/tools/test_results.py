#!/usr/bin/env python3
"""tools/results: the figures in README.md and docs/results/ are what the archived raw data gives.

The main case re-derives every figure of every committed document from the archives and fails on
any difference, hand-typed measured number, dangling citation or loose raw file. The others show
that those checks can fail, and that the statistics behind the figures agree with scipy's values
(tests/data/scipy/reference.json, written by tools/scipy_reference.py).
"""
import io
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))

from results import archive, documents, markers  # noqa: E402
from results.figures import Context  # noqa: E402
from results.folder import ResultsFolder  # noqa: E402
from results.paths import Resolver  # noqa: E402
from results.stats import BrunnerMunzel, HodgesLehmann, _mann_whitney_cdf, holm, wilson  # noqa: E402

H200 = os.path.join(REPO, "docs", "results", "2026-11-29-h200")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class CommittedDocuments(unittest.TestCase):
    def test_every_figure_number_and_path_checks_out(self):
        problems = documents.check(REPO)
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_the_check_reads_figures_at_all(self):
        # A check that finds no markers would pass on anything.
        self.assertIn("README.md", documents.with_markers(REPO))
        self.assertIn(documents.EVIDENCE, documents.with_markers(REPO))
        self.assertGreaterEqual(len(documents.with_markers(REPO)), 8)

    def test_the_evidence_page_is_checked_for_hand_typed_numbers(self):
        # The measured tables left the README for the evidence page: a number typed by hand there
        # must still fail the check, as it did in the README's section.
        evidence = os.path.join(REPO, documents.EVIDENCE)
        planted = read(evidence).replace(documents.MEASURED_SECTION + "\n",
                                         documents.MEASURED_SECTION + "\n\nIt then found 4 of 9 SLOWER.\n", 1)
        original = documents.read_text
        documents.read_text = lambda path: planted if os.path.abspath(path) == evidence else original(path)
        try:
            problems = documents.check(REPO)
        finally:
            documents.read_text = original
        self.assertEqual([p for p in problems if "'4 of 9'" in p and p.startswith(documents.EVIDENCE)],
                         [p for p in problems if "4 of 9" in p])
        self.assertEqual(len(problems), 1, problems)


class TheChecksCanFail(unittest.TestCase):
    def setUp(self):
        self.readme = os.path.join(H200, "README.md")
        self.text = read(self.readme)
        self.context = Context(Resolver(REPO), self.readme)

    def test_a_hand_edited_figure_in_a_table(self):
        edited = self.text.replace("| `sequential` | 252 | 27.0% [21.9, 32.8]", "| `sequential` | 252 | 26.6% [21.9, 32.8]", 1)
        self.assertNotEqual(edited, self.text)
        diffs = markers.differences(edited, self.context)
        self.assertEqual(len(diffs), 1)
        self.assertIn("27.0%", diffs[0][2])

    def test_a_hand_edited_figure_in_a_sentence(self):
        marker = "<!-- figure flagged session-b/calibrate process -->"
        start = self.text.index(marker) + len(marker)
        end = self.text.index("<!-- /figure -->", start)
        edited = self.text[:start] + "1 of 252 (0.40% [0.07, 2.2])" + self.text[end:]
        self.assertEqual([d[2] for d in markers.differences(edited, self.context)], [self.text[start:end]])

    def test_a_measured_number_typed_by_hand(self):
        self.assertEqual(markers.hand_typed(self.text), [])
        edited = self.text + "\nThe process mode then found 86.1% of the slowdowns, and 4 of 9 SLOWER.\n"
        self.assertEqual([t for _, t in markers.hand_typed(edited)], ["86.1%", "4 of 9"])

    def test_declared_settings_and_markers_in_code_are_not_figures(self):
        text = "A 5% slowdown, `72 of 72`, and\n```\n<!-- figure verdicts nowhere SLOWER -->9 of 9<!-- /figure -->\n```\n"
        self.assertEqual([t for _, t in markers.hand_typed(text)], ["5%"])
        self.assertEqual(markers.hand_typed(text + "<!-- settings, not measurements: 5% -->"), [])
        self.assertFalse(markers.has_markers(text))

    def test_a_citation_that_resolves_nowhere(self):
        resolver = Resolver(REPO)
        with tempfile.NamedTemporaryFile("w", suffix=".md", dir=H200, delete=False) as f:
            f.write("See `session-b/calibrate/report.md`, `session-b/ab-slow5.out` and `session-b/no-such-run/`,\n"
                    "made by `bench/gpu/h200_measure_b.sh OUT runs`.\n")
        try:
            self.assertEqual(resolver.unresolved(f.name), ["session-b/no-such-run/", "bench/gpu/h200_measure_b.sh"])
        finally:
            os.unlink(f.name)

    def test_a_figure_whose_data_disagrees_with_what_the_tool_printed(self):
        # verdicts are re-derived and checked against the table compare printed at the time
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-11-29-h200-c"))
        printed = folder.text("session-c2/ab-slow5-gap50.out")
        self.assertEqual(printed.count(" SLOWER"), 3)
        text = "<!-- figure verdicts session-c2/ab-slow5-gap50 SLOWER -->4 of 9<!-- /figure -->"
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        self.assertEqual(markers.differences(text, context)[0][2], "3 of 9")


    def test_a_median_ratio_is_the_ratio_of_the_two_logs_medians(self):
        # median_ratio against statistics.median over the same lines of the two archived logs
        import re
        import statistics
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-12-05-h100-python-ab-speed-check"))
        pattern = r"# pytest-until-same-\d: exit 0, (\d+) ms"
        new, old = ([float(x) for x in re.findall(pattern, folder.text(f"call-2/{side}/commands.log"))]
                    for side in ("ps-new", "ps-pre44"))
        self.assertEqual((len(new), len(old)), (3, 3))
        expected = f"{statistics.median(new) / statistics.median(old):.2f}x"
        text = ('<!-- figure median_ratio call-2/ps-new/commands.log call-2/ps-pre44/commands.log '
                f'"{pattern}" -->edited<!-- /figure -->')
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        self.assertEqual(markers.differences(text, context)[0][2], expected)

    def test_a_median_ratio_with_a_regex_of_its_own_for_the_denominator(self):
        # two builds' runs in one commands.log (setup_cadence.sh's ISOBENCH_BIN_ALT names the other
        # build's runs alt-...): the numerator's lines and the denominator's, each by its regex
        import re
        import statistics
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-12-06-h100-setup-cadence-before-after"))
        log = folder.text("call-1/commands.log")
        mine, other = r"\n# until-\d-slower: exit 1, (\d+) ms", r"# alt-until-\d-slower: exit 1, (\d+) ms"
        new, old = ([float(x) for x in re.findall(p, log)] for p in (mine, other))
        self.assertTrue(new and old)
        self.assertNotEqual(statistics.median(new), statistics.median(old))
        expected = f"{statistics.median(new) / statistics.median(old):.2f}x"
        text = (f'<!-- figure median_ratio call-1/commands.log call-1/commands.log "{mine}" '
                f'denominator="{other}" -->edited<!-- /figure -->')
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        self.assertEqual(markers.differences(text, context)[0][2], expected)

    def test_a_wall_ratio_over_a_sum_of_commands(self):
        # wall_ratio's NAME+NAME side against the commands.log lines summed by hand
        import re
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-12-05-h100-setup-batches"))
        log = folder.text("call-1/sc/commands.log")

        def ms(name):
            return float(re.search(r"# %s: exit \d+, (\d+) ms" % re.escape(name), log).group(1))
        expected = f"{ms('until-1-slower') / (ms('until-1-same') + ms('until-2-same')):.2f}x"
        text = ('<!-- figure wall_ratio call-1/sc/commands.log until-1-slower until-1-same+until-2-same '
                '-->edited<!-- /figure -->')
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        self.assertEqual(markers.differences(text, context)[0][2], expected)
        self.assertNotEqual(expected, f"{ms('until-1-slower') / ms('until-1-same'):.2f}x")

    def test_most_samples_is_the_largest_side_count_of_the_run(self):
        # most_samples against the samples journal counted by hand
        import collections
        import json
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-12-05-h100-python-ab-speed-check"))
        run = "call-2/ps-new/runs/pytest-until-same-1"
        counts = collections.Counter()
        for line in folder.text(f"{run}/samples.jsonl").splitlines():
            j = json.loads(line) if line.startswith("{") else {}
            if "instance" in j and "value" in j:
                counts[(j["instance"], j.get("side", 0))] += 1
        text = f"<!-- figure most_samples {run} -->edited<!-- /figure -->"
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        self.assertEqual(markers.differences(text, context)[0][2], str(max(counts.values())))
        self.assertGreater(max(counts.values()), min(counts.values()))

    def test_an_instance_a_look_stopped_counts_the_samples_the_look_used(self):
        # A build of session 12 measured ab's separation look (9 per side) in the first look's call
        # (8): the instances that stopped SAME at 8 took 9 per side. Their verdicts are re-derived
        # from the 8 the look used, as ab printed them; most_samples still counts what was taken.
        from results.figures import comparison
        folder = os.path.join(REPO, "docs", "results", "2026-12-06-h100-python-ab-speed-three-builds")
        context = Context(Resolver(REPO), os.path.join(folder, "README.md"))
        run, c = comparison._ab(context, "call-2/alt/new/runs/until-same-r1")
        stops = run.look_stops()
        self.assertEqual(sorted(stops), sorted(c.ids))
        for i in c.ids:
            self.assertEqual(c.n[i], (stops[i], stops[i]))
            self.assertGreater(len(run.values(0)[i]), stops[i])
        text = "<!-- figure most_samples call-2/alt/new/runs/until-same-r1 -->edited<!-- /figure -->"
        self.assertEqual(markers.differences(text, context)[0][2], str(max(stops.values()) + 1))

    def test_a_batch_share_is_measuring_over_the_batch_release_to_its_last_measurement(self):
        # The `batch` figure against the journal's worker events, counted here: batch 2 of two
        # H200 runs of session 13, and over both runs their range.
        folder = ResultsFolder(os.path.join(REPO, "docs", "results", "2026-12-06-h200-setup-cadence-main"))
        context = Context(Resolver(REPO), os.path.join(folder.path, "README.md"))
        runs = ["call-3/sc/runs/until-1-slower", "call-3/sc/runs/until-1-same"]
        shares = []
        for run in runs:
            events = [json.loads(line) for line in folder.text(f"{run}/samples.jsonl").splitlines() if line]
            ws = [e for e in events if e.get("type") == "worker" and e.get("batch") == 2]
            measuring = sum(w["measure_end_ns"] - w["measure_begin_ns"] for w in ws)
            shares.append(measuring / (max(w["measure_end_ns"] for w in ws) - min(w["released_ns"] for w in ws)))
            text = f"<!-- figure batch 2 share {run} -->edited<!-- /figure -->"
            self.assertEqual(markers.differences(text, context)[0][2], f"{shares[-1] * 100:.1f}%")
        text = f"<!-- figure batch 2 share {' '.join(runs)} -->edited<!-- /figure -->"
        low, high = sorted(shares)
        self.assertEqual(markers.differences(text, context)[0][2], f"{low * 100:.1f}-{high * 100:.1f}%")

    def test_a_simulation_count_edited_in_its_table(self):
        # the simulation's tables are re-derived from the program's hits/trials, not copied
        folder = os.path.join(REPO, "docs", "results", "verdict-simulation")
        text = "<!-- figures simulation_aa sections234-stdout.md -->\n| edited |\n<!-- /figures -->\n"
        context = Context(Resolver(REPO), os.path.join(folder, "README.md"))
        derived = markers.differences(text, context)[0][2]
        self.assertIn("| lognormal 1% | 8 | 15/20000 = 0.075% [0.045, 0.124] |", derived)
        holds = "<!-- figure simulation_aa_holds sections234-stdout.md alpha=0.0001 -->54 of 54<!-- /figure -->"
        self.assertNotEqual(markers.differences(holds, context)[0][2], "54 of 54")

class Archive(unittest.TestCase):
    def test_pack_is_reproducible_and_verify_finds_what_is_missing(self):
        with tempfile.TemporaryDirectory() as tmp:
            files = {"session/run/samples.jsonl": b'{"type":"sample"}\n', "session/run.out": b"ok\n"}
            archive.pack(tmp, files)
            first = open(os.path.join(tmp, archive.ARCHIVE), "rb").read()
            archive.pack(tmp, dict(reversed(list(files.items()))))
            self.assertEqual(open(os.path.join(tmp, archive.ARCHIVE), "rb").read(), first)
            with tarfile.open(fileobj=io.BytesIO(first), mode="r:xz") as t:
                self.assertEqual(sorted(t.getnames()), sorted(files))
                self.assertTrue(all(m.mtime == 0 and m.uid == 0 for m in t.getmembers()))
            folder = ResultsFolder(tmp)
            self.assertEqual(folder.text("session/run.out"), "ok\n")
            self.assertEqual(folder.where("session/run"), "archived")
            lines, ok = archive.verify(folder, files)
            self.assertTrue(ok, lines)
            lines, ok = archive.verify(ResultsFolder(tmp), {**files, "session/lost.err": b"", "session/run.out": b"no\n"})
            self.assertFalse(ok)
            self.assertIn("missing from raw.tar.xz: session/lost.err", lines)
            self.assertIn("changed in raw.tar.xz: session/run.out", lines)


    def test_packing_again_keeps_what_was_archived(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "session"))
            for rel, data in (("session/run.out", b"first\n"), ("session/old.log", b"old\n")):
                with open(os.path.join(tmp, rel), "wb") as f:
                    f.write(data)
            subprocess.run([sys.executable, os.path.join(REPO, "tools", "results"), "pack", tmp], cwd=REPO, check=True,
                           capture_output=True)
            os.remove(os.path.join(tmp, "session/old.log"))  # git rm'd once packed
            with open(os.path.join(tmp, "session/run.out"), "wb") as f:
                f.write(b"second\n")
            with open(os.path.join(tmp, "later.out"), "wb") as f:
                f.write(b"later\n")
            subprocess.run([sys.executable, os.path.join(REPO, "tools", "results"), "pack", tmp], cwd=REPO, check=True,
                           capture_output=True)
            self.assertEqual(ResultsFolder(tmp).members(), {"session/old.log": b"old\n", "session/run.out": b"second\n",
                                                            "later.out": b"later\n"})


class Statistics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(REPO, "tests", "data", "scipy", "reference.json")) as f:
            cls.reference = json.load(f)

    def test_brunner_munzel_p_equals_scipys(self):
        compared = 0
        for case in self.reference["two_sample"]:
            expected = case["brunnermunzel"]["t"]["two-sided"]["pvalue"]
            if expected is None or len(case["x"]) < 2 or len(case["y"]) < 2:
                continue  # scipy's NaN: separation and ties, below
            got = BrunnerMunzel(case["x"], case["y"]).p
            self.assertLessEqual(abs(got - expected), 1e-9 * expected, (case["kind"], got, expected))
            compared += 1
        self.assertGreater(compared, 150)

    def test_brunner_munzel_where_scipy_has_no_answer(self):
        self.assertEqual(BrunnerMunzel([1, 2, 3], [4, 5, 6]).p, 2 / math.comb(6, 3))
        self.assertEqual(BrunnerMunzel([1, 1, 1], [1, 1, 1]).p, 1.0)
        self.assertGreater(BrunnerMunzel([1, 2, 3], [4, 5, 6]).effect, 0.5)

    def test_holm_equals_the_reference(self):
        cases = self.reference["multiple_testing"]
        for case in cases:
            for got, expected in zip(holm(case["p"]), case["holm"]):
                self.assertAlmostEqual(got, expected, delta=1e-12)
        self.assertGreater(len(cases), 5)

    def test_mann_whitney_distribution_by_enumeration(self):
        import itertools
        n, m = 4, 5
        counts = [0] * (n * m + 1)
        for chosen in itertools.combinations(range(n + m), n):
            counts[sum(c - k for k, c in enumerate(chosen))] += 1  # values of the other sample below each
        total, running = math.comb(n + m, n), 0
        for u, cdf in enumerate(_mann_whitney_cdf(n, m)):
            running += counts[u]
            self.assertAlmostEqual(cdf, running / total, delta=1e-15)

    def test_hodges_lehmann_ratio(self):
        base = [1.0, 1.1, 0.9, 1.05, 0.95, 1.02]
        h = HodgesLehmann(base, [v * 1.2 for v in base])
        self.assertAlmostEqual(h.ratio, 1.2, delta=1e-12)
        self.assertLess(h.lo, 1.2)
        self.assertGreater(h.hi, 1.2)
        self.assertEqual((HodgesLehmann([1, 2], [3, 4]).lo, HodgesLehmann([1, 2], [3, 4]).hi), (0.0, math.inf))

    def test_wilson_equals_the_intervals_calibrate_wrote(self):
        # calibration.json's intervals come from stats/wilson_interval.cpp (boost::math's normal
        # quantile); these from the standard library's.
        calibration = json.loads(ResultsFolder(H200).read("session-b/calibrate/calibration.json"))
        cells = [c for m in calibration["modes"] for c in m["fpr"]]
        for c in cells:
            lo, hi = wilson(c["hits"], c["trials"])
            self.assertAlmostEqual(lo, c["ci95"][0], delta=1e-12)
            self.assertAlmostEqual(hi, c["ci95"][1], delta=1e-12)
        self.assertEqual(len(cells), 15)
        self.assertEqual(wilson(0, 252)[0], 0.0)

if __name__ == "__main__":
    unittest.main(verbosity=2)
