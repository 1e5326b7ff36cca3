#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""One run of a results database as a timeline in Chrome's trace-event JSON format, which
Perfetto's UI (https://ui.perfetto.dev) and chrome://tracing open.

    utils/timeline.py DB --run N --out FILE [--jobs 0,3] [--from TIME] [--to TIME]
                      [--max-events N] [--no-counters]

TIME is a number of nanoseconds, or a number with a unit: ns, us, ms or s (1.5ms).

The trace holds one process per job, with a thread per group of ranks running the ops of
op_spans (split into lanes where ops of different streams overlap), and the threads
"collectives" (as executed), "plan" (as planned), "gate" (while the scheduler held the
job's gate closed) and "iterations"; a process "scheduler" with its decisions as instant
events (those announcing a plan on a thread "plans"); and a process "fabric" with counter
tracks: each directed link's utilization (all jobs' bytes) and each switch port's queue
depth. A table the database lacks (an older build's) only leaves its part out; the summary
line says which.

--jobs keeps those jobs' processes and the scheduler decisions about them (and those about
no job); the fabric's counters stay those of the whole fabric. --from and --to keep the
events that overlap the window, whole. A trace over --max-events is refused, not cut.

Times are written in microseconds with three decimals, exact to the nanosecond
(round(ts * 1000) is the database's value). The same database gives the same bytes.

The database is only read, and nothing is left beside it (cli_paths.py). The fabric's
counters are read as they are written into the trace, so a trace over --max-events is
counted, to be refused, without holding it.

Exit status: 0 when the file is written; 2, with a one-line message and nothing written,
for a missing or foreign file, an unknown run or job, a bad flag value, an empty
selection or a trace over --max-events; and, before the database is read, for an --out
that is the database (another name of it, or a file SQLite keeps beside it) or that
cannot be written.
"""

import argparse
import itertools
import json
import os
import re
import sqlite3
import sys
import tempfile
from collections import namedtuple
from decimal import Decimal, InvalidOperation
from pathlib import Path

# The scripts' shared modules sit beside this one.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import (PathError, check_distinct, check_output_file,  # noqa: E402
                       connect_readonly, input_database, output_file)

DEFAULT_MAX_EVENTS = 1_000_000

# Process ids: the scheduler and the fabric first, job J as JOB_PID_BASE + J.
SCHEDULER_PID = 1
FABRIC_PID = 2
JOB_PID_BASE = 100

# The columns each table must have for its part of the trace (besides run_id); a table
# missing or lacking one of them leaves that part out.
TABLES = {
    "jobs": ("job_id", "model", "workers"),
    "iterations": ("job_id", "iter", "compute_start_ns", "comm_ready_ns", "comm_start_ns",
                   "comm_end_ns"),
    "iteration_times": ("job_id", "iter", "end_ns", "compute_ns", "overlapped_ns",
                        "exposed_dp_ns", "exposed_tp_ns", "exposed_pp_ns", "exposed_ep_ns",
                        "exposed_other_ns", "gate_wait_ns", "bubble_ns"),
    "collectives": ("job_id", "iteration", "ready_ns", "start_ns", "finish_ns", "route",
                    "planned_start_ns", "planned_finish_ns", "planned_route", "estimate_ns"),
    "gates": ("t_ns", "job_id", "open"),
    "scheduler_decisions": ("t_ns", "kind", "job_id", "detail_json", "wall_us"),
    "op_spans": ("job_id", "iteration", "op", "kind", "name", "grp", "algorithm", "bytes",
                 "ranks", "planned", "ready_ns", "start_ns", "end_ns"),
    "links": ("link_id", "node_a", "node_b", "rate_bps"),
    "link_samples": ("link_id", "direction", "job_id", "t_ns", "tx_bytes"),
    "port_samples": ("node_id", "port", "t_ns", "class", "queue_bytes"),
}
COUNTER_TABLES = ("links", "link_samples", "port_samples")
BREAKDOWN = TABLES["iteration_times"][3:]
# Where the sampling intervals are in runs.params_json (the first key present wins).
LINK_INTERVAL_KEYS = ("linkSampleIntervalNs", "sample_interval_ns")
PORT_INTERVAL_KEYS = ("monitorIntervalNs",)
GROUP_ORDER = ("dp", "tp", "pp", "ep")

TIME_UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}
TIME_PATTERN = re.compile(r"\s*(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)\s*(ns|us|ms|s)?\s*")

# A slice of a thread: start and end in ns (end None: an instant event).
Slice = namedtuple("Slice", "start end name args")
# A thread before it is laid out: a name and its units, each a list of slices that share a
# lane (an op and its wait before it).
Track = namedtuple("Track", "name units")


class TimelineError(Exception):
    """A user error (file, run, job, flag, selection, size): exit 2, write nothing."""


class TooManyEvents(Exception):
    """Past max_events, when the events are not to be counted to the end."""


# ----------------------------------------------------------------------------- times


def parse_time(text, flag="time"):
    """'1.5ms' -> 1500000: a whole number of nanoseconds."""
    match = TIME_PATTERN.fullmatch(text)
    if not match:
        raise TimelineError(f"{flag}: {text!r} is not a time (a number of ns, or a number "
                            "with a unit: ns, us, ms, s)")
    try:
        ns = Decimal(match[1]) * TIME_UNITS[match[2] or "ns"]
    except InvalidOperation:
        raise TimelineError(f"{flag}: {text!r} is not a time") from None
    if ns != ns.to_integral_value():
        raise TimelineError(f"{flag}: {text!r} is not a whole number of nanoseconds")
    return int(ns)


def us(ns):
    """ns as the format's microseconds: a float that converts back to exactly ns."""
    value = round(ns / 1000, 3)
    if round(value * 1000) != ns:
        raise TimelineError(f"time {ns} ns cannot be written exactly in microseconds")
    return value


def fmt_ns(ns):
    """A time in ns, exact, with a readable form beside it when it is large."""
    for scale, unit in ((10**9, "s"), (10**6, "ms"), (10**3, "us")):
        if abs(ns) >= scale:
            return f"{ns} ns ({ns / scale:.6g} {unit})"
    return f"{ns} ns"


def id_list(ids):
    """[0, 1, 2, 5] -> '0-2, 5'."""
    ids = sorted(ids)
    parts = []
    for i in ids:
        if parts and parts[-1][1] == i - 1:
            parts[-1][1] = i
        else:
            parts.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts) or "none"


