#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run a grid of simulations, each point as its own process, into one results database.

    utils/sweep.py GRID.json [--db FILE] [--jobs N]   run every pending point here
    utils/sweep.py GRID.json --count | --list         how many points / which, and their state
    utils/sweep.py GRID.json --point I[,J,K-L]        run only these points (a cluster task)
    utils/sweep.py GRID.json --commands               one command per pending point
    utils/sweep.py GRID.json --merge                  merge the points' files into --db

The grid file names an example and its flags:

    {"example": "multi-tenant-fat-tree",
     "fixed": {"iterations": 5, "scale": 0.01},
     "grid": {"scheduler": ["fair", "crux"], "seed": [1, 2, 3]}}

Every combination of the "grid" values (cartesian product, the last key varying
fastest), with the "fixed" flags, is one point, run as
`EXAMPLE --flag=value ... --db=POINTS/HASH.part-HOST-PID.db`. A point's key is the
canonical JSON of the example and all its flags; HASH is derived from it.

A point is finished when its process exited 0 and every run it wrote is 'complete';
only then is its file renamed POINTS/HASH.db and a table sweep_points (point_key,
point_hash, run_id, ...) added to it. Merging copies a finished file into the main
database in one transaction: its runs get new run_ids and every other table with a
run_id column (or a foreign key to runs) is copied with run_id remapped; tables
without one are copied once (rows already present are not copied again). A point
whose key is in the main database's sweep_points is skipped, so a sweep can be run
again after an interruption or a failure; a failed point leaves nothing in the main
database, its log stays in POINTS/HASH.log, and it is run again next time.

Only the process that merges writes the main database; the points write their own
files, so running them on many hosts over a shared file system is safe (see
doc/sweeps.md for Slurm job arrays and GNU parallel).

The main database and the points' directory must not be the grid file or the example's
binary (under another name, or a link): that is refused before anything is written or
run. A main database only read (--list, --commands) is left without -wal or -shm files.

