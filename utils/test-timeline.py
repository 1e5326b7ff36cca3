#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of timeline.py on small synthetic results databases.

Each test writes a database with the results schema in a temporary directory, runs the
script (as a subprocess, or through its API) and checks the trace against the rows
inserted here: the expectations below are worked out by hand from those rows, not taken
from anything the script wrote before.

    /usr/bin/python3 utils/test-timeline.py [path/to/multi-tenant-fat-tree]

With the example's binary (the argument, else build-release/ or build/), a real run
is checked too: every collective row appears in the timeline once, to the nanosecond,
every op span once, and the port monitors' queues as counters.
"""

import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "timeline.py"
REPO = SCRIPT.parent.parent
EXAMPLE = "multi-tenant-fat-tree"


def find_binary(argv):
    """The example's binary: the first argument, else the build directories'."""
    for candidate in argv[1:2]:
        if candidate and not candidate.startswith("-"):
            return Path(candidate).resolve()
    for build in ("build-release", "build"):
        if (REPO / build / EXAMPLE).is_file():
            return REPO / build / EXAMPLE
    return None


BINARY = find_binary(sys.argv)
sys.path.insert(0, str(SCRIPT.parent))
import results_test_schema  # noqa: E402  (after the path it is found on)
from results_test_schema import side_files, to_wal, wal_mode  # noqa: E402
import cli_paths  # noqa: E402
import timeline  # noqa: E402

SCHEMA = results_test_schema.BASE + results_test_schema.SCHEDULING

NEW_TABLES = results_test_schema.MONITORS

RUN = 1
SIM_END = 1_500_000_000_000  # 1500 s: times above 1e12 ns must stay exact
LINK_INTERVAL = 1000
PORT_INTERVAL = 500
PARAMS = {"sample_interval_ns": LINK_INTERVAL, "monitorIntervalNs": PORT_INTERVAL}

JOBS = [(0, "llama-7b", 8), (1, "gpt2-124m", 4)]

# (job, iteration, ready, start, finish, route, planned start, planned finish, planned
# route, estimate)
COLLECTIVES = [
    (0, 0, 1000, 1500, 1234567891, 0, 1400, 1300000000, 0, 1200000000),
    (0, 1, 1000000000123, 1000000000500, 1000123456789, 1, 1000000000400, 1000100000000, 1,
     99000000000),
    (0, 2, 1200000000001, None, None, None, 1200000000100, 1200000100000, 0, 90000),
    (1, 0, 2000, 2001, 999999999, None, None, None, None, None),
    (1, 1, 1100000000000, 1100000000007, 1100000000999, 2, None, None, None, None),
    (1, 2, 1300000000000, 1300000000010, None, 2, None, None, None, None),
]

# (t, job, open), in the order written; job 0 starts closed, closes twice in a row once,
# and is still closed at the end.
GATES = [(0, 0, 0), (0, 1, 1), (1500, 0, 1), (1300000000, 0, 0), (1350000000, 0, 0),
         (1000000000500, 0, 1), (1400000000000, 0, 0)]
# Worked out by hand from GATES: [closed, opened] per job (job 1's never closed).
GATE_CLOSED = {0: [(0, 1500), (1300000000, 1000000000500), (1400000000000, SIM_END)]}

# (job, iter, compute start, comm ready, comm start, comm end)
ITERATIONS = [
    (0, 0, 0, 1000, 1500, 1234567891),
    (0, 1, 1000000000000, 1000000000123, 1000000000500, 1000123456789),
    (1, 0, 0, 2000, 2001, 999999999),
    (1, 1, 1099999999000, 1100000000000, 1100000000007, 1100000000999),
]
# (job, iter, end, compute, overlapped, dp, tp, pp, ep, other, gate wait, bubble): each
# sums to end - compute start.
ITERATION_TIMES = [
    (0, 0, 1234567900, 1000.0, 0.0, 1234566000.0, 0.0, 0.0, 0.0, 0.0, 500.0, 400.0),
    (1, 1, 1100000001000, 1000.0, 10.0, 992.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.0),
]
# An iteration's slice by hand: end_ns if timed, else the next start, else the comm end.
ITERATION_SLICES = {(0, 0): (0, 1234567900), (0, 1): (1000000000000, 1000123456789),
                    (1, 0): (0, 1099999999000), (1, 1): (1099999999000, 1100000001000)}

# (t, kind, job, detail_json, wall_us)
DECISIONS = [
    (0, "job-arrived", 0, '{"workers": 8}', 10.5),
    (0, "job-arrived", 1, '{"workers": 4}', 11.0),
    (1400, "plan-ready", None, '{"planned_start_slots": {"0": [1]}, "slot_ns": 1000}', 200.25),
    (1000000000400, "planned-start", 0, '{"slot": 7}', 1.5),
    (1100000000000, "collective-ready", 1, "{}", 0.5),
    (1200000000000, "epoch", None, '{"epoch": 3}', 2.0),
    (1300000000000, "job-done", 1, "{}", 0.25),
]

# (link, node a, node b): 8 Gb/s, so 1000 bytes in an interval of 1000 ns is 100 %.
LINKS = [(0, 10, 20), (1, 11, 21)]
RATE_BPS = 8_000_000_000
# (link, direction, job, t, bytes in the interval ending at t)
LINK_SAMPLES = [(0, 0, 0, 2000, 500), (0, 0, 1, 2000, 250), (0, 0, 0, 3000, 1000),
                (0, 0, 0, 6000, 80), (0, 1, 0, 1000000001000, 100), (1, 0, 0, 2000, 0)]
# By hand: an interval's value from its start, 0 after a gap and after the last; link 1
# carried nothing and has no track.
LINK_COUNTERS = {
    "link 0 10->20": [(1000, 0.75), (2000, 1.0), (3000, 0), (5000, 0.08), (6000, 0)],
    "link 0 20->10": [(1000000000000, 0.1), (1000000001000, 0)],
}

# (node, port, link, t, class, queue bytes, paused ns, ECN marks)
PORT_SAMPLES = [(30, 1, 0, 1000, 0, 100, 0, 0), (30, 1, 0, 1000, 3, 50, 0, 0),
                (30, 1, 0, 1500, 0, 20, 0, 0), (30, 2, 1, 1000, 0, 0, 5, 0)]
# By hand: classes summed; the sample after the last row is absent, so 0.
QUEUE_COUNTERS = {"queue node 30 port 1": [(1000, 150), (1500, 20), (2000, 0)]}

# (job, iteration, op, kind, name, grp, algorithm, bytes, ranks, planned, ready, start, end)
OP_SPANS = [
    (0, 0, 0, "compute", "forward", "none", None, 0, "0-7", 0, 0, 0, 1000),
    (0, 0, 1, "collective", "", "dp", "ring-all-reduce", 4096, "0-7", 1, 1000, 1500,
     1234567891),
    (0, 0, 2, "compute", "backward", "none", None, 0, "0-7", 0, 1000, 1000, 1000000),
    (0, 0, 3, "transfer", "", "pp", None, 1024, "3,7", 0, 2000, 2000, 3000),
    (1, 0, 0, "collective", "", "tp", "ring-all-reduce", 512, "0-3", 0, 2000, 2001,
     999999999),
]
# By hand: the label of each op, and the waits (ready < start) with their candidates (the
# dp all-reduce is planned and job 0's gate was closed until 1500).
OP_NAMES = {(0, 0): "forward", (0, 1): "dp ring-all-reduce", (0, 2): "backward",
            (0, 3): "pp transfer", (1, 0): "tp ring-all-reduce"}
WAITS = {(0, 1): (1000, 1500, ["stream", "gate"]), (1, 0): (2000, 2001, ["stream"])}


def make_db(path, new_tables=True, runs=1):
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA + (NEW_TABLES if new_tables else ""))
    for _ in range(runs):
        conn.execute("INSERT INTO runs (example, scheduler, seed, params_json, status,"
                     " started_at, sim_end_ns) VALUES ('synthetic', 'harmonics', 1, ?,"
                     " 'complete', '2026-01-01T00:00:00Z', ?)", (json.dumps(PARAMS), SIM_END))
    for job, model, workers in JOBS:
        conn.execute("INSERT INTO jobs (run_id, job_id, model, workers) VALUES (?, ?, ?, ?)",
                     (RUN, job, model, workers))
    inserts = [("iterations", ITERATIONS), ("iteration_times", ITERATION_TIMES),
               ("collectives", COLLECTIVES)]
    if new_tables:
        inserts += [("op_spans", OP_SPANS), ("port_samples", PORT_SAMPLES)]
    for table, rows in inserts:
        for row in rows:
            marks = ", ".join("?" * (len(row) + 1))
            conn.execute(f"INSERT INTO {table} VALUES ({marks})", (RUN, *row))
    for t, job, is_open in GATES:
        conn.execute("INSERT INTO gates VALUES (?, ?, ?, ?)", (RUN, t, job, is_open))
    for t, kind, job, detail, wall in DECISIONS:
        conn.execute("INSERT INTO scheduler_decisions VALUES (?, ?, 'harmonics', ?, ?, ?, ?)",
                     (RUN, t, kind, job, detail, wall))
    for link, a, b in LINKS:
        conn.execute("INSERT INTO links VALUES (?, ?, ?, ?, ?, 1000, 0, 0, 0, 0, 0, 0)",
                     (RUN, link, a, b, RATE_BPS))
    for row in LINK_SAMPLES:
        conn.execute("INSERT INTO link_samples VALUES (?, ?, ?, ?, ?, ?)", (RUN, *row))
    conn.commit()
    conn.close()


def ns(value):
    """A trace time (us) back in ns."""
    return round(value * 1000)


def overlaps(start, end, t_from, t_to):
    return (t_from is None or end >= t_from) and (t_to is None or start <= t_to)


class Trace:
    """A parsed trace, indexed by process and thread names."""

    def __init__(self, data):
        self.data = data
        self.events = data["traceEvents"]
        self.processes = {e["pid"]: e["args"]["name"] for e in self.events
                          if e["ph"] == "M" and e["name"] == "process_name"}
        self.threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in self.events
                        if e["ph"] == "M" and e["name"] == "thread_name"}

    def pid(self, prefix):
        pids = [p for p, name in self.processes.items() if name.startswith(prefix)]
        return pids[0] if len(pids) == 1 else None

    def job_pid(self, job):
        return self.pid(f"job {job}:")

    def thread(self, pid, name):
        """The events of the thread so named (not its metadata)."""
        return [e for e in self.events if e["pid"] == pid and e["ph"] != "M"
                and self.threads.get((pid, e["tid"])) == name]

    def threads_named(self, pid, prefix):
        return [e for e in self.events if e["pid"] == pid and e["ph"] != "M"
                and self.threads.get((pid, e["tid"]), "").startswith(prefix)]

    def counters(self):
        tracks = {}
        for e in self.events:
            if e["ph"] == "C":
                (value,) = e["args"].values()
                tracks.setdefault(e["name"], []).append((ns(e["ts"]), value))
        return tracks


class TimelineTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = Path(self.dir.name)
        self.db = self.tmp / "results.db"
        make_db(self.db)

    def tearDown(self):
        self.dir.cleanup()

    def run_cli(self, *args, db=None, out="trace.json"):
        argv = [sys.executable, str(SCRIPT), str(db or self.db), "--out", str(self.tmp / out)]
        if not any(a == "--run" for a in args):
            argv += ["--run", str(RUN)]
        return subprocess.run(argv + list(args), capture_output=True, text=True, timeout=60)

    def trace(self, *args, db=None):
        result = self.run_cli(*args, db=db)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.tmp / "trace.json") as f:
            return Trace(json.load(f)), result

    def assert_refused(self, result, *words):
        """Exit 2, one line on stderr naming what is wrong, no file written."""
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        for word in words:
            self.assertIn(word, lines[0])
        self.assertEqual(result.stdout, "")
        self.assertEqual(list(self.tmp.glob("trace.json*")) + list(self.tmp.glob(".trace*")),
                         [])

    # ------------------------------------------------------------------------ the format

    def test_format(self):
        trace, result = self.trace()
        data = trace.data
        self.assertEqual(data["displayTimeUnit"], "ns")
        self.assertEqual(data["otherData"]["run_id"], RUN)
        self.assertEqual(data["otherData"]["params"], PARAMS)
        number = (int, float)
        for e in trace.events:
            with self.subTest(event=e):
                self.assertIsInstance(e["name"], str)
                self.assertIn(e["ph"], ("X", "i", "C", "M"))
                self.assertIsInstance(e["ts"], number)
                self.assertNotIsInstance(e["ts"], bool)
                self.assertIsInstance(e["pid"], int)
                self.assertIsInstance(e["tid"], int)
                if e["ph"] == "X":
                    self.assertIsInstance(e["dur"], number)
                    self.assertGreaterEqual(e["dur"], 0)
                if e["ph"] == "i":
                    self.assertEqual(e["s"], "t")
                if e["ph"] in ("C", "M"):
                    self.assertIsInstance(e["args"], dict)
                if "args" in e:
                    self.assertIsInstance(e["args"], dict)
        # Every process and thread that has events is named.
        for e in trace.events:
            if e["ph"] != "M":
                self.assertIn(e["pid"], trace.processes)
                self.assertIn((e["pid"], e["tid"]), trace.threads)
        # The slices of a thread nest (the format's rule): none overlaps another partly.
        by_thread = {}
        for e in trace.events:
            if e["ph"] == "X":
                by_thread.setdefault((e["pid"], e["tid"]), []).append(
                    (ns(e["ts"]), ns(e["ts"] + e["dur"])))
        for slices in by_thread.values():
            for a_start, a_end in slices:
                for b_start, b_end in slices:
                    partly = a_start < b_start < a_end < b_end
                    self.assertFalse(partly, (a_start, a_end, b_start, b_end))
        # Sorted by (pid, tid, ts).
        keys = [(e["pid"], e["tid"], e["ph"] != "M", e["ts"]) for e in trace.events]
        self.assertEqual(keys, sorted(keys))
        # The summary line: events, bytes, time range.
        size = (self.tmp / "trace.json").stat().st_size
        self.assertEqual(len(result.stdout.strip().splitlines()), 1)
        self.assertIn(f"{len(trace.events)} events, {size} bytes", result.stdout)
        self.assertIn(f"0 ns to {SIM_END} ns", result.stdout)

    def test_names(self):
        trace, _ = self.trace()
        self.assertEqual(trace.processes[trace.job_pid(0)], "job 0: llama-7b (8 GPUs)")
        self.assertEqual(trace.processes[trace.job_pid(1)], "job 1: gpt2-124m (4 GPUs)")
        self.assertIsNotNone(trace.pid("scheduler"))
        self.assertIsNotNone(trace.pid("fabric"))

    # ------------------------------------------------------------------------ jobs

    def test_collectives_exact(self):
        trace, _ = self.trace()
        for job, it, ready, start, finish, *_ in COLLECTIVES:
            with self.subTest(job=job, iteration=it):
                events = [e for e in trace.thread(trace.job_pid(job), "collectives")
                          if e["args"]["iteration"] == it]
                self.assertEqual(len(events), 1)
                (e,) = events
                if start is not None and finish is not None:
                    self.assertEqual(e["ph"], "X")
                    self.assertEqual(ns(e["ts"]), start)
                    self.assertEqual(ns(e["ts"] + e["dur"]), finish)
                    self.assertEqual(e["args"]["ready_ns"], ready)
                else:
                    self.assertEqual((e["ph"], e["name"]), ("i", "collective not finished"))
                    self.assertEqual(ns(e["ts"]), ready)

    def test_plan(self):
        trace, _ = self.trace()
        planned = [(ps, pf) for job, _, _, _, _, _, ps, pf, *_ in COLLECTIVES
                   if job == 0 and ps is not None]
        slots = [(ns(e["ts"]), ns(e["ts"] + e["dur"]))
                 for e in trace.thread(trace.job_pid(0), "plan")]
        self.assertEqual(sorted(slots), sorted(planned))
        self.assertEqual(len(planned), 3)
        # Job 1 never ran planned: no plan thread.
        self.assertNotIn("plan", [name for (pid, _), name in trace.threads.items()
                                  if pid == trace.job_pid(1)])

    def test_gates(self):
        trace, _ = self.trace()
        for job in (0, 1):
            closed = [(ns(e["ts"]), ns(e["ts"] + e["dur"]))
                      for e in trace.thread(trace.job_pid(job), "gate")]
            self.assertEqual(closed, GATE_CLOSED.get(job, []))

    def test_iterations(self):
        trace, _ = self.trace()
        for job in (0, 1):
            got = {(job, e["args"]["iteration"]): (ns(e["ts"]), ns(e["ts"] + e["dur"]))
                   for e in trace.thread(trace.job_pid(job), "iterations")}
            self.assertEqual(got, {k: v for k, v in ITERATION_SLICES.items() if k[0] == job})
        (first,) = [e for e in trace.thread(trace.job_pid(0), "iterations")
                    if e["args"]["iteration"] == 0]
        self.assertEqual(first["args"]["exposed_dp_ns"], 1234566000.0)
        self.assertEqual(first["args"]["gate_wait_ns"], 500.0)

    def test_op_spans(self):
        trace, _ = self.trace()
        for job, _, op, _, _, _, _, _, ranks, _, _, start, end in OP_SPANS:
            with self.subTest(job=job, op=op):
                events = [e for e in trace.threads_named(trace.job_pid(job), f"ranks {ranks}")
                          if e["name"] != "waiting" and e["args"]["op"] == op]
                self.assertEqual(len(events), 1)
                (e,) = events
                self.assertEqual(e["name"], OP_NAMES[(job, op)])
                self.assertEqual((ns(e["ts"]), ns(e["ts"] + e["dur"])), (start, end))
                waits = [w for w in trace.threads_named(trace.job_pid(job), f"ranks {ranks}")
                         if w["name"] == "waiting" and w["args"]["op"] == e["name"]]
                if (job, op) in WAITS:
                    w_start, w_end, why = WAITS[(job, op)]
                    self.assertEqual(len(waits), 1)
                    self.assertEqual((ns(waits[0]["ts"]), ns(waits[0]["ts"] + waits[0]["dur"])),
                                     (w_start, w_end))
                    self.assertEqual(waits[0]["args"]["candidates"], why)
                    self.assertEqual(waits[0]["tid"], e["tid"])
                else:
                    self.assertEqual(waits, [])
        names = sorted(name for (pid, _), name in trace.threads.items()
                       if pid == trace.job_pid(0) and name.startswith("ranks"))
        # The backward pass overlaps the all-reduce: a second lane of the same ranks.
        self.assertEqual(names, ["ranks 0-7 (dp)", "ranks 0-7 (dp) (2)", "ranks 3,7 (pp)"])

    # ------------------------------------------------------------------------ scheduler, fabric

    def test_decisions(self):
        trace, _ = self.trace()
        pid = trace.pid("scheduler")
        got = sorted((ns(e["ts"]), e["name"], trace.threads[(pid, e["tid"])], e["args"]["wall_us"])
                     for e in trace.events if e["pid"] == pid and e["ph"] != "M")
        expected = sorted(
            (t, kind if job is None else f"{kind} job {job}",
             "plans" if kind in ("plan-ready", "planned-start") else "decisions", wall)
            for t, kind, job, _, wall in DECISIONS)
        self.assertEqual(got, expected)
        (plan,) = [e for e in trace.events if e["pid"] == pid and e["name"] == "plan-ready"]
        self.assertEqual(plan["args"]["slot_ns"], 1000)
        self.assertEqual(plan["ph"], "i")

    def test_counters(self):
        trace, _ = self.trace()
        self.assertEqual(trace.counters(), {**LINK_COUNTERS, **QUEUE_COUNTERS})
        trace, _ = self.trace("--no-counters")
        self.assertEqual(trace.counters(), {})
        self.assertIsNone(trace.pid("fabric"))

    # ------------------------------------------------------------------------ selection

    def test_jobs(self):
        trace, _ = self.trace("--jobs", "1")
        self.assertIsNone(trace.job_pid(0))
        self.assertIsNotNone(trace.job_pid(1))
        pid = trace.pid("scheduler")
        got = sorted(e["name"] for e in trace.events if e["pid"] == pid and e["ph"] != "M")
        expected = sorted(kind if job is None else f"{kind} job {job}"
                          for _, kind, job, _, _ in DECISIONS if job in (None, 1))
        self.assertEqual(got, expected)
        self.assertEqual(trace.data["otherData"]["selection"]["jobs"], [1])

    def test_window(self):
        t_from, t_to = 1_000_000_000_000, 1_100_000_000_000
        trace, _ = self.trace("--from", "1000s", "--to", "1100000ms")
        for job in (0, 1):
            expected = sorted(it for j, it, ready, start, finish, *_ in COLLECTIVES
                              if j == job and (overlaps(start, finish, t_from, t_to)
                                               if finish is not None
                                               else overlaps(ready, ready, t_from, t_to)))
            pid = trace.job_pid(job)
            got = sorted(e["args"]["iteration"] for e in trace.thread(pid, "collectives"))
            self.assertEqual(got, expected)
            # By hand: job 0's iteration 1 is the one collective in the window.
            self.assertEqual(expected, [1] if job == 0 else [])
            gates = [(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in trace.thread(pid, "gate")]
            self.assertEqual(gates, [g for g in GATE_CLOSED.get(job, [])
                                     if overlaps(*g, t_from, t_to)])
        # Nothing wholly outside the window, slices that reach into it kept whole.
        for e in trace.events:
            if e["ph"] in ("X", "i"):
                start = ns(e["ts"])
                self.assertTrue(overlaps(start, start + ns(e.get("dur", 0)), t_from, t_to), e)
        pid = trace.pid("scheduler")
        self.assertEqual(sorted(ns(e["ts"]) for e in trace.events
                                if e["pid"] == pid and e["ph"] == "i"),
                         sorted(t for t, *_ in DECISIONS if t_from <= t <= t_to))

    def test_empty_selection(self):
        result = self.run_cli("--jobs", "1", "--from", "1400s", "--to", "1450s",
                              "--no-counters")
        self.assert_refused(result, "no event")
        self.assert_refused(self.run_cli("--from", "1600s"), "no event")

    def test_max_events(self):
        trace, _ = self.trace()
        count = len(trace.events)
        (self.tmp / "trace.json").unlink()
        result = self.run_cli("--max-events", str(count - 1))
        self.assert_refused(result, str(count), "--jobs")
        self.assertEqual(self.run_cli("--max-events", str(count)).returncode, 0)

    def test_without_new_tables(self):
        old = self.tmp / "old.db"
        make_db(old, new_tables=False)
        trace, result = self.trace(db=old)
        self.assertFalse(any(name.startswith("ranks") for name in trace.threads.values()))
        self.assertEqual(trace.counters(), LINK_COUNTERS)
        self.assertIn("op_spans", result.stdout)
        self.assertIn("port_samples", result.stdout)
        self.assertEqual(trace.data["otherData"]["missing"], ["op_spans", "port_samples"])
        self.assertEqual(len(trace.thread(trace.job_pid(0), "collectives")), 3)

    # ------------------------------------------------------------------------ bad inputs

    def test_bad_inputs(self):
        missing = self.tmp / "nowhere.db"
        self.assert_refused(self.run_cli(db=missing), str(missing), "no such file")
        foreign = self.tmp / "foreign.db"
        conn = sqlite3.connect(foreign)
        conn.execute("CREATE TABLE foo (x)")
        conn.close()
        self.assert_refused(self.run_cli(db=foreign), str(foreign), "not a results database")
        text = self.tmp / "text.db"
        text.write_text("not a database at all, " * 100)
        self.assert_refused(self.run_cli(db=text), str(text), "not an SQLite database")
        self.assert_refused(self.run_cli("--run", "9"), "no run 9")
        self.assert_refused(self.run_cli("--run", "x"), "--run")
        self.assert_refused(self.run_cli("--jobs", "7"), "no job 7")
        self.assert_refused(self.run_cli("--jobs", "0,x"), "--jobs")
        self.assert_refused(self.run_cli("--from", "5 parsecs"), "--from")
        self.assert_refused(self.run_cli("--to", "1.5ns"), "--to")
        self.assert_refused(self.run_cli("--from", "2s", "--to", "1s"), "--from")
        self.assert_refused(self.run_cli("--max-events", "0"), "--max-events")

    # ------------------------------------------------------------------------ API, bytes

    def test_deterministic(self):
        self.trace()
        first = (self.tmp / "trace.json").read_bytes()
        (self.tmp / "trace.json").unlink()
        self.trace()
        self.assertEqual((self.tmp / "trace.json").read_bytes(), first)

    def test_api(self):
        out = self.tmp / "api.json"
        summary = timeline.write_timeline(str(self.db), RUN, str(out), jobs=[0],
                                          t_from_ns=None, t_to_ns=None, counters=False)
        data = json.loads(out.read_text())
        self.assertEqual(summary["events"], len(data["traceEvents"]))
        self.assertEqual(summary["bytes"], out.stat().st_size)
        self.assertEqual((summary["from_ns"], summary["to_ns"]), (0, SIM_END))
        self.assertFalse(any(e["ph"] == "C" for e in data["traceEvents"]))
        conn = sqlite3.connect(self.db)
        trace = timeline.build_trace(conn, RUN, jobs=[1], t_from_ns=0, t_to_ns=2000)
        conn.close()
        names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
        self.assertEqual(names, {"job 1: gpt2-124m (4 GPUs)", "scheduler", "fabric"})
        with self.assertRaises(timeline.TimelineError):
            timeline.write_timeline(str(self.db), 5, str(out))

    def test_parse_time(self):
        cases = {"7": 7, "7ns": 7, "1.5ms": 1_500_000, "250us": 250_000, "3s": 3_000_000_000,
                 "1e3us": 1_000_000, "0.000000001s": 1}
        for text, expected in cases.items():
            self.assertEqual(timeline.parse_time(text), expected, text)
        for text in ("", "-5", "1.5", "5 parsecs", "ms", "0.1ns"):
            with self.assertRaises(timeline.TimelineError, msg=text):
                timeline.parse_time(text)

    def test_exact_microseconds(self):
        for value in (0, 1, 999, 1234567891, 1_000_123_456_789, SIM_END, 2**50 + 7):
            self.assertEqual(round(timeline.us(value) * 1000), value)


class FilesTest(unittest.TestCase):
    """What the script does to the files around it: never writes over the database (or a
    file SQLite keeps beside it), reads it without leaving anything, and refuses an
    output it cannot write before reading."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = Path(self.dir.name)
        self.db = self.tmp / "results.db"
        make_db(self.db)

    def tearDown(self):
        self.dir.cleanup()

    def run_cli(self, db, out, *args):
        return subprocess.run([sys.executable, str(SCRIPT), str(db), "--run", str(RUN),
                               "--out", str(out), *args],
                              capture_output=True, text=True, timeout=120)

    def assert_refused(self, result, *words):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        for word in words:
            self.assertIn(word, result.stderr)
        self.assertEqual(result.stdout, "")

    def test_out_that_is_the_database_is_refused_and_the_database_kept(self):
        before = self.db.read_bytes()
        (self.tmp / "sub").mkdir()
        symlink, hardlink = self.tmp / "link.json", self.tmp / "hard.json"
        symlink.symlink_to(self.db)
        os.link(self.db, hardlink)
        via_link = self.tmp / "via-link.db"
        via_link.symlink_to(self.db)
        cases = [(self.db, self.db, "the input database"),
                 (self.db, self.tmp / "sub" / ".." / "results.db", "the input database"),
                 (self.db, symlink, "the input database"),
                 (self.db, hardlink, "the input database"),
                 (via_link, self.db, "the input database"),
                 (self.db, f"{self.db}-wal", "the wal file of the input database"),
                 (self.db, f"{self.db}-journal", "the journal file of the input database")]
        for db, out, what in cases:
            with self.subTest(db=str(db), out=str(out)):
                self.assert_refused(self.run_cli(db, out), f"--out {out} is {what} {db}")
                self.assertEqual(self.db.read_bytes(), before)
                self.assertTrue(symlink.is_symlink())
                self.assertTrue(os.path.samefile(hardlink, self.db))
                self.assertEqual(side_files(self.db), [])
                self.assertEqual(sorted(p.name for p in self.tmp.iterdir()),
                                 ["hard.json", "link.json", "results.db", "sub", "via-link.db"])

    def test_out_that_cannot_be_written_is_refused_before_the_database_is_read(self):
        missing = self.tmp / "missing.db"
        for out, words in ((self.tmp, "is a directory"),
                           (self.tmp / "no-dir" / "t.json", "does not exist"),
                           (self.db / "t.json", "is not a directory")):
            with self.subTest(out=str(out)):
                # The database is missing: the message must be about --out all the same.
                result = self.run_cli(missing, out)
                self.assert_refused(result, f"--out {out}", words)
                self.assertNotIn("no such file", result.stderr)
        self.assertFalse(missing.exists())

    def test_missing_database_is_named_and_not_created(self):
        missing = self.tmp / "nowhere.db"
        self.assert_refused(self.run_cli(missing, self.tmp / "t.json"), f"{missing}: no such file")
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["results.db"])

    def test_wal_database_is_read_without_leaving_files(self):
        to_wal(self.db)
        # A name with what a URI would take for a query, a fragment or an escape.
        odd = self.tmp / "run ?x=1#2%41.db"
        os.link(self.db, odd)
        before = self.db.read_bytes()
        for db in (self.db, odd, Path(os.path.relpath(odd))):
            with self.subTest(db=str(db)):
                result = self.run_cli(db, self.tmp / "t.json")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(side_files(self.db), [])
                self.assertEqual(self.db.read_bytes(), before)
                trace = Trace(json.loads((self.tmp / "t.json").read_text()))
                self.assertEqual(trace.counters(), {**LINK_COUNTERS, **QUEUE_COUNTERS})

    def test_wal_database_being_written_is_read_with_its_latest_rows(self):
        to_wal(self.db)
        writer = sqlite3.connect(self.db)
        try:
            writer.execute("INSERT INTO scheduler_decisions VALUES (?, 5000, 'harmonics',"
                           " 'late-decision', NULL, '{}', 1.0)", (RUN,))
            writer.commit()  # in the -wal file, not yet in the database file
            self.assertEqual(side_files(self.db), ["-wal", "-shm"])
            result = self.run_cli(self.db, self.tmp / "t.json")
            self.assertEqual(result.returncode, 0, result.stderr)
            trace = Trace(json.loads((self.tmp / "t.json").read_text()))
            late = [e for e in trace.events if e["name"] == "late-decision"]
            self.assertEqual([ns(e["ts"]) for e in late], [5000])
            writer.execute("DELETE FROM scheduler_decisions WHERE kind = 'late-decision'")
            writer.commit()  # the writer goes on as before
        finally:
            writer.close()
        self.assertEqual(side_files(self.db), [])  # the writer's close removed them

    def test_a_writer_changing_the_database_while_it_is_read_is_noticed(self):
        to_wal(self.db)
        reader = cli_paths.connect_readonly(self.db)
        try:
            self.assertTrue(reader.immutable)  # no -wal file: nobody had it open
            reader.execute("SELECT COUNT(*) FROM op_spans").fetchone()
            reader.check_unchanged()
            writer = sqlite3.connect(self.db)
            writer.execute("DELETE FROM op_spans")
            writer.commit()
            writer.close()  # the last connection: it checkpoints into the database file
            with self.assertRaisesRegex(sqlite3.OperationalError, "changed while it was read"):
                reader.check_unchanged()
        finally:
            reader.close()

    @unittest.skipUnless(os.path.exists("/proc/self/status"), "no /proc/self/status")
    def test_counters_of_many_samples_in_bounded_memory(self):
        """Counting a trace of a million link samples to refuse it holds none of them: the
        peak of memory is that of a tiny database's trace plus a little."""
        big = self.tmp / "big.db"
        conn = sqlite3.connect(big)
        conn.executescript(SCHEMA)
        links, samples, interval = 64, 10_000, 10_000  # at 100 Gb/s: up to 125,000 bytes
        conn.execute("INSERT INTO runs (example, scheduler, seed, params_json, status,"
                     " started_at, sim_end_ns) VALUES ('big', 'fair', 1, ?, 'complete',"
                     " '2026-01-01T00:00:00Z', ?)",
                     (json.dumps({"sample_interval_ns": interval}), samples * interval))
        results_test_schema.add_link_samples(conn, RUN, links, samples, interval)
        conn.commit()
        conn.close()
        rows = links * 2 * samples
        # Holding the rows as tuples of four numbers (72 bytes each, without the numbers)
        # needs more than twice the headroom allowed.
        headroom = 32 * 2**20
        self.assertGreater(rows * 72, 2 * headroom)
        small, small_peak = results_test_schema.run_measured(
            sys.executable, SCRIPT, [self.db, "--run", RUN, "--out", self.tmp / "small.json"])
        self.assertEqual(small.returncode, 0, small.stderr)
        self.assertIsNotNone(small_peak)
        result, peak = results_test_schema.run_measured(
            sys.executable, SCRIPT, [big, "--run", RUN, "--out", self.tmp / "big.json",
                                     "--max-events", 1000], limit=small_peak + headroom)
        self.assertEqual(result.returncode, 2, result.stderr[-2000:])
        match = re.search(r"the trace would have (\d+) events, more than --max-events 1000",
                          result.stderr)
        self.assertIsNotNone(match, result.stderr[-2000:])
        # Nearly every sample of a directed link changes its value: a point each.
        self.assertGreater(int(match.group(1)), 0.9 * rows)
        self.assertLess(peak - small_peak, headroom)
        self.assertFalse((self.tmp / "big.json").exists())