# ----------------------------------------------------------------------------- database


def open_db(path):
    """The results database at path, read-only (cli_paths.connect_readonly: nothing is
    left beside it); a TimelineError if it is not one."""
    try:
        conn = connect_readonly(path)
        conn.execute("SELECT name FROM sqlite_master").fetchall()
    except PathError as e:
        raise TimelineError(str(e)) from None
    except sqlite3.DatabaseError as e:
        raise TimelineError(f"{path}: not an SQLite database ({e})") from None
    return conn


class Run:
    """One run of a results database: its runs row, and which tables the trace can use."""

    def __init__(self, conn, run_id):
        self.conn = conn
        self.run_id = run_id
        self.columns = {}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            self.columns[table] = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
        runs = self.columns.get("runs", set())
        if "runs" not in self.columns or not {"run_id", "params_json"} <= runs:
            raise TimelineError("not a results database (it has no runs table with run_id "
                                "and params_json)")
        cursor = conn.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,))
        row = cursor.fetchone()
        if row is None:
            ids = [r for (r,) in conn.execute("SELECT run_id FROM runs")]
            raise TimelineError(f"no run {run_id} (its runs: {id_list(ids)})")
        self.row = dict(zip((d[0] for d in cursor.description), row))
        try:
            self.params = json.loads(self.row["params_json"] or "{}")
        except ValueError:
            self.params = None
        self.missing = []  # the tables (or columns) the trace could not use

    def has(self, table):
        """Whether table exists with the columns its part needs; if not, note it missing."""
        if table not in self.columns:
            note = table
        else:
            missing = {"run_id", *TABLES[table]} - self.columns[table]
            if not missing:
                return True
            note = f"{table} (no column {', '.join(sorted(missing))})"
        if note not in self.missing:
            self.missing.append(note)
        return False

    def query(self, sql, params=()):
        return self.conn.execute(sql, (self.run_id, *params)).fetchall()

    def param_ns(self, keys):
        """The first of keys present in params_json as a positive number of ns, else None."""
        if isinstance(self.params, dict):
            for key in keys:
                value = self.params.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                    return int(value)
        return None

    def job_ids(self):
        """Every job the run knows of, from whichever tables name it."""
        ids = set()
        for table in ("jobs", "iterations", "collectives", "gates", "op_spans"):
            if table in self.columns and "job_id" in self.columns[table]:
                ids.update(j for (j,) in self.query(
                    f"SELECT DISTINCT job_id FROM {table} WHERE run_id = ?") if j is not None)
        return sorted(ids)

    def end_ns(self):
        """When the run ended: runs.sim_end_ns, else (a run killed) its last known time."""
        if self.row.get("sim_end_ns") is not None:
            return int(self.row["sim_end_ns"])
        last = 0
        for table, column in (("jobs", "end_ns"), ("iterations", "comm_end_ns"),
                              ("iteration_times", "end_ns"), ("collectives", "finish_ns"),
                              ("collectives", "ready_ns"), ("gates", "t_ns"),
                              ("scheduler_decisions", "t_ns"), ("link_samples", "t_ns"),
                              ("op_spans", "end_ns"), ("port_samples", "t_ns")):
            if column in self.columns.get(table, ()):
                (value,) = self.query(f"SELECT MAX({column}) FROM {table} WHERE run_id = ?")[0]
                last = max(last, int(value or 0))
        return last