Exit status: 0 when every point is in the main database (or, with --point, every
selected point is finished), 1 when some point failed or is still missing, 2 for
a bad grid file or bad arguments.
"""

import argparse
import hashlib
import itertools
import json
import math
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

# The scripts' shared modules sit beside them (also when this file is run through a link).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import (PathError, check_distinct, connect_readonly,  # noqa: E402
                       input_file, output_file, readonly_uri)
from results_runs import process_alive, run_state  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve()
GRID_KEYS = ("example", "fixed", "grid", "description")
RESERVED_FLAGS = {"db": "the sweep gives every point its own --db"}
FLAG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
EXAMPLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
BUSY_TIMEOUT_S = 300
SWEEP_TABLE = "sweep_points"
SWEEP_SCHEMA = (
    f"CREATE TABLE {SWEEP_TABLE} ("
    " run_id INTEGER PRIMARY KEY REFERENCES runs (run_id),"
    " point_key TEXT NOT NULL, point_hash TEXT NOT NULL, example TEXT NOT NULL,"
    " host TEXT, point_wall_s REAL, finished_at TEXT)"
)
SWEEP_INDEX = f"CREATE INDEX {SWEEP_TABLE}_key ON {SWEEP_TABLE} (point_key)"


class SweepError(Exception):
    """A problem with the grid, the arguments or a file, reported without a traceback."""


# ----------------------------------------------------------------------------- grid


class Point:
    """One combination of flags: its place in the grid, its key and its files."""

    def __init__(self, index, example, flags):
        self.index = index
        self.example = example
        self.flags = flags  # flag -> command-line text, fixed flags first
        self.key = json.dumps({"example": example, "flags": flags}, sort_keys=True,
                              separators=(",", ":"))
        self.hash = hashlib.sha256(self.key.encode()).hexdigest()[:16]

    def describe(self):
        return " ".join(f"--{name}={value}" for name, value in self.flags.items())

    def command(self, binary, db):
        return [str(binary)] + [f"--{n}={v}" for n, v in self.flags.items()] + [f"--db={db}"]


def flag_text(value):
    """A JSON scalar as the example's command line expects it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class GridFile:
    """Reads a grid file; every error names the file, the line and the field."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.text = self.path.read_text()
        except OSError as error:
            raise SweepError(f"{self.path}: cannot read the grid file: {error.strerror}")
        try:
            self.data = json.loads(self.text, object_pairs_hook=self._no_duplicates)
        except json.JSONDecodeError as error:
            raise SweepError(f"{self.path}:{error.lineno}:{error.colno}: not valid JSON: "
                             f"{error.msg}")
        except SweepError as error:
            raise SweepError(f"{self.path}: {error}")

    @staticmethod
    def _no_duplicates(pairs):
        seen = {}
        for name, value in pairs:
            if name in seen:
                raise SweepError(f"key '{name}' appears twice in one object")
            seen[name] = value
        return seen

    def line_of(self, *names):
        """Line of the quoted names found one after the other, 0 if not found."""
        if not names:
            return 0
        position = 0
        for name in names:
            found = self.text.find(json.dumps(name), position)
            if found < 0:
                return 0
            position = found
        return self.text.count("\n", 0, position) + 1

    def error(self, message, *names):
        line = self.line_of(*names)
        where = f"{self.path}:{line}" if line else str(self.path)
        field = ".".join(names)
        return SweepError(f"{where}: {field}: {message}" if field else f"{where}: {message}")

    def check_flag(self, section, name, value):
        if not FLAG_NAME.match(name):
            raise self.error("not a flag name (letters, digits, '_', '-', '.', ':')",
                             section, name)
        if name in RESERVED_FLAGS:
            raise self.error(f"cannot be set: {RESERVED_FLAGS[name]}", section, name)
        if isinstance(value, bool) or isinstance(value, (int, str)):
            return flag_text(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.error("must be a finite number", section, name)
            return flag_text(value)
        raise self.error(f"a value must be a string, a number or true/false, not "
                         f"{json.dumps(value)}", section, name)

    def points(self):
        data = self.data
        if not isinstance(data, dict):
            raise self.error("the grid file must hold a JSON object with keys "
                             + ", ".join(GRID_KEYS))
        for name in data:
            if name not in GRID_KEYS:
                raise self.error(f"unknown key (expected {', '.join(GRID_KEYS)})", name)
        example = data.get("example")
        if example is None:
            raise self.error("missing key 'example' (the example to run, e.g. "
                             "\"multi-tenant-fat-tree\")")
        if not isinstance(example, str) or not EXAMPLE_NAME.match(example):
            raise self.error("must be the name of an example binary, e.g. "
                             "\"multi-tenant-fat-tree\"", "example")
        if "description" in data and not isinstance(data["description"], str):
            raise self.error("must be a string", "description")
        fixed = data.get("fixed", {})
        grid = data.get("grid", {})
        for section, value in (("fixed", fixed), ("grid", grid)):
            if not isinstance(value, dict):
                raise self.error("must be an object of flag: value", section)
        fixed_flags = {name: self.check_flag("fixed", name, value)
                       for name, value in fixed.items()}
        axes = []
        for name, values in grid.items():
            if name in fixed:
                raise self.error("is also in 'fixed'", "grid", name)
            if not isinstance(values, list) or not values:
                raise self.error("must be a non-empty list of values", "grid", name)
            texts = [self.check_flag("grid", name, value) for value in values]
            for text in texts:
                if texts.count(text) > 1:
                    raise self.error(f"value {text} appears twice", "grid", name)
            axes.append((name, texts))
        names = [name for name, _ in axes]
        result = []
        for index, combination in enumerate(itertools.product(*[t for _, t in axes])):
            flags = dict(fixed_flags)
            flags.update(zip(names, combination))
            result.append(Point(index, example, flags))
        return example, result

    def check_known_flags(self, example, binary, points):
        """Refuse flag names the example does not list in --help (or as global values)."""
        names = [n for n in points[0].flags if "::" not in n] if points else []
        known = example_flags(binary, "--help")
        unknown = [n for n in names if n not in known]
        if not known or not unknown:
            return
        known |= example_flags(binary, "--PrintGlobals")
        for name in unknown:
            if name not in known:
                section = "fixed" if name in self.data.get("fixed", {}) else "grid"
                raise self.error(f"{example} has no flag --{name} (its flags: "
                                 f"{', '.join(sorted(known - HELP_FLAGS - set(RESERVED_FLAGS)))})",
                                 section, name)


HELP_FLAGS = {"PrintGlobals", "PrintGroups", "PrintGroup", "PrintTypeIds", "PrintAttributes",
              "PrintVersion", "PrintHelp"}


def example_flags(binary, option):
    """Flags the example lists for --help or --PrintGlobals (empty if it lists none)."""
    try:
        result = subprocess.run([str(binary), option], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.SubprocessError):
        return set()
    known = set(re.findall(r"^\s+--([A-Za-z][A-Za-z0-9_.-]*)[:=]",
                           result.stdout + result.stderr, re.MULTILINE))
    return known if known - HELP_FLAGS else set()


def parse_selection(text, count):
    """'3', '1,4', '0-9' or a mix: the selected point indices, in order, each once."""
    chosen = []
    for part in text.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise SweepError(f"--point {text}: '{part}' is not an index or a range I-J")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if first > last:
            raise SweepError(f"--point {text}: range {part} is empty")
        if last >= count:
            raise SweepError(f"--point {text}: the grid has {count} points (0 to {count - 1})")
        chosen.extend(i for i in range(first, last + 1) if i not in chosen)
    return chosen


# ------------------------------------------------------------------------ databases


def connect(path):
    uri = f"file:{quote(str(path))}"
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    return connection


def connect_to_read(path):
    """A database only read here: read-only, leaving no -wal or -shm file beside it
    (cli_paths.readonly_uri)."""
    try:
        return connect_readonly(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except PathError as error:
        raise SweepError(str(error)) from None


def quoted(name):
    return '"' + name.replace('"', '""') + '"'


def merged_keys(db):
    """Keys of the points whose runs are in the main database and complete."""
    if not Path(db).exists():
        return set()
    connection = connect_to_read(db)
    try:
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if SWEEP_TABLE not in tables:
            return set()
        keys = {row[0] for row in connection.execute(
            f"SELECT point_key FROM {SWEEP_TABLE} GROUP BY point_key"
            " HAVING min(run_id IN (SELECT run_id FROM runs WHERE status = 'complete'))")}
        connection.check_unchanged()
        return keys
    finally:
        connection.close()


def columns(connection, schema, table):
    return [row[1] for row in connection.execute(
        f"PRAGMA {schema}.table_info({quoted(table)})")]


def run_columns(connection, schema, table):
    """Columns holding a run id: named run_id, or a foreign key to runs."""
    names = [c for c in columns(connection, schema, table) if c == "run_id"]
    for row in connection.execute(f"PRAGMA {schema}.foreign_key_list({quoted(table)})"):
        if row[2] == "runs" and row[3] not in names:
            names.append(row[3])
    return names


def schema_version(connection, schema, tables):
    """The results schema version of a database: schema_version's, 1 for a file of the
    first version (runs but no schema_version), 0 for a file without runs."""
    if "schema_version" in tables:
        row = connection.execute(f"SELECT max(version) FROM {schema}.schema_version").fetchone()
        if row and row[0] is not None:
            return row[0]
    return 1 if "runs" in tables else 0


def merge_file(db, path, point):
    """Copy a finished point file into the main database in one transaction.

    Returns the number of runs merged, 0 when the point was already there.
    """
    try:
        part_uri = readonly_uri(path)[0]
    except PathError as error:
        raise SweepError(str(error)) from None
    connection = connect(db)
    try:
        connection.execute("ATTACH DATABASE ? AS pt", (part_uri,))
        connection.execute("BEGIN IMMEDIATE")
        try:
            merged = merge_attached(connection, path, point)
            connection.execute("COMMIT")
            return merged
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    finally:
        connection.close()


def merge_attached(connection, path, point):
    def names(schema, kind):
        return {row[0]: row[1] for row in connection.execute(
            f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = ?"
            " AND name NOT LIKE 'sqlite_%'", (kind,))}

    part_tables = names("pt", "table")
    if "runs" not in part_tables or SWEEP_TABLE not in part_tables:
        raise SweepError(f"{path}: not a finished point file (no runs or {SWEEP_TABLE})")
    keys = {row[0] for row in connection.execute(f"SELECT point_key FROM pt.{SWEEP_TABLE}")}
    if keys != {point.key}:
        raise SweepError(f"{path}: holds point {sorted(keys)}, expected {point.key}")
    main_tables = names("main", "table")
    main_version = schema_version(connection, "main", main_tables)
    part_version = schema_version(connection, "pt", part_tables)
    if main_version not in (0, part_version):
        # Merging across versions would leave the main file claiming a schema it lacks.
        raise SweepError(f"{path}: results schema version {part_version}, but the main database "
                         f"has version {main_version}; open the main database once with an "
                         "example of the same build (Open migrates it) or merge into a new one")
    if SWEEP_TABLE in main_tables and connection.execute(
            f"SELECT 1 FROM main.{SWEEP_TABLE} WHERE point_key = ?", (point.key,)).fetchone():
        return 0

    # Schema: tables and indexes the main database lacks, columns its tables lack.
    for table, sql in part_tables.items():
        if table not in main_tables:
            connection.execute(sql)
        else:
            have = set(columns(connection, "main", table))
            for row in connection.execute(f"PRAGMA pt.table_info({quoted(table)})"):
                if row[1] not in have:
                    connection.execute(f"ALTER TABLE main.{quoted(table)} ADD COLUMN "
                                       f"{quoted(row[1])} {row[2]}")
    main_indexes = names("main", "index")
    for index, sql in names("pt", "index").items():
        if sql and index not in main_indexes:
            connection.execute(sql)

    # Runs first, each under a new run_id of the main database.
    connection.execute("CREATE TEMP TABLE IF NOT EXISTS run_map"
                       " (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
    connection.execute("DELETE FROM temp.run_map")
    run_cols = [c for c in columns(connection, "pt", "runs") if c != "run_id"]
    col_list = ", ".join(quoted(c) for c in run_cols)
    old_ids = [row[0] for row in connection.execute("SELECT run_id FROM pt.runs ORDER BY run_id")]
    incomplete = [(run_id, state) for run_id, state in run_states(connection, "pt")
                  if state != "complete"]
    if incomplete or not old_ids:
        raise SweepError(f"{path}: runs not complete: {incomplete or 'no runs'}")
    for old in old_ids:
        cursor = connection.execute(f"INSERT INTO main.runs ({col_list}) SELECT {col_list}"
                                    " FROM pt.runs WHERE run_id = ?", (old,))
        connection.execute("INSERT INTO temp.run_map VALUES (?, ?)", (old, cursor.lastrowid))

    for table in part_tables:
        if table == "runs":
            continue
        cols = columns(connection, "pt", table)
        remap = run_columns(connection, "pt", table)
        source_rows = connection.execute(
            f"SELECT count(*) FROM pt.{quoted(table)}").fetchone()[0]
        col_list = ", ".join(quoted(c) for c in cols)
        if not remap:
            # Rows belonging to no run (a lookup table): copied once.
            connection.execute(f"INSERT INTO main.{quoted(table)} ({col_list})"
                               f" SELECT {col_list} FROM pt.{quoted(table)}"
                               f" EXCEPT SELECT {col_list} FROM main.{quoted(table)}")
            continue
        for column in remap:
            orphans = connection.execute(
                f"SELECT count(*) FROM pt.{quoted(table)} WHERE {quoted(column)} IS NOT NULL"
                f" AND {quoted(column)} NOT IN (SELECT old FROM temp.run_map)").fetchone()[0]
            if orphans:
                raise SweepError(f"{path}: table {table} has {orphans} rows whose {column}"
                                 " is not a run of the file")
        select = ", ".join(
            f"(SELECT m.new FROM temp.run_map AS m WHERE m.old = src.{quoted(c)})"
            if c in remap else f"src.{quoted(c)}" for c in cols)
        connection.execute(f"INSERT INTO main.{quoted(table)} ({col_list})"
                           f" SELECT {select} FROM pt.{quoted(table)} AS src")
        # Conservation, checked in the transaction: the new runs hold exactly the rows.
        merged_rows = connection.execute(
            f"SELECT count(*) FROM main.{quoted(table)} WHERE {quoted(remap[0])}"
            " IN (SELECT new FROM temp.run_map)").fetchone()[0]
        expected = connection.execute(
            f"SELECT count(*) FROM pt.{quoted(table)} WHERE {quoted(remap[0])}"
            " IS NOT NULL").fetchone()[0]
        if merged_rows != expected:
            raise SweepError(f"{path}: table {table}: {merged_rows} rows merged of "
                             f"{expected} ({source_rows} in the file)")
    return len(old_ids)


# --------------------------------------------------------------------- point files


class Layout:
    """Where a sweep keeps its points' files."""

    def __init__(self, db, points_dir):
        self.db = Path(db)
        self.dir = Path(points_dir)
        self.host = socket.gethostname().split(".")[0] or "host"

    def finished(self, point):
        return self.dir / f"{point.hash}.db"

    def log(self, point):
        return self.dir / f"{point.hash}.log"

    def part(self, point):
        return self.dir / f"{point.hash}.part-{self.host}-{os.getpid()}.db"

    def remove_stale_parts(self):
        """Partial files of this host whose sweep process is gone (killed before cleanup)."""
        if not self.dir.is_dir():
            return
        pattern = re.compile(r"^[0-9a-f]{16}\.part-" + re.escape(self.host) + r"-(\d+)\.db$")
        for entry in self.dir.iterdir():
            match = pattern.match(entry.name)
            if match and not process_alive(int(match.group(1))):
                remove_db(entry)


