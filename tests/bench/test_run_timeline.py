"""bench/run_timeline.py on run directories written here: the milestones and parts of a run with its
own start recorded, one placed by a commands log whose end is to the second, and bad input."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import run_timeline  # noqa: E402

# The monotonic clock of the journal is the UTC clock less this many seconds.
OFFSET = 1796461000.0


def stamp(seconds):
    """The UTC time of `seconds` after OFFSET as the run's files write it."""
    import datetime
    t = datetime.datetime.fromtimestamp(OFFSET + seconds, tz=datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % round(t.microsecond / 1000)


def ns(seconds):
    return int(round(seconds * 1e9))


def write_run(folder, process_started=True, verdicts=True):
    """A run of one calibration worker and two measuring workers with a look between them; t=0 at
    OFFSET + 10 s (the journal's monotonic zero is OFFSET)."""
    os.makedirs(folder)
    t0 = 10.0
    log = [(t0 + 2.0, "zygote-spawned", "side 0"), (t0 + 2.5, "zygote-ready", "side 0"),
           (t0 + 2.52, "run-start", "new run"), (t0 + 3.3, "calibrated", "f[n=1]: inner 10"),
           (t0 + 4.1, "look", "look 1 at 8 per side: 0 instances stopped"),
           (t0 + 6.5, "look", "look 2 at 9 per side: 1 instances stopped"), (t0 + 6.8, "run-end", "complete")]
    if verdicts:
        log.append((t0 + 6.9, "verdicts", "compared in 0.010 s"))
    with open(os.path.join(folder, "log.txt"), "w") as f:
        for t, tag, text in log:
            f.write(f"{stamp(t)} [{tag}] {text}\n")
    workers = [
        {"type": "worker", "serial": 0, "what": "calibration", "spawned_ns": ns(t0 + 2.53),
         "device_ready_ns": ns(t0 + 2.8), "measure_begin_ns": ns(t0 + 3.0), "measure_end_ns": ns(t0 + 3.2)},
        {"type": "worker", "serial": 1, "what": "measure", "spawned_ns": ns(t0 + 3.3),
         "measure_begin_ns": ns(t0 + 4.0), "measure_end_ns": ns(t0 + 4.1)},
        {"type": "worker", "serial": 2, "what": "measure", "spawned_ns": ns(t0 + 5.1),
         "measure_begin_ns": ns(t0 + 6.0), "measure_end_ns": ns(t0 + 6.2)},
        {"type": "worker_exit", "serial": 0, "exited_ns": ns(t0 + 3.5)},
        {"type": "worker_exit", "serial": 2, "exited_ns": ns(t0 + 6.6)},
    ]
    # Each sample journaled 0.4 ms after its end (one 2 ms late): the offset is the smallest gap.
    samples = [{"type": "sample", "worker_serial": 1, "begin_ns": ns(t0 + 4.0), "end_ns": ns(t0 + 4.05),
                "time": OFFSET + t0 + 4.0504},
               {"type": "sample", "worker_serial": 2, "begin_ns": ns(t0 + 6.0), "end_ns": ns(t0 + 6.1),
                "time": OFFSET + t0 + 6.102}]
    with open(os.path.join(folder, "samples.jsonl"), "w") as f:
        for e in workers + samples:
            f.write(json.dumps(e) + "\n")
    info = {"started": stamp(t0 + 2.51)}
    if process_started:
        info["process_started"] = stamp(t0)
    with open(os.path.join(folder, "run.json"), "w") as f:
        json.dump(info, f)


class RunTimelineTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_recorded_start(self):
        run = os.path.join(self.root, "until-1-slower")
        write_run(run)
        row = run_timeline.timeline(run)
        self.assertTrue(row["t0_exact"])
        m = row["milestones"]
        self.assertEqual(m["zygotes ready"], 2500.0)
        self.assertEqual(m["run start"], 2520.0)
        # The journal's times put on the log's clock within the 0.4 ms the samples lagged.
        self.assertAlmostEqual(m["calibration spawned"], 2530.0, delta=1)
        self.assertAlmostEqual(m["first spawn"], 3300.0, delta=1)
        self.assertAlmostEqual(m["first sample"], 4000.0, delta=1)
        self.assertAlmostEqual(m["last sample"], 6200.0, delta=1)
        self.assertAlmostEqual(m["last exit"], 6600.0, delta=1)
        self.assertEqual(m["look 1"], 4100.0)  # logged as the last sample before it ended
        self.assertEqual(m["verdicts"], 6900.0)
        p = row["parts"]
        self.assertEqual(p["before the run"], 2520.0)
        self.assertAlmostEqual(p["calibration"], 780.0, delta=1)
        self.assertEqual(m["calibrated"], 3300.0)
        self.assertAlmostEqual(p["first ramp"], 700.0, delta=1)
        self.assertAlmostEqual(p["measuring span"], 2200.0, delta=1)
        self.assertAlmostEqual(p["timed in span"], 300.0, delta=1)
        self.assertEqual(p["look gaps"], [1900.0])  # the last sample before look 1 to the first after it
        self.assertEqual(p["workers"], 2)
        self.assertNotIn("end", p)  # no exit without a commands log
        self.assertEqual(list(m), sorted(m, key=m.get))  # in the order they happened

    def test_commands_log_to_the_second(self):
        run = os.path.join(self.root, "until-1-same")
        write_run(run, process_started=False, verdicts=False)
        # Ended within second 17 after OFFSET (the last log line is at 16.8): the exit is placed at
        # 17.0 and the 7.2 s of wall time put t=0 at 9.8, 200 ms before the true start.
        log = os.path.join(self.root, "commands.log")
        with open(log, "w") as f:
            f.write("$ orchestrate ab ...\n# until-1-same: exit 0, 7200 ms, ended %sZ\n" % stamp(17.0)[:19])
            f.write("# other: exit 1, 10 ms, ended %s\n" % stamp(30.0))
        commands = run_timeline.read_commands(log)
        self.assertEqual(commands["other"][2], True)
        row = run_timeline.timeline(run, commands)
        self.assertFalse(row["t0_exact"])
        self.assertAlmostEqual(row["milestones"]["exit"], 7200.0, delta=1)
        self.assertAlmostEqual(row["parts"]["before the run"], 2720.0, delta=1)
        self.assertAlmostEqual(row["parts"]["end"], 7200.0 - 6400.0, delta=1)
        self.assertEqual(row["parts"]["total"], 7200.0)
        text = "\n".join(run_timeline.render(row))
        self.assertIn("before the run ~2720 ms", text)

    def test_end_to_the_millisecond(self):
        run = os.path.join(self.root, "r")
        write_run(run, process_started=False)
        log = os.path.join(self.root, "commands.log")
        with open(log, "w") as f:
            f.write("# r: exit 1, 7000 ms, ended %s\n" % stamp(17.05))
        row = run_timeline.timeline(run, run_timeline.read_commands(log))
        self.assertTrue(row["t0_exact"])
        self.assertAlmostEqual(row["parts"]["before the run"], 2470.0, delta=1)  # t=0 at 10.05
        self.assertAlmostEqual(row["parts"]["end"], 850.0, delta=1)

    def test_bad_input(self):
        empty = os.path.join(self.root, "empty")
        write_run(empty)
        with open(os.path.join(empty, "samples.jsonl"), "w") as f:
            f.write(json.dumps({"type": "worker", "serial": 0, "what": "calibration"}) + "\n")
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            self.assertEqual(run_timeline.main([empty]), 2)
            self.assertEqual(run_timeline.main([os.path.join(self.root, "missing")]), 2)
            self.assertEqual(run_timeline.main([]), 2)
            self.assertEqual(run_timeline.main([empty, "--json"]), 2)
        self.assertIn("no sample with its times", err.getvalue())

    def test_main_writes_json(self):
        run = os.path.join(self.root, "r")
        write_run(run)
        out = os.path.join(self.root, "t.json")
        with redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(run_timeline.main([run, "--json", out]), 0)
        self.assertIn("| first sample |", printed.getvalue())
        with open(out) as f:
            self.assertEqual(json.load(f)[0]["parts"]["workers"], 2)


if __name__ == "__main__":
    unittest.main()
