# SPDX-License-Identifier: GPL-2.0-only
"""What every figure of plot-figures.py needs: the results database (read-only, checked),
the refusal and skip it raises, the policies' display order and the number formats."""

import sqlite3
import sys

from cli_paths import PathError, connect_readonly
from results_runs import run_state

# Every module that draws imports matplotlib, and exits with this when it is missing.
MATPLOTLIB_MISSING = (f"plot-figures.py needs matplotlib for {sys.executable} "
                      "(Debian: apt-get install python3-matplotlib)")

# Baseline first, the idealized references last; unknown policies go before them.
POLICY_ORDER = ["fair", "cassini", "crux", "mltcp", "symphony", "harmonics"]
REFERENCE_ORDER = ["optimal", "isolated"]


class Refusal(Exception):
    """The database cannot be plotted at all: exit 2 and write nothing."""


class Skip(Exception):
    """One figure cannot be drawn from this database; the others still are."""


# ----------------------------------------------------------------------------- database


class ResultsDb:
    """A results database opened read-only, with the tables it holds."""

    def __init__(self, path):
        self.path = path
        try:
            # Read-only, so a wrong path never creates an empty database, and nothing is
            # left beside the file (cli_paths.readonly_uri).
            self.conn = connect_readonly(path)
            self.tables = {name for (name,) in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except PathError as e:
            raise Refusal(str(e)) from None
        except sqlite3.DatabaseError as e:
            raise Refusal(f"{path}: not an SQLite database ({e})") from None
        if "runs" not in self.tables:
            raise Refusal(f"{path}: not a results database (it has no runs table)")
        missing = {"run_id", "example", "scheduler", "status", "params_json"} - self.columns("runs")
        if missing:
            raise Refusal(f"{path}: not a results database "
                          f"(runs lacks {', '.join(sorted(missing))})")

    def columns(self, table):
        return {row[1] for row in self.conn.execute(f'PRAGMA table_info("{table}")')}

    def require(self, table, columns):
        """Skip the figure unless `table` exists with `columns`."""
        if table not in self.tables:
            raise Skip(f"table {table} is missing")
        missing = set(columns) - self.columns(table)
        if missing:
            raise Skip(f"table {table} lacks column(s) {', '.join(sorted(missing))}")

    def query(self, sql, params=()):
        return self.conn.execute(sql, params).fetchall()

    def rows(self, sql, params=()):
        """The rows of a query one by one, for results too long to hold."""
        return self.conn.execute(sql, params)

    def check_unchanged(self):
        """Refuse if another process changed the file while it was read (what was read
        may then mix two states); call it before writing anything."""
        try:
            self.conn.check_unchanged()
        except sqlite3.OperationalError as e:
            raise Refusal(f"{self.path}: {e}") from None

    def count_runs(self):
        return self.query("SELECT COUNT(*) FROM runs")[0][0]


def check_complete(db, examples):
    """Refuse if any run of `examples` is not complete (abandoned ones named so)."""
    marks = ",".join("?" * len(examples))
    run_columns = db.columns("runs")
    extra = ", ".join(c if c in run_columns else "NULL" for c in ("error", "pid", "host"))
    rows = db.query(
        f"SELECT run_id, example, scheduler, status, {extra}"
        f" FROM runs WHERE example IN ({marks}) AND status IS NOT 'complete' ORDER BY run_id",
        examples)
    if rows:
        lines = []
        for run_id, example, scheduler, status, error, pid, host in rows:
            state = run_state(status, pid, host)
            line = f"  run {run_id} (example {example}, scheduler {scheduler}): status {state!r}"
            if state == "abandoned":
                line += f" (process {pid} on {host} is gone)"
            if error:
                line += f", error: {error}"
            lines.append(line)
        raise Refusal(f"{db.path}: {len(rows)} run(s) of the selected figures are not complete; "
                      "rerun or delete them:\n" + "\n".join(lines))


def policy_key(name):
    if name in POLICY_ORDER:
        return (0, POLICY_ORDER.index(name), "")
    if name in REFERENCE_ORDER:
        return (2, REFERENCE_ORDER.index(name), "")
    return (1, 0, name)


# ----------------------------------------------------------------------------- formatting


def fmt_time(ns):
    """A duration in ns, in the unit that keeps it readable."""
    if ns is None:
        return "n/a"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
        if abs(ns) >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def fmt_change(ratio):
    """Relative change from a ratio to the baseline: 0.75 -> '-25.0%'."""
    return "n/a" if ratio is None else f"{(ratio - 1) * 100:+.1f}%"


def fmt_ratio(ratio):
    return "n/a" if ratio is None else f"{ratio:.3f}"


def fmt_speedup(speedup):
    if speedup is None:
        return "n/a"
    return f"{speedup:.0f}x" if speedup >= 10 else f"{speedup:.2g}x"


# ----------------------------------------------------------------------------- statistics


def mean(values):
    return sum(values) / len(values) if values else None


def median(values):
    values = sorted(values)
    if not values:
        return None
    m = len(values) // 2
    return values[m] if len(values) % 2 else (values[m - 1] + values[m]) / 2


def job_training_times(db, example, complete_only=False, isolated_min=True):
    """(policy, run_id, job_id, model, end - arrival in ns) for every job of the example's
    runs (only complete runs if complete_only), in run and job order; refuses a job that
    did not finish or ends before it arrives.

    'isolated' runs each job alone twice, under ECMP and on its best routes (their
    params_json's scheduler_params.Routes, 'ecmp' and 'best'); with isolated_min only the
    faster of a job's isolated runs is given (isolated_choice), the job's isolated time."""
    status = " AND r.status = 'complete'" if complete_only else ""
    rows = []
    for policy, run_id, job_id, model, arrival, end, seed in db.query(
            "SELECT r.scheduler, j.run_id, j.job_id, j.model, j.arrival_ns, j.end_ns, r.seed"
            " FROM jobs j JOIN runs r ON r.run_id = j.run_id WHERE r.example = ?" + status +
            " ORDER BY j.run_id, j.job_id", (example,)):
        where = f"run {run_id} ({example}, {policy}) job {job_id}"
        if arrival is None or end is None:
            raise Refusal(f"{db.path}: {where} has no end_ns: the job did not finish, so its "
                          "training time is undefined")
        if end < arrival:
            raise Refusal(f"{db.path}: {where} ends (end_ns {end}) before it arrives "
                          f"(arrival_ns {arrival})")
        rows.append((policy, run_id, job_id, model, end - arrival, seed))
    chosen = _fastest_isolated(rows) if isolated_min else None
    for policy, run_id, job_id, model, ns, _ in rows:
        if chosen is not None and policy == ISOLATED and (run_id, job_id) not in chosen:
            continue
        yield policy, run_id, job_id, model, ns


# The policy whose runs are each job alone: two per job (under ECMP, on its best routes).
ISOLATED = "isolated"


def _fastest_isolated(rows):
    """{(run_id, job_id)} of the isolated rows (policy, run_id, job_id, model, ns, seed) that
    stand for their job: per (seed, job id), the lowest training time, the first run on a
    tie (ECMP's: its runs come first)."""
    best = {}
    for policy, run_id, job_id, _, ns, seed in rows:
        if policy != ISOLATED:
            continue
        key = (seed, job_id)
        if key not in best or ns < best[key][0]:
            best[key] = (ns, run_id)
    return {(run_id, job_id) for (_, job_id), (_, run_id) in best.items()}


def isolated_choice(db, example, complete_only=False):
    """{(run_id, job_id)} of the example's isolated runs that give each job its isolated
    time: of its runs alone (under ECMP and on its best routes) the faster, per seed and
    job id. The job's other rows (iterations, iteration_times) are to be read from that run
    only."""
    return {(run_id, job_id) for policy, run_id, job_id, _, _ in
            job_training_times(db, example, complete_only) if policy == ISOLATED}