@unittest.skipIf(BINARY is None, f"no {EXAMPLE} binary: pass its path")
class RealRunTest(unittest.TestCase):
    """A run of the real example, with the port monitors on, against its own rows."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.db = Path(cls.dir.name) / "run.db"
        subprocess.run([str(BINARY), "--jobs=2", "--iterations=2", "--scale=0.002",
                        "--scheduler=symphony", f"--db={cls.db}",
                        "--ns3::PortMonitor::Interval=5us"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = Path(cls.dir.name) / "trace.json"
        cls.wal, cls.side_before = wal_mode(cls.db), side_files(cls.db)
        subprocess.run([sys.executable, str(SCRIPT), str(cls.db), "--run", "1", "--out",
                        str(out)], check=True, stdout=subprocess.DEVNULL)
        cls.side_after = side_files(cls.db)
        cls.trace = Trace(json.loads(out.read_text()))
        cls.conn = sqlite3.connect(cls.db)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()
        cls.dir.cleanup()

    def test_every_collective_once_to_the_nanosecond(self):
        rows = self.conn.execute("SELECT job_id, start_ns, finish_ns FROM collectives "
                                 "WHERE run_id = 1 AND finish_ns IS NOT NULL").fetchall()
        self.assertGreater(len(rows), 0)
        for job, start, finish in rows:
            pid = self.trace.job_pid(job)
            events = [e for e in self.trace.thread(pid, "collectives")
                      if ns(e["ts"]) == start]
            self.assertEqual(len(events), 1, (job, start))
            self.assertEqual(ns(events[0]["ts"] + events[0]["dur"]), finish)
        total = sum(len(self.trace.thread(self.trace.job_pid(j), "collectives"))
                    for (j,) in self.conn.execute("SELECT job_id FROM jobs WHERE run_id = 1"))
        self.assertEqual(total, len(rows))

    def test_every_op_span_once(self):
        spans = self.conn.execute("SELECT job_id, start_ns, end_ns FROM op_spans "
                                  "WHERE run_id = 1").fetchall()
        self.assertGreater(len(spans), 0)
        seen = {}
        for job, start, end in spans:
            pid = self.trace.job_pid(job)
            seen.setdefault(pid, [(ns(e["ts"]), ns(e["ts"] + e["dur"]))
                                  for e in self.trace.threads_named(pid, "ranks")
                                  if e["ph"] == "X" and e["name"] != "waiting"])
            self.assertIn((start, end), seen[pid], (job, start, end))
        self.assertEqual(sum(len(v) for v in seen.values()), len(spans))

    def test_queue_counters_from_the_monitors(self):
        ports = self.conn.execute("SELECT count(*) FROM port_samples WHERE run_id = 1"
                                  ).fetchone()[0]
        self.assertGreater(ports, 0, "the contended jobs queue somewhere")
        self.assertTrue(any(name.startswith("queue node") for name in self.trace.counters()))

    def test_the_examples_wal_database_is_read_without_leaving_files(self):
        self.assertTrue(self.wal, "the example writes its database in WAL mode")
        self.assertEqual((self.side_before, self.side_after), ([], []))

    def test_required_fields(self):
        for e in self.trace.events:
            for field in ("name", "ph", "ts", "pid", "tid"):
                self.assertIn(field, e)
            if e["ph"] == "X":
                self.assertGreaterEqual(e["dur"], 0)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