def min_gap(run, table, keys):
    """The smallest gap between two distinct times (t_ns) of one series of the run's rows
    of table (a series: the rows that agree on the columns keys), or None; in SQL, so
    that no series is held whole."""
    columns = ", ".join(keys)
    (gap,) = run.query(f"SELECT MIN(t_ns - previous) FROM (SELECT t_ns, LAG(t_ns) OVER"
                       f" (PARTITION BY {columns} ORDER BY t_ns) AS previous FROM"
                       f" (SELECT DISTINCT {columns}, t_ns FROM {table} WHERE run_id = ?))"
                       " WHERE previous IS NOT NULL")[0]
    return gap


def series(cursor, width):
    """(key, its rows without the key) per run of rows of cursor whose first `width`
    columns agree, each row read as it is needed."""
    for key, rows in itertools.groupby(cursor, key=lambda row: row[:width]):
        yield key, (row[width:] for row in rows)


def with_next(points):
    """(point, the next point or None) for each point."""
    previous = None
    for point in points:
        if previous is not None:
            yield previous, point
        previous = point
    if previous is not None:
        yield previous, None


# ----------------------------------------------------------------------------- the trace


def assign_lanes(units):
    """A lane per unit such that no two units of a lane overlap: the format wants the slices
    of one thread nested, and ops of different streams on the same ranks overlap."""
    ends = []
    lanes = []
    for start, end in units:
        for lane, lane_end in enumerate(ends):
            if lane_end <= start:
                break
        else:
            lane = len(ends)
            ends.append(end)
        ends[lane] = end
        lanes.append(lane)
    return lanes


def slice_end(s):
    return s.start if s.end is None else s.end


def unit_end(unit):
    return max(slice_end(s) for s in unit)