def run_states(connection, schema="main"):
    """(run_id, state) of every run of a results database, by run_state."""
    have = set(columns(connection, schema, "runs"))
    extra = ", ".join(c if c in have else "NULL" for c in ("pid", "host"))
    return [(run_id, run_state(status, pid, host)) for run_id, status, pid, host in
            connection.execute(f"SELECT run_id, status, {extra} FROM {schema}.runs"
                               " ORDER BY run_id")]


def remove_file(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def remove_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        remove_file(f"{path}{suffix}")


def fsync_path(path, directory=False):
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def finish_point(layout, point, part, returncode, wall_s):
    """Check a point's exit and runs; make its file a finished one. Returns an error or None."""
    if returncode < 0:
        try:
            return f"killed by signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    if returncode != 0:
        return f"exit status {returncode}"
    if not part.exists():
        return "exit status 0 but no database was written"
    try:
        connection = connect(part)
        try:
            tables = {row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "runs" not in tables:
                return "exit status 0 but no runs table was written"
            runs = run_states(connection)
            if not runs:
                return "exit status 0 but no run was written"
            bad = [f"run {run_id} is '{status}'" for run_id, status in runs
                   if status != "complete"]
            if bad:
                return "exit status 0 but " + ", ".join(bad)
            if SWEEP_TABLE in tables:
                return f"the example wrote a {SWEEP_TABLE} table itself"
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(SWEEP_SCHEMA)
            connection.execute(SWEEP_INDEX)
            connection.executemany(
                f"INSERT INTO {SWEEP_TABLE} (run_id, point_key, point_hash, example, host,"
                " point_wall_s, finished_at) VALUES (?, ?, ?, ?, ?, ?,"
                " strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                [(run_id, point.key, point.hash, point.example, layout.host, wall_s)
                 for run_id, _ in runs])
            connection.execute("COMMIT")
            # One self-contained file: no write-ahead log beside it after the rename.
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            connection.execute("PRAGMA journal_mode = DELETE")
        finally:
            connection.close()
    except sqlite3.Error as error:
        return f"exit status 0 but its database is unreadable: {error}"
    target = layout.finished(point)
    for suffix in ("-wal", "-shm", "-journal"):  # of an older file: must not meet this one
        remove_file(f"{target}{suffix}")
    fsync_path(part)
    os.replace(part, target)
    fsync_path(layout.dir, directory=True)
    return None


class Runner:
    """Runs points as child processes, at most `jobs` at a time."""

    def __init__(self, layout, binary, jobs, timeout, progress):
        self.layout = layout
        self.binary = binary
        self.jobs = jobs
        self.timeout = timeout
        self.progress = progress
        self.running = {}  # Popen -> (point, part, start time, log file)

    def start(self, point):
        part = self.layout.part(point)
        remove_db(part)
        command = point.command(self.binary, part)
        log = open(self.layout.log(point), "w")
        log.write("# " + shlex.join(command) + "\n")
        log.flush()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.running[process] = (point, part, time.monotonic(), log)

    def stop(self, process, sig):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass

    def run(self, points, on_finished):
        """Run points; on_finished(point, error, wall_s) after each (error None on success)."""
        queue = list(points)
        try:
            while queue or self.running:
                while queue and len(self.running) < self.jobs:
                    self.start(queue.pop(0))
                    self.progress.update(running=len(self.running))
                time.sleep(0.05)
                now = time.monotonic()
                for process in list(self.running):
                    point, part, started, log = self.running[process]
                    returncode = process.poll()
                    timed_out = False
                    if returncode is None:
                        if self.timeout and now - started > self.timeout:
                            self.stop(process, signal.SIGKILL)
                            returncode = process.wait()
                            timed_out = True
                        else:
                            continue
                    # Still in self.running until its file is settled: abort() removes
                    # the partial file if an interruption comes in between.
                    log.close()
                    wall = now - started
                    error = (f"timed out after {self.timeout:g} s" if timed_out
                             else finish_point(self.layout, point, part, returncode, wall))
                    if error:
                        remove_db(part)
                    del self.running[process]
                    self.progress.update(running=len(self.running))
                    on_finished(point, error, wall)
        finally:
            self.abort()

    def abort(self):
        """Stop what is still running and remove its partial files."""
        if not self.running:
            return
        # A second Ctrl-C or SIGTERM must not cut the clean-up short.
        handlers = {sig: signal.signal(sig, signal.SIG_IGN)
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.stop_all()
        finally:
            for sig, handler in handlers.items():
                signal.signal(sig, handler)

    def stop_all(self):
        for process in self.running:
            if process.returncode is None:
                self.stop(process, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for process, (point, part, _, log) in self.running.items():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stop(process, signal.SIGKILL)
                process.wait()
            log.close()
            remove_db(part)
        self.running.clear()


# ------------------------------------------------------------------------- progress


def points_text(count):
    return f"{count} point" + ("" if count == 1 else "s")


def duration(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


class Progress:
    """One line: points done of the total, running, failed, and the time left."""

    def __init__(self, total, already, quiet):
        self.total = total
        self.already = already
        self.done = 0
        self.failed = 0
        self.running = 0
        self.quiet = quiet
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = ""

    def line(self):
        left = self.total - self.already - self.done - self.failed
        elapsed = time.monotonic() - self.start
        finished = self.done + self.failed
        eta = duration(elapsed / finished * left) if finished and left else (
            "0s" if not left else "?")
        return (f"sweep: {self.already + self.done}/{self.total} done"
                f" ({self.already} before), {self.running} running, {self.failed} failed,"
                f" elapsed {duration(elapsed)}, ETA {eta}")

    def update(self, running=None, done=0, failed=0):
        if running is not None:
            self.running = running
        self.done += done
        self.failed += failed
        if self.quiet:
            return
        text = self.line()
        if self.tty:
            sys.stderr.write("\r\033[K" + text)
            sys.stderr.flush()
        elif done or failed:
            print(text, file=sys.stderr, flush=True)
        self.shown = text

    def message(self, text):
        if self.tty and not self.quiet:
            sys.stderr.write("\r\033[K")
        print(text, file=sys.stderr, flush=True)
        if self.tty and not self.quiet and self.shown:
            sys.stderr.write(self.shown)
            sys.stderr.flush()

    def close(self):
        if self.tty and not self.quiet and self.shown:
            sys.stderr.write("\n")


def log_tail(path, lines=3):
    try:
        text = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join("    " + line for line in text[1:][-lines:])


# ---------------------------------------------------------------------------- modes


def find_binary(args, example):
    if args.binary:
        binary = Path(args.binary)
        if not (binary.is_file() and os.access(binary, os.X_OK)):
            raise SweepError(f"--binary {binary}: not an executable file")
        return binary.resolve()
    if args.build or os.environ.get("CS_BUILD_DIR"):
        dirs = [Path(args.build or os.environ["CS_BUILD_DIR"])]
    else:
        dirs = [REPO / "build-release", REPO / "build"]
    for directory in dirs:
        binary = directory / example
        if binary.is_file() and os.access(binary, os.X_OK):
            return binary.resolve()
    raise SweepError(f"no executable '{example}' in {', '.join(str(d) for d in dirs)}: "
                     "build the examples, or pass --build DIR or --binary FILE")


def default_jobs():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def report_failure(progress, point, error, layout):
    progress.message(f"sweep: point {point.index} failed ({error}): {point.describe()}\n"
                     f"    log: {layout.log(point)}\n{log_tail(layout.log(point))}")


def merge_point(layout, point, progress):
    """Merge a finished point file; returns whether the point is now in the database."""
    try:
        merge_file(layout.db, layout.finished(point), point)
        return True
    except (SweepError, sqlite3.Error) as error:
        progress.message(f"sweep: point {point.index}: cannot merge "
                         f"{layout.finished(point)}: {error}")
        return False


def run_local(layout, points, binary, args):
    merged = merged_keys(layout.db)
    pending = [p for p in points if p.key not in merged]
    progress = Progress(len(points), len(points) - len(pending), args.quiet)
    layout.dir.mkdir(parents=True, exist_ok=True)
    layout.remove_stale_parts()
    started = time.monotonic()
    failed = []

    # Points finished earlier (by --point, or before an interruption) only need merging.
    to_run = []
    for point in pending:
        if layout.finished(point).exists():
            if merge_point(layout, point, progress):
                progress.update(done=1)
                continue
        to_run.append(point)

    def on_finished(point, error, wall_s):
        if error is None and merge_point(layout, point, progress):
            progress.update(done=1)
            return
        if error is not None:
            report_failure(progress, point, error, layout)
        failed.append(point)
        progress.update(failed=1)

    progress.update()
    Runner(layout, binary, args.jobs, args.timeout, progress).run(to_run, on_finished)
    progress.close()
    print(f"sweep: {points_text(len(points))}: {len(points) - len(pending)} already in {layout.db},"
          f" {progress.done} added, {len(failed)} failed"
          f" ({duration(time.monotonic() - started)})", file=sys.stderr)
    if failed:
        print("sweep: failed points (run the sweep again to retry them): "
              + ",".join(str(p.index) for p in failed), file=sys.stderr)
        return 1
    return 0


def run_selected(layout, points, binary, args):
    """--point: run into the points' own files; the main database is not touched."""
    layout.dir.mkdir(parents=True, exist_ok=True)
    layout.remove_stale_parts()
    try:
        merged = merged_keys(layout.db)
    except sqlite3.Error:  # being written, or on a file system without locks: run anyway
        merged = set()
    to_run = [p for p in points
              if p.key not in merged and not layout.finished(p).exists()]
    # One line per point says it all when a task runs one point.
    progress = Progress(len(points), len(points) - len(to_run), args.quiet or len(points) == 1)
    failed = []

    def on_finished(point, error, wall_s):
        if error is None:
            progress.update(done=1)
            print(f"sweep: point {point.index} finished in {wall_s:.1f} s:"
                  f" {layout.finished(point)}", file=sys.stderr)
        else:
            report_failure(progress, point, error, layout)
            failed.append(point)
            progress.update(failed=1)

    for point in points:
        if point.key in merged:
            print(f"sweep: point {point.index} is already in {layout.db}", file=sys.stderr)
        elif point not in to_run:
            print(f"sweep: point {point.index} already finished: {layout.finished(point)}",
                  file=sys.stderr)
    Runner(layout, binary, args.jobs, args.timeout, progress).run(to_run, on_finished)
    progress.close()
    return 1 if failed else 0


def merge_all(layout, points):
    merged = merged_keys(layout.db)
    added = 0
    missing = []
    progress = Progress(len(points), 0, True)
    for point in points:
        if point.key in merged:
            continue
        if layout.finished(point).exists() and merge_point(layout, point, progress):
            added += 1
        else:
            missing.append(point)
    print(f"sweep: {points_text(len(points))}: {len(points) - added - len(missing)} were already in"
          f" {layout.db}, {added} merged, {len(missing)} not finished", file=sys.stderr)
    if missing:
        print("sweep: not finished: " + ",".join(str(p.index) for p in missing),
              file=sys.stderr)
        return 1
    return 0


def state_of(layout, point, merged):
    if point.key in merged:
        return "merged"
    if layout.finished(point).exists():
        return "finished"
    return "pending"


def unfinished_runs_text(db):
    """'; N abandoned runs, ...' for the main database's runs that are not complete
    (none of them counts as a merged point)."""
    if not Path(db).exists():
        return ""
    connection = connect_to_read(db)
    try:
        if not connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone():
            return ""
        counts = Counter(state for _, state in run_states(connection) if state != "complete")
        connection.check_unchanged()
    finally:
        connection.close()
    return "".join(f"; {n} {state} run{'s' if n != 1 else ''}"
                   for state, n in sorted(counts.items()))


def list_points(layout, points, grid_path):
    merged = merged_keys(layout.db)
    states = [state_of(layout, p, merged) for p in points]
    counts = ", ".join(f"{states.count(s)} {s}" for s in ("merged", "finished", "pending"))
    print(f"# {points_text(len(points))} in {grid_path} ({counts}); database {layout.db}"
          + unfinished_runs_text(layout.db))
    for point, state in zip(points, states):
        print(f"{point.index}\t{state}\t{point.hash}\t{point.describe()}")
    return 0


def print_commands(layout, points, args):
    merged = merged_keys(layout.db)
    base = [str(SCRIPT), str(Path(args.grid).resolve()), "--db", str(layout.db.resolve()),
            "--points-dir", str(layout.dir.resolve())]
    if args.binary:
        base += ["--binary", str(Path(args.binary).resolve())]
    elif args.build:
        base += ["--build", str(Path(args.build).resolve())]
    for point in points:
        if state_of(layout, point, merged) == "pending":
            print(shlex.join(base + ["--jobs", "1", "--point", str(point.index)]))
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="sweep.py", description="Run a grid of simulations into one results database.",
        epilog="See doc/sweeps.md for the grid format and cluster use.")
    parser.add_argument("grid", help="grid file (JSON: example, fixed, grid)")
    parser.add_argument("--db", help="main results database (default: the grid file's name "
                        "with .db, in the current directory)")
    parser.add_argument("--points-dir", help="directory of the per-point files "
                        "(default: DB without .db, plus .points)")
    parser.add_argument("--build", help="build directory holding the example binaries "
                        "(default: $CS_BUILD_DIR, else build-release or build of the module)")
    parser.add_argument("--binary", help="run this executable instead of BUILD/EXAMPLE")
    parser.add_argument("--jobs", "-j", type=int, default=default_jobs(),
                        help="points run at once (default: the CPUs this process may use)")
    parser.add_argument("--timeout", type=float, default=0,
                        help="kill a point after this many seconds and count it failed "
                        "(default: no limit)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true", help="print the number of points")
    mode.add_argument("--list", action="store_true",
                      help="print every point: index, state, hash, flags")
    mode.add_argument("--point", metavar="I[,J,K-L]",
                      help="run only these points into their own files (no merge)")
    mode.add_argument("--commands", action="store_true",
                      help="print one --point command per pending point")
    mode.add_argument("--merge", action="store_true",
                      help="merge the finished point files into the main database")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.timeout < 0:
        parser.error("--timeout must not be negative")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        grid = GridFile(args.grid)
        example, points = grid.points()
        grid_path = Path(args.grid)
        db = Path(args.db) if args.db else Path(grid_path.stem + ".db")
        layout = Layout(db, Path(args.points_dir) if args.points_dir
                        else db.with_name(db.stem + ".points"))
        # What the sweep writes is never what it reads: checked before anything is written.
        outputs = output_file("--db", layout.db) + output_file("--points-dir", layout.dir)
        check_distinct(outputs, input_file(grid_path, "the grid file"))
        if args.count:
            print(len(points))
            return 0
        if args.list:
            return list_points(layout, points, grid_path)
        if args.commands:
            return print_commands(layout, points, args)
        if args.merge:
            return merge_all(layout, points)
        binary = find_binary(args, example)
        check_distinct(outputs, input_file(binary, "the example's binary"))
        grid.check_known_flags(example, binary, points)
        if args.point is not None:
            selected = [points[i] for i in parse_selection(args.point, len(points))]
            return run_selected(layout, selected, binary, args)
        return run_local(layout, points, binary, args)
    except (SweepError, PathError) as error:
        print(f"sweep.py: {error}", file=sys.stderr)
        return 2
    except sqlite3.Error as error:
        print(f"sweep.py: {args.db or 'the main database'}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nsweep.py: interrupted; finished points are kept, run again to resume",
              file=sys.stderr)
        return 130
    except BrokenPipeError:  # --list | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def terminate(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, terminate)
    sys.exit(main())
