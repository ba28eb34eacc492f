"""bench/gpu/batch_cadence.py on a journal written here: two batches, the second's set-up beside
two contexts of which one belongs to a worker dropped later, so it waits for them once set up."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import batch_cadence  # noqa: E402

MS = 1_000_000


def worker(serial, batch, spawned, context, ready, released, prepared, permit, end):
    return {"type": "worker", "what": "measure", "serial": serial, "batch": batch, "spawned_ns": spawned * MS,
            "context_begin_ns": context * MS, "device_ready_ns": ready * MS, "released_ns": released * MS,
            "prepared_ns": prepared * MS, "measure_permit_ns": permit * MS, "measure_begin_ns": permit * MS,
            "measure_end_ns": end * MS}


class BatchCadence(unittest.TestCase):
    def events(self):
        return [
            worker(1, 1, 0, 10, 200, 400, 900, 900, 950),
            worker(2, 1, 5, 10, 380, 400, 850, 950, 1000),
            # Batch 2's contexts beside batch 1's set-up; worker 4's beside batch 2's and later.
            worker(3, 2, 10, 400, 700, 1000, 1500, 1700, 1750),
            {"type": "worker_dropped", "serial": 4, "spawned_ns": 20 * MS, "context_begin_ns": 1100 * MS,
             "device_ready_ns": 1700 * MS, "dropped_ns": 1750 * MS},
            {"type": "worker_exit", "serial": 4, "exited_ns": 1900 * MS},
            {"type": "worker_exit", "serial": 3, "exited_ns": 1950 * MS},
        ]

    def test_batches(self):
        rows, drops, end = batch_cadence.cadence(self.events())
        self.assertEqual([r["batch"] for r in rows], [1, 2])
        first, second = rows
        self.assertEqual((first["contexts"], first["dropped_contexts"]), (1, 0))  # worker 3's
        self.assertAlmostEqual(first["waited"], 0)
        self.assertEqual((second["contexts"], second["dropped_contexts"]), (1, 1))  # worker 4's
        self.assertAlmostEqual(second["contexts_done"], 1700)
        self.assertAlmostEqual(second["waited"], 200)
        self.assertAlmostEqual(second["measured"], 1750)
        # Batch 1: set up 400 -> 900, measured 50 + 50 ms of its 600 ms from release to 1000.
        self.assertAlmostEqual(first["setup"], 500)
        self.assertAlmostEqual(first["measuring"], 100)
        self.assertAlmostEqual(first["share"], 100 / 600)
        self.assertAlmostEqual(second["share"], 50 / 750)
        self.assertEqual([d["serial"] for d in drops], [4])
        self.assertAlmostEqual(drops[0]["context"], 600)
        self.assertAlmostEqual(end, 1950)

    def test_run_without_batches(self):
        events = [e for e in self.events() if e.get("type") != "worker"]
        events.append({"type": "worker", "what": "measure", "serial": 1, "spawned_ns": 0})
        rows, _, _ = batch_cadence.cadence(events)
        self.assertEqual(rows, [])


if __name__ == "__main__":
    unittest.main()
