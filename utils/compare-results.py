#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare the simulated results of two SQLite result databases.

Usage: utils/compare-results.py BEFORE.db AFTER.db

Every table both files hold is compared row by row, in run order, with the
columns that measure the machine rather than the model left out: wall
times, timestamps, the event count (a change of how the simulator is driven
may change it without changing any result), scheduler timings, the process
and host that wrote a run, and run ids (only their order matters). What remains (a run's end time and packet-hops,
every flow, link, job, iteration, gate and decision row) must be identical.
Prints each difference found and exits 1 if there is any, 0 if none; 2 when a file
is missing or cannot be read. Both files are only read (read-only, nothing left beside
them).
"""

import json
import sqlite3
import sys
from pathlib import Path

# The scripts' shared modules sit beside this one.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import PathError, connect_readonly  # noqa: E402

# Columns that depend on the machine or on the wall clock, per table.
IGNORED = {
    "runs": {"run_id", "started_at", "finished_at", "wall_s", "events", "pid", "host"},
    "scheduler_decisions": {"wall_us"},
    "scheduler_runs": {"total_wall_us", "max_wall_us"},
    "scheduler_timing": {"total_us", "mean_us", "max_us"},
}
# Keys of JSON text columns (scheduler decisions' details) that hold wall-clock
# times: the planners report how long they took beside what they decided.
WALL_KEYS = {"wall_us", "scheduling_us", "solve_wall_us", "bound_wall_s"}
SKIPPED_TABLES = {"sqlite_sequence"}


def without_wall_times(value):
    if isinstance(value, dict):
        return {k: without_wall_times(v) for k, v in value.items() if k not in WALL_KEYS}
    if isinstance(value, list):
        return [without_wall_times(v) for v in value]
    return value


def normalized(value):
    """A JSON text with its wall-clock keys removed; other values as they are."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.dumps(without_wall_times(json.loads(value)), sort_keys=True)
        except ValueError:
            return value
    return value


def tables(db):
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows if name not in SKIPPED_TABLES}


def columns(db, table):
    return [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]


def run_order(db):
    """run_id -> position (0, 1, ...), so two files' runs pair up by order."""
    ids = [r for (r,) in db.execute("SELECT run_id FROM runs ORDER BY run_id")]
    return {r: i for i, r in enumerate(ids)}


def rows(db, table, order):
    has_run = "run_id" in columns(db, table)
    cols = [c for c in columns(db, table)
            if c not in IGNORED.get(table, set()) and c != "run_id"]
    select = ", ".join(f'"{c}"' for c in cols)
    if has_run:
        select += ", run_id"
    out = []
    for row in db.execute(f'SELECT {select} FROM "{table}"'):
        row = tuple(normalized(v) for v in row)
        if has_run:
            row = (order.get(row[-1], row[-1]),) + row[:-1]
        out.append(row)
    # A stable order that does not depend on insertion: sort by every field
    # (None first, then numbers, then text).
    out.sort(key=lambda r: [(v is not None, isinstance(v, str), v if v is not None else 0)
                            for v in r])
    return ((("run",) if has_run else ()) + tuple(cols)), out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        before, after = connect_readonly(argv[1]), connect_readonly(argv[2])
        differences = compare(before, after)
        for path, db in ((argv[1], before), (argv[2], after)):
            try:
                db.check_unchanged()
            except sqlite3.OperationalError as e:
                raise PathError(f"{path}: {e}") from None
    except PathError as e:
        print(f"compare-results.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"compare-results.py: cannot read {argv[1]} and {argv[2]}: {e}", file=sys.stderr)
        return 2
    print("identical" if differences == 0 else f"{differences} table(s) differ")
    return 1 if differences else 0


def compare(before, after):
    """Print each difference of two databases; returns the number of tables that differ."""
    differences = 0
    t_before, t_after = tables(before), tables(after)
    for t in sorted(t_before ^ t_after):
        print(f"table {t}: only in {'BEFORE' if t in t_before else 'AFTER'}")
        differences += 1
    order_b, order_a = run_order(before), run_order(after)
    for t in sorted(t_before & t_after):
        head_b, rows_b = rows(before, t, order_b)
        head_a, rows_a = rows(after, t, order_a)
        if head_b != head_a:
            print(f"table {t}: columns differ: {head_b} vs {head_a}")
            differences += 1
            continue
        if rows_b == rows_a:
            print(f"table {t}: {len(rows_b)} rows identical")
            continue
        differences += 1
        print(f"table {t}: {len(rows_b)} rows before, {len(rows_a)} after; differences:")
        set_b, set_a = set(rows_b), set(rows_a)
        shown = 0
        for r in rows_b:
            if r not in set_a and shown < 10:
                print(f"  - {dict(zip(head_b, r))}")
                shown += 1
        shown = 0
        for r in rows_a:
            if r not in set_b and shown < 10:
                print(f"  + {dict(zip(head_a, r))}")
                shown += 1
    return differences


if __name__ == "__main__":
    sys.exit(main(sys.argv))
