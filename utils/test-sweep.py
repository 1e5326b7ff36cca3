#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of sweep.py on tiny grids of the real multi-tenant-fat-tree example.

    utils/test-sweep.py [PATH/multi-tenant-fat-tree] [unittest options]

The example comes from the first argument, else $CS_SWEEP_EXAMPLE, else the module's
build-release or build directory. Failures are made by a wrapper around the real
example that crashes, hangs or leaves a run unfinished on its first call for some
seeds. Expectations are computed here: the point keys from the documented key format,
each run's scheduler and seed from the point's flags, and every table's rows from the
per-point files, compared row by row with the main database.
"""

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "utils" / "sweep.py"
EXAMPLE = "multi-tenant-fat-tree"
SMALL = {"iterations": 2, "scale": 0.001}  # a fraction of a second per run


def find_binary(argv):
    for candidate in argv[1:2] + [os.environ.get("CS_SWEEP_EXAMPLE", "")]:
        if candidate and not candidate.startswith("-"):
            return Path(candidate).resolve()
    for build in ("build-release", "build"):
        if (REPO / build / EXAMPLE).is_file():
            return REPO / build / EXAMPLE
    return None


BINARY = find_binary(sys.argv)


def point_key(flags):
    """The documented point key: canonical JSON of the example and its flags as text."""
    text = {name: (str(value).lower() if isinstance(value, bool) else str(value))
            for name, value in flags.items()}
    return json.dumps({"example": EXAMPLE, "flags": text}, sort_keys=True,
                      separators=(",", ":"))


def wall_clock(table, column):
    """Columns that measure the host, not the simulation: they differ between runs.
    (Scheduler decisions also carry host times inside their JSON detail.)"""
    return ("wall" in column or column in ("started_at", "finished_at", "host", "pid")
            or (table == "scheduler_timing" and column.endswith("_us")))


def without_wall_clock(value):
    """A JSON text with its host-time keys (wall_us, scheduling_us) dropped, recursively."""
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items()
                    if "wall" not in k and not k.endswith("_us")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    if not isinstance(value, str) or not value.startswith("{"):
        return value
    try:
        return json.dumps(strip(json.loads(value)), sort_keys=True)
    except ValueError:
        return value


def run_tables(connection):
    """Tables with a run_id column."""
    names = [row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return [n for n in names
            if "run_id" in [row[1] for row in connection.execute(f'PRAGMA table_info("{n}")')]]


def rows_of_run(connection, table, run_id, cols):
    """The run's rows of a table, without run_id, as a sorted list."""
    select = ", ".join(f'"{c}"' for c in cols)
    rows = connection.execute(f'SELECT {select} FROM "{table}" WHERE run_id = ?', (run_id,))
    return sorted(rows, key=repr)


FAKE = """#!/usr/bin/python3
# The real example, except on the first call with --db of scheduler crux with seed 7
# or 8, and of seed 9.
import os, signal, sqlite3, subprocess, sys, time
REAL, STATE = {real!r}, {state!r}
args = sys.argv[1:]
flags = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
seed, scheduler = flags.get("seed", ""), flags.get("scheduler", "")
marker = os.path.join(STATE, f"tried-{{scheduler}}-{{seed}}")
chosen = seed == "9" or (seed in ("7", "8") and scheduler == "crux")
if seed == "5" and "db" in flags:  # tables the module does not write (yet)
    subprocess.run([REAL] + args, stdout=subprocess.DEVNULL, check=True)
    db = sqlite3.connect(flags["db"])
    (run,) = db.execute("SELECT run_id FROM runs").fetchone()
    db.executescript(
        "CREATE TABLE extra_samples (run_id INTEGER NOT NULL REFERENCES runs (run_id),"
        " value INTEGER);"
        "CREATE TABLE comparisons (baseline INTEGER REFERENCES runs (run_id), note TEXT);"
        "CREATE TABLE units (name TEXT PRIMARY KEY, factor REAL);"
        "INSERT INTO units VALUES ('us', 1e-6), ('ms', 1e-3);")
    db.executemany("INSERT INTO extra_samples VALUES (?, ?)", [(run, v) for v in (1, 2, 3)])
    db.execute("INSERT INTO comparisons VALUES (?, ?)", (run, scheduler))
    if scheduler == "crux":  # a column added to a table after the first point
        db.execute("ALTER TABLE jobs ADD COLUMN note TEXT")
        db.execute("UPDATE jobs SET note = 'new'")
    db.commit()
    sys.exit(0)
if "db" not in flags or not chosen or os.path.exists(marker):
    os.execv(REAL, [REAL] + args)
open(marker, "w").close()
if seed == "9":  # hangs until killed
    with open(os.path.join(STATE, "hanging-pid"), "w") as out:
        out.write(str(os.getpid()))
    time.sleep(120)
    sys.exit(0)
# One complete run, then a second one begun and never finished.
subprocess.run([REAL] + args, stdout=subprocess.DEVNULL, check=True)
db = sqlite3.connect(flags["db"])
db.execute("INSERT INTO runs (example, scheduler, seed, params_json, status, started_at)"
           " VALUES ('multi-tenant-fat-tree', 'fair', ?, '{{}}', 'running', 'now')", (seed,))
db.commit()
db.close()
if seed == "7":
    os.kill(os.getpid(), signal.SIGKILL)  # killed mid-run
sys.exit(0)  # seed 8: exit status 0 with a run still 'running'
"""