class Trace:
    """The events of the selection, counted as they are added; past max_events they are
    only counted, so that a refused trace states its size without holding it all (or,
    without count_all, the first one past max_events raises TooManyEvents)."""

    def __init__(self, t_from, t_to, max_events, count_all=True):
        self.t_from = t_from
        self.t_to = t_to
        self.max_events = max_events
        self.count_all = count_all
        self.count = 0
        self.content = 0  # events other than metadata
        self.events = []
        self.first = None
        self.last = None

    def overlaps(self, start, end):
        return ((self.t_from is None or end >= self.t_from)
                and (self.t_to is None or start <= self.t_to))

    def add(self, event, start=None, end=None):
        self.count += 1
        if event["ph"] != "M":
            self.content += 1
            self.first = start if self.first is None else min(self.first, start)
            self.last = end if self.last is None else max(self.last, end)
        if self.count <= self.max_events:
            self.events.append(event)
        elif not self.count_all:
            raise TooManyEvents

    def metadata(self, pid, tid, name, args):
        self.add({"name": name, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": args})

    def slice(self, pid, tid, s):
        if s.end is None:
            event = {"name": s.name, "ph": "i", "ts": us(s.start), "pid": pid, "tid": tid,
                     "s": "t"}
        else:
            event = {"name": s.name, "ph": "X", "ts": us(s.start), "dur": us(s.end - s.start),
                     "pid": pid, "tid": tid}
        if s.args:
            event["args"] = s.args
        self.add(event, s.start, slice_end(s))

    def process(self, pid, name, sort_index, tracks):
        """Emit a process's threads: the slices that overlap the window, each track in as
        many lanes (threads) as its overlaps need. Nothing when no slice is left."""
        threads = []
        for track in tracks:
            units = []
            for unit in track.units:
                kept = [s for s in unit if self.overlaps(s.start, slice_end(s))]
                if kept:
                    units.append(kept)
            units.sort(key=lambda u: (u[0].start, unit_end(u), u[0].name))
            lanes = assign_lanes([(u[0].start, unit_end(u)) for u in units])
            for lane in range(max(lanes, default=-1) + 1):
                lane_name = track.name if lane == 0 else f"{track.name} ({lane + 1})"
                threads.append((lane_name, [u for u, n in zip(units, lanes) if n == lane]))
        if not threads:
            return
        self.metadata(pid, 0, "process_name", {"name": name})
        self.metadata(pid, 0, "process_sort_index", {"sort_index": sort_index})
        for tid, (thread_name, units) in enumerate(threads, start=1):
            self.metadata(pid, tid, "thread_name", {"name": thread_name})
            self.metadata(pid, tid, "thread_sort_index", {"sort_index": tid})
            for unit in units:
                for s in unit:
                    self.slice(pid, tid, s)

    def counters(self, pid, name, sort_index, tracks):
        """Emit counter tracks (name, arg, (t_ns, value) in time order, each value holding
        until the next point): the points that overlap the window, for the tracks not all 0
        there. Tracks and points are consumed as they come, never held whole: a track's
        points are held only until its first value above 0."""
        shown_any = False
        for track_name, arg, points in tracks:
            held = []  # while held, the track may still be all 0 in the window
            for (t, value), following in with_next(points):
                if not self.overlaps(t, t if following is None else following[0]):
                    continue
                event = {"name": track_name, "ph": "C", "ts": us(t), "pid": pid, "tid": 0,
                         "args": {arg: value}}
                if held is None:
                    self.add(event, t, t)
                    continue
                held.append((event, t))
                if value > 0:
                    if not shown_any:
                        shown_any = True
                        self.metadata(pid, 0, "process_name", {"name": name})
                        self.metadata(pid, 0, "process_sort_index", {"sort_index": sort_index})
                        self.metadata(pid, 0, "thread_name", {"name": "counters"})
                    for held_event, held_t in held:
                        self.add(held_event, held_t, held_t)
                    held = None


def event_order(event):
    """Sort key: (pid, tid, ts, name), a thread's metadata first, then the rest of the
    event so that ties are ordered too."""
    return (event["pid"], event["tid"], event["ph"] != "M", event["ts"], event["name"],
            event["ph"], event.get("dur", 0), json.dumps(event.get("args"), sort_keys=True))


# ----------------------------------------------------------------------------- job threads


def gate_intervals(run, end_ns):
    """Per job, the [closed, opened] intervals of its gate; one still closed at the end
    closes at end_ns. A close while closed (or an open while open) changes nothing."""
    intervals = {}
    closed_since = {}
    for t, job, is_open in run.query("SELECT t_ns, job_id, open FROM gates WHERE run_id = ?"
                                     " ORDER BY t_ns, rowid"):
        if not is_open and job not in closed_since:
            closed_since[job] = t
        elif is_open and job in closed_since:
            intervals.setdefault(job, []).append((closed_since.pop(job), t, False))
    for job, t in closed_since.items():
        intervals.setdefault(job, []).append((t, max(t, end_ns), True))
    return intervals


def gate_track(intervals):
    slices = [Slice(closed, opened, "gate closed",
                    {"closed_ns": closed, "opened_ns": None if at_end else opened,
                     "closed_at_end": at_end})
              for closed, opened, at_end in intervals if opened > closed]
    return Track("gate", [[s] for s in slices])


def iteration_track(run, job):
    """An iteration from its compute start to its end: iteration_times.end_ns, else the
    next iteration's start, else its communication's end."""
    breakdown = run.has("iteration_times")
    columns = ", ".join(f"t.{c}" for c in ("end_ns", *BREAKDOWN)) if breakdown else "NULL"
    join = (" LEFT JOIN iteration_times t ON t.run_id = i.run_id AND t.job_id = i.job_id"
            " AND t.iter = i.iter") if breakdown else ""
    rows = run.query(f"SELECT i.iter, i.compute_start_ns, i.comm_ready_ns, i.comm_start_ns,"
                     f" i.comm_end_ns, {columns} FROM iterations i{join}"
                     " WHERE i.run_id = ? AND i.job_id = ? ORDER BY i.iter", (job,))
    units = []
    for k, (it, start, ready, comm_start, comm_end, *times) in enumerate(rows):
        following = rows[k + 1][1] if k + 1 < len(rows) else None
        end_ns = times[0] if breakdown else None
        end = next((t for t in (end_ns, following, comm_end) if t is not None), None)
        if start is None or end is None or end < start:
            continue
        args = {"iteration": it, "comm_ready_ns": ready, "comm_start_ns": comm_start,
                "comm_end_ns": comm_end, "end_ns": end_ns}
        if breakdown and end_ns is not None:
            args.update(zip(BREAKDOWN, times[1:]))
        units.append([Slice(start, end, f"iteration {it}", args)])
    return Track("iterations", units)


def collective_tracks(run, job):
    """The "collectives" thread (as executed) and the "plan" thread (as planned)."""
    executed, planned = [], []
    for (it, ready, start, finish, route, p_start, p_finish, p_route, estimate) in run.query(
            "SELECT iteration, ready_ns, start_ns, finish_ns, route, planned_start_ns,"
            " planned_finish_ns, planned_route, estimate_ns FROM collectives"
            " WHERE run_id = ? AND job_id = ? ORDER BY iteration", (job,)):
        args = {"iteration": it, "ready_ns": ready, "start_ns": start, "finish_ns": finish,
                "route": route, "planned_start_ns": p_start, "planned_finish_ns": p_finish,
                "planned_route": p_route, "estimate_ns": estimate}
        if start is not None and finish is not None:
            executed.append([Slice(start, finish, f"collective {it}", args)])
        else:
            executed.append([Slice(ready, None, "collective not finished", args)])
        if p_start is not None and p_finish is not None:
            planned.append([Slice(p_start, p_finish, f"planned {it}", args)])
    tracks = [Track("collectives", executed)]
    if planned:
        tracks.append(Track("plan", planned))
    return tracks


def rank_order(ranks):
    """'0-7,16-23' sorts by its first rank."""
    first = re.match(r"\d+", ranks or "")
    return (int(first[0]) if first else -1, ranks or "")


def op_label(name, kind, grp, algorithm):
    """An op's name, else its group and what it does: 'dp ring-all-reduce', 'compute'."""
    if name:
        return name
    what = algorithm or kind
    return what if grp in (None, "none") else f"{grp} {what}"


def group_key(grp):
    """dp, tp, pp, ep, then any other group by name."""
    return (GROUP_ORDER.index(grp) if grp in GROUP_ORDER else len(GROUP_ORDER), grp)


def op_tracks(run, job, gates):
    """A thread per group of ranks: its ops of op_spans, each after the wait (ready to
    start) that held it, if any."""
    by_ranks = {}
    groups = {}
    for (it, op, kind, name, grp, algorithm, size, ranks, planned, ready, start,
         end) in run.query("SELECT iteration, op, kind, name, grp, algorithm, bytes, ranks,"
                           " planned, ready_ns, start_ns, end_ns FROM op_spans"
                           " WHERE run_id = ? AND job_id = ? ORDER BY iteration, op", (job,)):
        label = op_label(name, kind, grp, algorithm)
        args = {"kind": kind, "group": grp, "algorithm": algorithm, "bytes": size,
                "planned": bool(planned), "ready_ns": ready, "start_ns": start,
                "end_ns": end, "iteration": it, "op": op}
        if start is None or end is None:
            at = ready if start is None else start
            if at is None:
                continue  # never ready: no time to show it at
            unit = [Slice(at, None, f"{label} not finished", args)]
        else:
            unit = [Slice(start, end, label, args)]
            if ready is not None and start > ready:
                # The op was ready but had to wait: for its stream's earlier ops, or, for a
                # planned op, for the gate if the gate was closed meanwhile.
                why = ["stream"]
                if planned and any(c < start and o > ready for c, o, _ in gates):
                    why.append("gate")
                unit.insert(0, Slice(ready, start, "waiting",
                                     {"op": label, "iteration": it, "wait_ns": start - ready,
                                      "candidates": why}))
        by_ranks.setdefault(ranks, []).append(unit)
        if grp and grp != "none":
            groups.setdefault(ranks, set()).add(grp)
    tracks = []
    for ranks in sorted(by_ranks, key=rank_order):
        seen = sorted(groups.get(ranks, ()), key=group_key)
        name = f"ranks {ranks}" + (f" ({', '.join(seen)})" if seen else "")
        tracks.append(Track(name, by_ranks[ranks]))
    return tracks


def job_names(run, jobs):
    """'job J: MODEL (N GPUs)' per job, with what the jobs table knows."""
    known = {}
    if run.has("jobs"):
        known = {j: (model, workers) for j, model, workers in run.query(
            "SELECT job_id, model, workers FROM jobs WHERE run_id = ?")}
    names = {}
    for job in jobs:
        model, workers = known.get(job, (None, None))
        name = f"job {job}" + (f": {model}" if model else "")
        names[job] = name + (f" ({workers} GPUs)" if workers is not None else "")
    return names


def add_jobs(trace, run, jobs, end_ns):
    names = job_names(run, jobs)
    gates = gate_intervals(run, end_ns) if run.has("gates") else {}
    has_iterations = run.has("iterations")
    has_ops = run.has("op_spans")
    has_collectives = run.has("collectives")
    for position, job in enumerate(jobs):
        tracks = []
        if has_iterations:
            tracks.append(iteration_track(run, job))
        if has_ops:
            tracks += op_tracks(run, job, gates.get(job, []))
        if has_collectives:
            tracks += collective_tracks(run, job)
        tracks.append(gate_track(gates.get(job, [])))
        trace.process(JOB_PID_BASE + job, names[job], 10 + position, tracks)


# ----------------------------------------------------------------------------- scheduler


def decision_args(detail_json, wall_us):
    """The decision's detail_json as args, with the row's wall_us."""
    try:
        # Non-finite numbers (NaN) become null: JSON has no way to write them.
        detail = json.loads(detail_json, parse_constant=lambda name: None)
    except (TypeError, ValueError):
        detail = {"detail_json": detail_json}
    args = detail if isinstance(detail, dict) else {"detail": detail}
    args["wall_us" if "wall_us" not in args else "row_wall_us"] = wall_us
    return args


def add_scheduler(trace, run, jobs, sort_index):
    if not run.has("scheduler_decisions"):
        return
    selected = set(jobs)
    decisions, plans = [], []
    for t, kind, job, detail_json, wall_us in run.query(
            "SELECT t_ns, kind, job_id, detail_json, wall_us FROM scheduler_decisions"
            " WHERE run_id = ? ORDER BY t_ns, rowid"):
        if job is not None and job not in selected:
            continue
        name = kind if job is None else f"{kind} job {job}"
        # A plan's announcements (plan-ready, planned-start) on a thread of their own.
        target = plans if "plan" in kind else decisions
        target.append([Slice(t, None, name, decision_args(detail_json, wall_us))])
    trace.process(SCHEDULER_PID, "scheduler", sort_index,
                  [Track("decisions", decisions), Track("plans", plans)])


# ----------------------------------------------------------------------------- fabric


def step_points(samples, hold):
    """The points of a step function from samples (start, value) sorted by start, each
    holding for `hold` ns (None: until the next): back to 0 after a gap, changes only;
    yielded as the samples are read."""
    first = True
    last = None  # the last point's value
    end = None
    for start, value in samples:
        if end is not None and start > end and last != 0:
            yield (end, 0)
            last = 0
        if first or last != value:
            yield (start, value)
            first, last = False, value
        end = start + hold if hold else None
    if end is not None and last != 0:
        yield (end, 0)


def has_rows(run, table):
    return bool(run.query(f"SELECT 1 FROM {table} WHERE run_id = ? LIMIT 1"))


def fabric_rows(run, table):
    """The SQL condition that keeps a sample table's fabric rows: since schema 7 the
    NVSwitch ports' rows (kind 'nvswitch') share link_samples and port_samples."""
    return " AND kind = 'fabric'" if "kind" in run.columns.get(table, set()) else ""


def link_counters(run, notes):
    """Each directed link's utilization in [0, 1], all jobs' bytes together; the tracks
    are read from the database as they are consumed."""
    if not (run.has("link_samples") and run.has("links")) or not has_rows(run, "link_samples"):
        return
    interval = (run.param_ns(LINK_INTERVAL_KEYS)
                or min_gap(run, "link_samples", ("link_id", "direction")))
    if interval is None:
        notes.append("link_samples: no sampling interval in params_json and too few samples "
                     "to infer it; no link counters")
        return
    links = {link: (a, b, rate) for link, a, b, rate in run.query(
        "SELECT link_id, node_a, node_b, rate_bps FROM links WHERE run_id = ?")}
    unknown = set()
    rows = run.conn.execute("SELECT link_id, direction, t_ns, SUM(tx_bytes) FROM link_samples"
                            f" WHERE run_id = ?{fabric_rows(run, 'link_samples')}"
                            " GROUP BY link_id, direction, t_ns"
                            " ORDER BY link_id, direction, t_ns", (run.run_id,))
    for (link, direction), samples in series(rows, 2):
        a, b, rate = links.get(link, (None, None, None))
        if not rate:
            unknown.add(link)
            continue
        if direction == 1:
            a, b = b, a
        # A sample holds the bytes sent in the interval ending at t. A packet is counted
        # whole in one interval, so a busy interval can come out a little above line rate.
        steps = ((max(t - interval, 0), min(1.0, round(tx * 8 / (interval * 1e-9 * rate), 6)))
                 for t, tx in samples)
        yield f"link {link} {a}->{b}", "utilization", step_points(steps, interval)
    if unknown:
        notes.append(f"links: no rate for link(s) {id_list(unknown)}; no counters for them")


def queue_counters(run, notes):
    """Each switch port's egress queue, bytes summed over its classes; absent rows are 0.
    The tracks are read from the database as they are consumed."""
    if not run.has("port_samples") or not has_rows(run, "port_samples"):
        return
    interval = run.param_ns(PORT_INTERVAL_KEYS) or min_gap(run, "port_samples",
                                                            ("node_id", "port"))
    if interval is None:
        notes.append("port_samples: no monitorIntervalNs in params_json and too few samples "
                     "to infer it; a queue holds its value until its next sample")
    rows = run.conn.execute("SELECT node_id, port, t_ns, SUM(queue_bytes) FROM port_samples"
                            f" WHERE run_id = ?{fabric_rows(run, 'port_samples')}"
                            " GROUP BY node_id, port, t_ns"
                            " ORDER BY node_id, port, t_ns", (run.run_id,))
    for (node, port), samples in series(rows, 2):
        yield f"queue node {node} port {port}", "bytes", step_points(samples, interval)


# ----------------------------------------------------------------------------- the whole


def check_selection(run, jobs, t_from_ns, t_to_ns, max_events):
    """The selected jobs (all when None), after checking every selection value."""
    for flag, value in (("--from", t_from_ns), ("--to", t_to_ns)):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise TimelineError(f"{flag}: {value!r} is not a time (ns >= 0)")
    if t_from_ns is not None and t_to_ns is not None and t_from_ns > t_to_ns:
        raise TimelineError(f"--from {fmt_ns(t_from_ns)} is after --to {fmt_ns(t_to_ns)}")
    if not isinstance(max_events, int) or max_events < 1:
        raise TimelineError(f"--max-events: {max_events!r} is not a positive number")
    known = run.job_ids()
    if jobs is None:
        return known
    jobs = sorted(set(jobs))
    unknown = [j for j in jobs if j not in known]
    if unknown:
        raise TimelineError(f"run {run.run_id} has no job {id_list(unknown)} "
                            f"(its jobs: {id_list(known)})")
    return jobs


def describe_selection(jobs, t_from_ns, t_to_ns):
    parts = [] if jobs is None else [f"jobs {id_list(jobs)}"]
    if t_from_ns is not None:
        parts.append(f"from {fmt_ns(t_from_ns)}")
    if t_to_ns is not None:
        parts.append(f"to {fmt_ns(t_to_ns)}")
    return f" in the selection ({', '.join(parts)})" if parts else " to show"


def build_trace(conn, run_id, jobs=None, t_from_ns=None, t_to_ns=None,
                max_events=DEFAULT_MAX_EVENTS, counters=True, count_all=True):
    """The trace of run run_id of the database conn, as the format's JSON object. A trace
    over max_events is refused with its number of events, or, without count_all, as soon
    as it is known to be over (quicker, when its size does not matter)."""
    run = Run(conn, run_id)
    selected = check_selection(run, jobs, t_from_ns, t_to_ns, max_events)
    trace = Trace(t_from_ns, t_to_ns, max_events, count_all)
    notes = []
    try:
        add_scheduler(trace, run, selected, 0)
        add_jobs(trace, run, selected, run.end_ns())
        if counters:
            tracks = itertools.chain(link_counters(run, notes), queue_counters(run, notes))
            trace.counters(FABRIC_PID, "fabric", 10 + len(selected), tracks)
    except TooManyEvents:
        raise TimelineError(
            f"the trace would have more than --max-events {max_events} events; select less"
            " with --jobs, --from/--to or --no-counters, or raise --max-events") from None
    if trace.content == 0:
        raise TimelineError(f"run {run_id} has no event"
                            + describe_selection(jobs, t_from_ns, t_to_ns))
    if trace.count > max_events:
        raise TimelineError(
            f"the trace would have {trace.count} events, more than --max-events {max_events};"
            " select less with --jobs, --from/--to or --no-counters, or raise --max-events")
    other = {key: value for key, value in run.row.items() if key != "params_json"}
    other["params"] = run.params if run.params is not None else run.row["params_json"]
    other["selection"] = {"jobs": selected, "from_ns": t_from_ns, "to_ns": t_to_ns,
                          "counters": counters}
    other["time_range_ns"] = [trace.first, trace.last]
    other["missing"] = [m for m in run.missing
                        if counters or m.split()[0] not in COUNTER_TABLES]
    other["notes"] = notes
    return {"traceEvents": sorted(trace.events, key=event_order), "displayTimeUnit": "ns",
            "otherData": other}


def trace_chunks(trace):
    """The trace as JSON text in pieces, one event per line (readable, and diffs stay
    small)."""
    def dump(value):
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    yield '{"traceEvents":[\n'
    for i, event in enumerate(trace["traceEvents"]):
        yield (",\n" if i else "") + dump(event)
    yield (f'\n],\n"displayTimeUnit":{dump(trace["displayTimeUnit"])},'
           f'\n"otherData":{dump(trace["otherData"])}}}\n')


def trace_text(trace):
    """The trace as JSON text."""
    return "".join(trace_chunks(trace))


def write_timeline(db_path, run_id, out_path, **kwargs):
    """Write the trace of run run_id of the database at db_path to out_path (build_trace's
    keyword arguments); returns {"events", "bytes", "from_ns", "to_ns", "missing"}.
    An out_path that is the database (or a file SQLite keeps beside it), or that cannot
    be written, is refused before the database is read."""
    try:
        check_distinct(output_file("--out", out_path), input_database(db_path))
        check_output_file("--out", out_path)
    except PathError as e:
        raise TimelineError(str(e)) from None
    conn = open_db(db_path)
    try:
        trace = build_trace(conn, run_id, **kwargs)
        conn.check_unchanged()
    except TimelineError as e:
        raise TimelineError(f"{db_path}: {e}") from None
    except sqlite3.DatabaseError as e:
        raise TimelineError(f"{db_path}: cannot read it ({e})") from None
    finally:
        conn.close()
    # Through a temporary file beside it, so a failed write leaves no partial file; the
    # text is written as it is made, never held whole.
    out = Path(out_path)
    size = 0
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=out.resolve().parent, prefix=f".{out.name}.")
        with os.fdopen(fd, "wb") as f:
            for chunk in trace_chunks(trace):
                data = chunk.encode()
                size += len(data)
                f.write(data)
        os.replace(tmp, out)
    except (OSError, ValueError) as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, ValueError):  # a non-finite number in a REAL column
            raise TimelineError(f"{db_path}: run {run_id} cannot be written as JSON ({e})") \
                from None
        raise TimelineError(f"{out_path}: cannot write it ({e.strerror})") from None
    first, last = trace["otherData"]["time_range_ns"]
    return {"events": len(trace["traceEvents"]), "bytes": size, "from_ns": first,
            "to_ns": last, "missing": trace["otherData"]["missing"]}


