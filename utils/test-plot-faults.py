#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of plot-faults.py on small synthetic results databases: each job's slowdown,
recovery, delay and extra retransmission against values computed by hand from the
inputs, the table and the plot it writes, and its refusals (no faults runs, a faulted
run without its fault-free one, a name it cannot read).
"""

import importlib.util
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "plot-faults.py"

spec = importlib.util.spec_from_file_location("plot_faults", SCRIPT)
plot_faults = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_faults)

SCHEMA = """
CREATE TABLE runs (run_id INTEGER PRIMARY KEY, example TEXT NOT NULL, scheduler TEXT NOT NULL,
    seed INTEGER NOT NULL, params_json TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE jobs (run_id INTEGER, job_id INTEGER, start_ns INTEGER, end_ns INTEGER);
CREATE TABLE iterations (run_id INTEGER, job_id INTEGER, iter INTEGER, comm_end_ns INTEGER);
CREATE TABLE flows (run_id INTEGER, flow_id INTEGER, job_id INTEGER,
    retransmitted_bytes INTEGER);
CREATE TABLE faults (run_id INTEGER, fault_id INTEGER, time_ns INTEGER, event TEXT,
    target TEXT, target_id INTEGER, links INTEGER);
"""

MS = 1000000


def add_run(conn, run_id, example, policy, jobs, resent, fault_ms=None):
    """jobs: {job: [iteration end ms...]} from a start at 0; resent: {job: bytes}."""
    conn.execute("INSERT INTO runs VALUES (?, ?, ?, 1, '{}', 'complete')",
                 (run_id, example, policy))
    for job, ends in jobs.items():
        conn.execute("INSERT INTO jobs VALUES (?, ?, 0, ?)", (run_id, job, ends[-1] * MS))
        for k, e in enumerate(ends):
            conn.execute("INSERT INTO iterations VALUES (?, ?, ?, ?)", (run_id, job, k, e * MS))
        conn.execute("INSERT INTO flows VALUES (?, ?, ?, ?)",
                     (run_id, job, job, resent.get(job, 0)))
    if fault_ms is not None:
        conn.execute("INSERT INTO faults VALUES (?, 0, ?, 'down', 'link', 40, 1)",
                     (run_id, fault_ms * MS))


def database(path, with_baseline=True, extra=None):
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    if with_baseline:
        # Job 0: iterations of 10 ms; job 1: 20 ms. Both resend 100 bytes without a fault.
        add_run(conn, 1, "faults/none/detect-100us/adaptive", "fair",
                {0: [10, 20, 30, 40], 1: [20, 40]}, {0: 100, 1: 100})
    # The fault at 21 ms hits job 0's third iteration (13 ms, 1.3 x), its fourth is back
    # to 10 ms; job 1 does not notice. Job 0 resends 600 bytes, 500 more than without it.
    add_run(conn, 2, "faults/link-flap-5ms/detect-100us/adaptive", "fair",
            {0: [10, 20, 33, 43], 1: [20, 40]}, {0: 600, 1: 100}, fault_ms=21)
    # Under a longer detection delay job 0 needs two slow iterations (15 and 12 ms).
    add_run(conn, 3, "faults/link-flap-5ms/detect-10ms/adaptive", "fair",
            {0: [10, 20, 35, 47, 57], 1: [20, 40]}, {0: 2100, 1: 100}, fault_ms=21)
    if extra:
        extra(conn)
    conn.commit()
    conn.close()


class PlotFaultsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "f.db"

    def tearDown(self):
        self.dir.cleanup()

    def effects(self):
        db = plot_faults.ResultsDb(str(self.path))
        return plot_faults.effects(db, plot_faults.load_runs(db))

    def test_each_measure_against_the_hand_computed_values(self):
        database(self.path)
        r = self.effects()
        hit = r[("link-flap-5ms", "100us", "adaptive", "fair")]
        self.assertAlmostEqual(hit[0]["slowdown"], 13 / 10)
        self.assertEqual(hit[0]["recovery_ns"], (33 - 21) * MS)
        self.assertEqual(hit[0]["delay_ns"], (43 - 40) * MS)
        self.assertEqual(hit[0]["retransmitted"], 500)
        self.assertEqual(hit[1], {"slowdown": 1.0, "recovery_ns": 0, "delay_ns": 0,
                                  "retransmitted": 0, "finished": True})
        late = r[("link-flap-5ms", "10ms", "adaptive", "fair")]
        self.assertAlmostEqual(late[0]["slowdown"], 15 / 10)
        self.assertEqual(late[0]["recovery_ns"], (47 - 21) * MS, "the last slow iteration")
        self.assertEqual(late[0]["retransmitted"], 2000)
        s = plot_faults.summary(late)
        self.assertEqual(s["affected"], 1)
        self.assertEqual(s["mean_delay_ns"], (17 + 0) / 2 * MS)

    def test_writes_the_table_and_the_plot(self):
        database(self.path)
        out = Path(self.dir.name) / "out"
        done = subprocess.run([sys.executable, str(SCRIPT), str(self.path), "--out", str(out)],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        table = (out / "faults.md").read_text()
        self.assertIn("| link-flap-5ms | fair | 1 | 1.30 | 12.000 | 1.500 | 0.00 |", table)
        self.assertIn("| link-flap-5ms | adaptive | 10ms | 1.50 | 26.000 | 8.500 | 0.00 | 0 |",
                      table)
        self.assertGreater((out / "faults.png").stat().st_size, 1000)

    def refused(self):
        done = subprocess.run([sys.executable, str(SCRIPT), str(self.path), "--out",
                               str(Path(self.dir.name) / "out")], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertFalse((Path(self.dir.name) / "out" / "faults.md").exists())
        return done.stderr

    def test_refuses_a_faulted_run_without_its_fault_free_one(self):
        database(self.path, with_baseline=False)
        self.assertIn("has no fault-free run faults/none/detect-100us/adaptive", self.refused())

    def test_refuses_a_name_it_cannot_read(self):
        database(self.path, extra=lambda c: add_run(c, 9, "faults/oops", "fair", {0: [1]}, {}))
        self.assertIn("'faults/oops' is not faults/FAULT/detect-DELAY/RETRANSMISSION",
                      self.refused())

    def test_refuses_a_database_without_studies(self):
        conn = sqlite3.connect(self.path)
        conn.executescript(SCHEMA)
        conn.close()
        self.assertIn("no complete faults/... run", self.refused())


    def test_out_that_is_or_holds_the_database_is_refused_and_the_database_kept(self):
        database(self.path)
        before = self.path.read_bytes()
        out = Path(self.dir.name) / "out"
        out.mkdir()
        (out / "faults.png").symlink_to(self.path)  # where the plot would go
        file = Path(self.dir.name) / "file"
        file.write_text("")
        for target, message in (
                (self.path, f"--out {self.path} is the input database {self.path}"),
                (out, f"--out {out} would write {out / 'faults.png'}, which is the input "
                      f"database {self.path}"),
                (file, f"--out {file}: exists and is not a directory")):
            with self.subTest(out=str(target)):
                done = subprocess.run([sys.executable, str(SCRIPT), str(self.path), "--out",
                                       str(target)], capture_output=True, text=True)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertEqual(done.stderr, f"plot-faults.py: {message}\n")
                self.assertEqual(self.path.read_bytes(), before)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["faults.png"])
        self.assertEqual(file.read_text(), "")

if __name__ == "__main__":
    unittest.main()