@unittest.skipIf(BINARY is None,
                 f"no {EXAMPLE} binary: pass its path or set CS_SWEEP_EXAMPLE")
class SweepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="test-sweep-")
        self.dir = Path(self.tmp.name)
        self.binary = BINARY

    def tearDown(self):
        self.tmp.cleanup()

    def write_grid(self, grid, name="grid.json"):
        path = self.dir / name
        path.write_text(grid if isinstance(grid, str) else json.dumps(grid, indent=1))
        return path

    def sweep(self, grid, *args, binary=None, db="main.db"):
        command = [sys.executable, str(SCRIPT), str(grid), "--db", db, "--quiet",
                   "--binary", str(binary or self.binary)] + list(args)
        return subprocess.run(command, cwd=self.dir, capture_output=True, text=True,
                              timeout=300)

    def fake(self):
        state = self.dir / "fake-state"
        state.mkdir(exist_ok=True)
        path = self.dir / "fake-example"
        path.write_text(FAKE.format(real=str(self.binary), state=str(state)))
        path.chmod(0o755)
        return path

    def assert_rc(self, result, expected):
        self.assertEqual(result.returncode, expected,
                         f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")

    def points_dir(self, db="main.db"):
        return self.dir / (Path(db).stem + ".points")

    def runs_by_key(self, db="main.db"):
        """point key -> [(run_id, status, scheduler, seed)] from the main database."""
        if not (self.dir / db).exists():
            return {}
        connection = sqlite3.connect(self.dir / db)
        result = {}
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'sweep_points'"
                                  ).fetchone():
            return result
        for key, run_id, status, scheduler, seed in connection.execute(
                "SELECT s.point_key, r.run_id, r.status, r.scheduler, r.seed"
                " FROM sweep_points s JOIN runs r USING (run_id) ORDER BY r.run_id"):
            result.setdefault(key, []).append((run_id, status, scheduler, seed))
        connection.close()
        return result

    def assert_one_complete_run_per_point(self, points, db="main.db"):
        """points: the flags of every point; each has one complete run of its own."""
        by_key = self.runs_by_key(db)
        self.assertEqual(set(by_key), {point_key(p) for p in points})
        for flags in points:
            runs = by_key[point_key(flags)]
            self.assertEqual(len(runs), 1, runs)
            _, status, scheduler, seed = runs[0]
            self.assertEqual(status, "complete")
            self.assertEqual(scheduler, flags.get("scheduler", "fair"))
            self.assertEqual(seed, int(flags.get("seed", 1)))
        connection = sqlite3.connect(self.dir / db)
        statuses = Counter(row[0] for row in connection.execute("SELECT status FROM runs"))
        connection.close()
        self.assertEqual(statuses, Counter({"complete": len(points)}))

    def assert_conserved(self, db="main.db"):
        """Every row of every per-point file is in the main database once, under its run."""
        main = sqlite3.connect(self.dir / db)
        totals = Counter()
        files = sorted(p for p in self.points_dir(db).glob("*.db") if ".part-" not in p.name)
        self.assertTrue(files)
        for path in files:
            part = sqlite3.connect(path)
            (key,) = {row[0] for row in part.execute("SELECT point_key FROM sweep_points")}
            old_ids = [r[0] for r in part.execute("SELECT run_id FROM runs ORDER BY run_id")]
            new_ids = [r[0] for r in main.execute(
                "SELECT run_id FROM sweep_points WHERE point_key = ? ORDER BY run_id", (key,))]
            self.assertEqual(len(old_ids), len(new_ids), key)
            for table in run_tables(part):
                cols = [r[1] for r in part.execute(f'PRAGMA table_info("{table}")')
                        if r[1] != "run_id"]
                for old, new in zip(old_ids, new_ids):
                    expected = rows_of_run(part, table, old, cols)
                    self.assertEqual(rows_of_run(main, table, new, cols), expected,
                                     f"{table} of point {key}")
                    totals[table] += len(expected)
            part.close()
        for table in run_tables(main):
            count = main.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            self.assertEqual(count, totals[table], f"{table}: rows outside the points' files")
        main.close()
        return totals

    def contents(self, db):
        """Per point key: its runs' rows of every table, without run ids and wall times."""
        connection = sqlite3.connect(self.dir / db)
        tables = run_tables(connection)
        result = {}
        for key, run_ids in self.group_runs(connection).items():
            for position, run_id in enumerate(run_ids):
                for table in tables:
                    cols = [r[1] for r in connection.execute(f'PRAGMA table_info("{table}")')
                            if r[1] != "run_id" and not wall_clock(table, r[1])]
                    rows = rows_of_run(connection, table, run_id, cols)
                    result[(key, position, table)] = sorted(
                        (tuple(without_wall_clock(v) for v in row) for row in rows), key=repr)
        connection.close()
        return result

    @staticmethod
    def group_runs(connection):
        groups = {}
        for key, run_id in connection.execute(
                "SELECT point_key, run_id FROM sweep_points ORDER BY run_id"):
            groups.setdefault(key, []).append(run_id)
        return groups

    def leftover_parts(self, db="main.db"):
        return [p.name for p in self.points_dir(db).glob("*.part-*")]

    # ------------------------------------------------------------------- the tests

    def grid2x2(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": SMALL,
                                "grid": {"scheduler": ["cassini", "harmonics"],
                                         "seed": [1, 2]}})
        points = [dict(SMALL, scheduler=s, seed=n) for s in ("cassini", "harmonics")
                  for n in (1, 2)]
        return grid, points

    def test_local_sweep_runs_every_point_once_and_conserves_rows(self):
        grid, points = self.grid2x2()
        self.assert_rc(self.sweep(grid, "--jobs", "2"), 0)
        self.assert_one_complete_run_per_point(points)
        totals = self.assert_conserved()
        # The points' files hold more than runs: the copy covers every run_id table.
        for table in ("flows", "links", "jobs", "iterations", "scheduler_decisions",
                      "scheduler_runs", "sweep_points"):
            self.assertGreater(totals[table], 0, table)
        self.assertEqual(totals["sweep_points"], 4)
        self.assertEqual(self.leftover_parts(), [])

        # Again: nothing runs (an example that always fails would be noticed).
        failing = self.dir / "always-fails"
        failing.write_text("#!/bin/sh\nexit 3\n")
        failing.chmod(0o755)
        again = self.sweep(grid, binary=failing)
        self.assert_rc(again, 0)
        self.assertIn("4 already in", again.stderr)
        self.assert_one_complete_run_per_point(points)
        self.assert_conserved()

    def test_point_with_several_runs_keeps_them_together(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": dict(SMALL, compare="crux"),
                                "grid": {"seed": [3]}})
        self.assert_rc(self.sweep(grid), 0)
        by_key = self.runs_by_key()
        key = point_key(dict(SMALL, compare="crux", seed=3))
        self.assertEqual(list(by_key), [key])
        # fair, isolated (two runs per job, alone under ECMP and on its best routes: 2 jobs)
        # and crux
        self.assertEqual(Counter(run[2] for run in by_key[key]),
                         Counter({"fair": 1, "isolated": 4, "crux": 1}))
        self.assertTrue(all(run[1] == "complete" and run[3] == 3 for run in by_key[key]))
        self.assert_conserved()

    def test_merge_copies_any_table_and_column(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": dict(SMALL, seed=5),
                                "grid": {"scheduler": ["fair", "crux"]}})
        self.assert_rc(self.sweep(grid, "--jobs", "1", binary=self.fake()), 0)
        points = [dict(SMALL, seed=5, scheduler=s) for s in ("fair", "crux")]
        self.assert_one_complete_run_per_point(points)
        self.assertGreater(self.assert_conserved()["extra_samples"], 0)
        run_of = {flags["scheduler"]: self.runs_by_key()[point_key(flags)][0][0]
                  for flags in points}
        main = sqlite3.connect(self.dir / "main.db")
        # A column declared as a foreign key to runs is remapped like run_id.
        self.assertEqual(sorted(main.execute("SELECT baseline, note FROM comparisons")),
                         sorted((run, scheduler) for scheduler, run in run_of.items()))
        # A table of no run is copied once, not once per point.
        self.assertEqual(sorted(main.execute("SELECT name, factor FROM units")),
                         [("ms", 1e-3), ("us", 1e-6)])
        # A column only the second point's file has: added, NULL for the first point.
        notes = dict(main.execute("SELECT run_id, max(note) FROM jobs GROUP BY run_id"))
        self.assertEqual(notes, {run_of["fair"]: None, run_of["crux"]: "new"})
        main.close()
        # A direct run into the merged file afterwards (its inserts name their
        # columns, so the added one is left NULL) completes with all its rows.
        args = [f"--{name}={value}" for name, value in dict(SMALL, seed=6).items()]
        direct = subprocess.run([str(self.binary), "--db=main.db"] + args, cwd=self.dir,
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(direct.returncode, 0, direct.stderr)
        main = sqlite3.connect(self.dir / "main.db")
        run, status = main.execute(
            "SELECT run_id, status FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
        self.assertEqual(status, "complete")
        self.assertEqual(main.execute("SELECT count(*), count(note) FROM jobs WHERE run_id = ?",
                                      (run,)).fetchone(), (2, 0))
        self.assertGreater(main.execute("SELECT count(*) FROM iterations WHERE run_id = ?",
                                        (run,)).fetchone()[0], 0)
        main.close()

    def test_killed_run_in_the_main_database_is_listed_abandoned_and_not_counted(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": dict(SMALL, seed=9),
                                "grid": {"scheduler": ["fair"]}})
        self.assert_rc(self.sweep(grid, "--jobs", "1"), 0)
        # A run started by hand into the main database and killed midway.
        args = [f"--{name}={value}" for name, value in
                dict(SMALL, seed=10, iterations=1000000).items()]
        child = subprocess.Popen([str(self.binary), "--db=main.db"] + args, cwd=self.dir,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        main = sqlite3.connect(self.dir / "main.db")
        deadline = time.monotonic() + 120  # against a hang only
        while not main.execute("SELECT count(*) FROM runs WHERE seed = 10").fetchone()[0]:
            self.assertLess(time.monotonic(), deadline)
            self.assertIsNone(child.poll())
            time.sleep(0.02)
        child.kill()
        child.wait()
        self.assertEqual(main.execute("SELECT status, pid FROM runs WHERE seed = 10").fetchone(),
                         ("running", child.pid))
        main.close()
        listing = self.sweep(grid, "--list")
        self.assert_rc(listing, 0)
        header = listing.stdout.splitlines()[0]
        self.assertIn("(1 merged, 0 finished, 0 pending)", header)
        self.assertTrue(header.endswith("; 1 abandoned run"), header)

    def test_failed_points_leave_nothing_and_are_retried(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": SMALL,
                                "grid": {"scheduler": ["crux", "bogus"], "seed": [7, 8]}})
        fake = self.fake()
        first = self.sweep(grid, "--jobs", "2", binary=fake)
        self.assert_rc(first, 1)
        self.assertIn("killed by signal SIGKILL", first.stderr)
        self.assertIn("is 'running'", first.stderr)
        self.assertIn("is not a known scheduler", first.stderr)  # the log's tail
        # Only the crux points were attempted by the fake, and both failed; bogus always fails.
        self.assertEqual(self.runs_by_key(), {})
        connection = sqlite3.connect(self.dir / "main.db") if (
            self.dir / "main.db").exists() else None
        if connection:
            self.assertEqual(connection.execute("SELECT count(*) FROM runs").fetchone()[0], 0)
            connection.close()
        self.assertEqual(self.leftover_parts(), [])
        self.assertEqual([p for p in self.points_dir().glob("*.db")], [])

        # Second call: the crux points now run as the real example; bogus fails again.
        logs = sorted(self.points_dir().glob("*.log"))
        second = self.sweep(grid, "--jobs", "2", binary=fake)
        self.assert_rc(second, 1)
        self.assertEqual(len(re.findall(r"point \d+ failed", second.stderr)), 2)
        self.assertEqual(len(logs), 4)
        self.assert_one_complete_run_per_point(
            [dict(SMALL, scheduler="crux", seed=7), dict(SMALL, scheduler="crux", seed=8)])
        self.assert_conserved()

        # Fixing the grid keeps the finished points and runs only the new ones.
        grid = self.write_grid({"example": EXAMPLE, "fixed": SMALL,
                                "grid": {"scheduler": ["crux", "fair"], "seed": [7, 8]}})
        third = self.sweep(grid, binary=fake)
        self.assert_rc(third, 0)
        self.assertIn("2 already in", third.stderr)
        self.assert_one_complete_run_per_point(
            [dict(SMALL, scheduler=s, seed=n) for s in ("crux", "fair") for n in (7, 8)])
        self.assert_conserved()

    def test_interrupted_sweep_stops_its_points_and_resumes(self):
        grid = self.write_grid({"example": EXAMPLE, "fixed": SMALL, "grid": {"seed": [1, 9]}})
        fake = self.fake()
        command = [sys.executable, str(SCRIPT), str(grid), "--db", "main.db", "--quiet",
                   "--jobs", "2", "--binary", str(fake)]
        process = subprocess.Popen(command, cwd=self.dir, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        pid_file = self.dir / "fake-state" / "hanging-pid"
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            self.assertIsNone(process.poll(), "the sweep ended before its hanging point")
            self.assertLess(time.monotonic(), deadline, "the hanging point never started")
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 130, stderr)
        hanging = int(pid_file.read_text())
        with self.assertRaises(ProcessLookupError, msg="the hanging point still runs"):
            os.kill(hanging, 0)
        self.assertEqual(self.leftover_parts(), [])
        self.assertNotIn(point_key(dict(SMALL, seed=9)), self.runs_by_key())

        self.assert_rc(self.sweep(grid, binary=fake), 0)
        self.assert_one_complete_run_per_point([dict(SMALL, seed=1), dict(SMALL, seed=9)])
        self.assert_conserved()

    def test_cluster_path_gives_the_same_database_as_the_local_one(self):
        grid, points = self.grid2x2()
        self.assert_rc(self.sweep(grid, "--jobs", "2", db="local.db"), 0)

        count = self.sweep(grid, "--count", db="cluster.db")
        self.assert_rc(count, 0)
        self.assertEqual(count.stdout.strip(), "4")
        # Two points as array tasks would run them, the rest from --commands, as GNU
        # parallel would; none touches cluster.db.
        for index in (0, 1):
            self.assert_rc(self.sweep(grid, "--point", str(index), db="cluster.db"), 0)
        commands = self.sweep(grid, "--commands", db="cluster.db")
        self.assert_rc(commands, 0)
        lines = commands.stdout.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertEqual([shlex.split(line)[-1] for line in lines], ["2", "3"])
        for line in lines:
            result = subprocess.run(line, shell=True, cwd="/", capture_output=True, text=True,
                                    timeout=300)
            self.assert_rc(result, 0)
        self.assertFalse((self.dir / "cluster.db").exists())
        listing = self.sweep(grid, "--list", db="cluster.db")
        self.assertEqual(re.findall(r"^\d+\t(\w+)\t", listing.stdout, re.MULTILINE),
                         ["finished"] * 4)

        merge = self.sweep(grid, "--merge", db="cluster.db")
        self.assert_rc(merge, 0)
        self.assert_one_complete_run_per_point(points, db="cluster.db")
        self.assert_conserved(db="cluster.db")
        local, cluster = self.contents("local.db"), self.contents("cluster.db")
        self.assertEqual(set(local), set(cluster))
        for part in local:
            self.assertEqual(cluster[part], local[part], part)

        # Merging again adds nothing; nothing is left to run.
        self.assert_rc(self.sweep(grid, "--merge", db="cluster.db"), 0)
        self.assert_one_complete_run_per_point(points, db="cluster.db")
        self.assertEqual(self.sweep(grid, "--commands", db="cluster.db").stdout, "")

    def test_point_without_the_rest_of_the_sweep_is_missing_at_merge(self):
        grid, _ = self.grid2x2()
        self.assert_rc(self.sweep(grid, "--point", "3"), 0)
        merge = self.sweep(grid, "--merge")
        self.assert_rc(merge, 1)
        self.assertIn("not finished: 0,1,2", merge.stderr)
        self.assert_one_complete_run_per_point([dict(SMALL, scheduler="harmonics", seed=2)])
        # The local path then runs only the three others.
        self.assert_rc(self.sweep(grid), 0)
        self.assert_one_complete_run_per_point(self.grid2x2()[1])

    def test_malformed_grids_are_refused_with_file_line_and_key(self):
        cases = [
            ('{"example": "x",\n "grid": {"seed": [1, 2],}}\n',
             r"grid\.json:2:\d+: not valid JSON"),
            ('{"grid": {"seed": [1]}}', r"grid\.json: missing key 'example'"),
            ('{"example": "%s",\n "grids": {}}' % EXAMPLE, r"grid\.json:2: grids: unknown key"),
            ('{"example": "a/b"}', r"grid\.json:1: example: must be the name"),
            ('{"example": "%s",\n "grid": {\n "seed": 3}}' % EXAMPLE,
             r"grid\.json:3: grid\.seed: must be a non-empty list"),
            ('{"example": "%s", "grid": {"seed": []}}' % EXAMPLE,
             r"grid\.json:1: grid\.seed: must be a non-empty list"),
            ('{"example": "%s", "grid": {"seed": [1, {"a": 2}]}}' % EXAMPLE,
             r"grid\.seed: a value must be a string, a number or true/false"),
            ('{"example": "%s",\n "fixed": {"seed": 1},\n "grid": {"seed": [2]}}' % EXAMPLE,
             r"grid\.json:3: grid\.seed: is also in 'fixed'"),
            ('{"example": "%s", "grid": {"seed": [1, 1]}}' % EXAMPLE,
             r"grid\.seed: value 1 appears twice"),
            ('{"example": "%s",\n "fixed": {\n  "db": "x.db"}}' % EXAMPLE,
             r"grid\.json:3: fixed\.db: cannot be set"),
            ('{"example": "%s", "fixed": {"seed": 1, "seed": 2}}' % EXAMPLE,
             r"grid\.json: key 'seed' appears twice"),
            ('{"example": "%s", "fixed": {"--seed": 1}}' % EXAMPLE,
             r"fixed\.--seed: not a flag name"),
            ('{"example": "%s",\n "fixed": {"iterations": 1},\n "grid": {"schedular": ["fair"]}}'
             % EXAMPLE, r"grid\.json:3: grid\.schedular: multi-tenant-fat-tree has no flag "
             r"--schedular \(its flags: .*scheduler"),
            ('[1, 2]', r"grid\.json: the grid file must hold a JSON object"),
        ]
        for text, pattern in cases:
            with self.subTest(text=text):
                result = self.sweep(self.write_grid(text))
                self.assert_rc(result, 2)
                self.assertRegex(result.stderr, pattern)
                self.assertNotIn("Traceback", result.stderr)
                self.assertFalse((self.dir / "main.db").exists())
        missing = self.sweep(self.dir / "absent.json")
        self.assert_rc(missing, 2)
        self.assertRegex(missing.stderr, r"absent\.json: cannot read the grid file")
        grid, _ = self.grid2x2()
        out_of_range = self.sweep(grid, "--point", "4")
        self.assert_rc(out_of_range, 2)
        self.assertIn("the grid has 4 points (0 to 3)", out_of_range.stderr)


class FilesTest(unittest.TestCase):
    """What the sweep writes is never what it reads, refused before anything is written
    or run; a main database it only reads (--list) is left without -wal or -shm files.
    No example is needed: a script stands for it and says if it was run."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="test-sweep-")
        self.dir = Path(self.tmp.name)
        self.grid = self.dir / "grid.json"
        self.grid.write_text(json.dumps({"example": EXAMPLE, "grid": {"seed": [1, 2]}}))
        self.binary = self.dir / "example"
        self.binary.write_text(f"#!/bin/sh\ntouch {self.dir / 'ran'}\nexit 1\n")
        self.binary.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def sweep(self, grid, *args):
        return subprocess.run([sys.executable, str(SCRIPT), str(grid), "--quiet", *args],
                              cwd=self.dir, capture_output=True, text=True, timeout=60)

    def test_outputs_that_are_inputs_are_refused(self):
        link = self.dir / "link.db"
        link.symlink_to(self.grid)
        hard = self.dir / "hard.db"
        os.link(self.binary, hard)
        named_db = self.dir / "g.db"  # its default --db: g.db in the current directory
        named_db.write_text(self.grid.read_text())
        binary = ["--binary", str(self.binary)]
        cases = [(self.grid, ["--db", str(self.grid)] + binary,
                  f"--db {self.grid} is the grid file {self.grid}"),
                 (self.grid, ["--db", str(link), "--merge"],
                  f"--db {link} is the grid file {self.grid}"),
                 (self.grid, ["--points-dir", str(self.grid)] + binary,
                  f"--points-dir {self.grid} is the grid file {self.grid}"),
                 (named_db, binary, f"--db g.db is the grid file {named_db}"),
                 (self.grid, ["--db", str(hard)] + binary,
                  f"--db {hard} is the example's binary {self.binary}")]
        for grid, args, message in cases:
            with self.subTest(args=args):
                before = {p.name: p.read_bytes() for p in self.dir.iterdir() if p.is_file()}
                result = self.sweep(grid, *args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr.strip(), f"sweep.py: {message}")
                after = {p.name: p.read_bytes() for p in self.dir.iterdir() if p.is_file()}
                self.assertEqual(after, before)  # nothing written, nothing run
                self.assertFalse(any(p.is_dir() for p in self.dir.iterdir()))

    def test_wal_main_database_is_listed_without_leaving_files(self):
        db = self.dir / "main.db"
        connection = sqlite3.connect(db)
        self.assertEqual(connection.execute("PRAGMA journal_mode = WAL").fetchone()[0], "wal")
        flags = {"seed": "1"}
        connection.executescript(
            "CREATE TABLE runs (run_id INTEGER PRIMARY KEY, status TEXT, pid INTEGER, host TEXT);"
            "CREATE TABLE sweep_points (run_id INTEGER, point_key TEXT, point_hash TEXT,"
            " example TEXT, host TEXT, point_wall_s REAL, finished_at TEXT);"
            "INSERT INTO runs VALUES (1, 'complete', NULL, NULL);")
        connection.execute("INSERT INTO sweep_points VALUES (1, ?, 'h', ?, NULL, NULL, NULL)",
                           (point_key(flags), EXAMPLE))
        connection.commit()
        connection.close()
        self.assertEqual([p.name for p in self.dir.glob("main.db-*")], [])
        before = db.read_bytes()
        result = self.sweep(self.grid, "--db", str(db), "--list")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"(?m)^0\tmerged\t")
        self.assertRegex(result.stdout, r"(?m)^1\tpending\t")
        self.assertEqual([p.name for p in self.dir.glob("main.db-*")], [])
        self.assertEqual(db.read_bytes(), before)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        del sys.argv[1]
    unittest.main()