# ----------------------------------------------------------------------------- command line


class ArgumentParser(argparse.ArgumentParser):
    """Errors as one line, exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def parse_jobs(text):
    ids = [part.strip() for part in text.split(",")]
    if not all(re.fullmatch(r"\d+", part) for part in ids):
        raise TimelineError(f"--jobs: {text!r} is not a list of job ids (like 0,3)")
    return [int(part) for part in ids]


def parse_args(argv):
    parser = ArgumentParser(prog="timeline.py",
                            description="One run of a results database as a Chrome "
                            "trace-event JSON timeline (Perfetto, chrome://tracing).")
    parser.add_argument("db", metavar="DB", help="results database (SQLite)")
    parser.add_argument("--run", required=True, metavar="N", help="run id (runs.run_id)")
    parser.add_argument("--out", required=True, metavar="FILE", help="trace file to write")
    parser.add_argument("--jobs", metavar="J[,J...]",
                        help="only these jobs (and the decisions about them or no job)")
    parser.add_argument("--from", dest="t_from", metavar="TIME",
                        help="only events that end at or after TIME (ns, or with ns/us/ms/s)")
    parser.add_argument("--to", dest="t_to", metavar="TIME",
                        help="only events that start at or before TIME")
    parser.add_argument("--max-events", default=str(DEFAULT_MAX_EVENTS), metavar="N",
                        help=f"refuse a trace of more events (default {DEFAULT_MAX_EVENTS})")
    parser.add_argument("--no-counters", action="store_true",
                        help="no link utilization and queue counter tracks")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if not re.fullmatch(r"\d+", args.run.strip()):
            raise TimelineError(f"--run: {args.run!r} is not a run id")
        if not re.fullmatch(r"\d+", args.max_events.strip()) or int(args.max_events) < 1:
            raise TimelineError(f"--max-events: {args.max_events!r} is not a positive number")
        summary = write_timeline(
            args.db, int(args.run), args.out,
            jobs=None if args.jobs is None else parse_jobs(args.jobs),
            t_from_ns=None if args.t_from is None else parse_time(args.t_from, "--from"),
            t_to_ns=None if args.t_to is None else parse_time(args.t_to, "--to"),
            max_events=int(args.max_events), counters=not args.no_counters)
    except TimelineError as error:
        print(f"timeline.py: {error}", file=sys.stderr)
        return 2
    missing = summary["missing"]
    print(f"{args.out}: {summary['events']} events, {summary['bytes']} bytes, "
          f"{fmt_ns(summary['from_ns'])} to {fmt_ns(summary['to_ns'])}"
          + (f"; the database has no {', '.join(missing)}" if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
