#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""One run of a results database as a self-contained HTML page.

    utils/run-report.py RESULTS.db --run N --out DIR [--timeline-max-events N]

Writes DIR/index.html, one file that needs nothing else (plots embedded as PNG data
URIs, inline CSS, no network), and DIR/timeline.json, the run's trace made by
utils/timeline.py, linked from the page. The page holds, in order:

  1. the run's parameters and outcome (a run that is not complete is flagged);
  2. per job: model, workers, placement, times, training time, mean iteration time
     and where the iterations' time went (iteration_times);
  3. a Gantt chart of the jobs' iterations (compute, communication) and closed gates;
  4. a heat map of link utilization over time (link_samples);
  5. queue and PFC pause time series of the busiest ports (port_samples);
  6. the link to the timeline (of at most --timeline-max-events events, 250,000 by
     default; for a bigger run, the timeline.py commands that make it).

Tables an older build did not write are named on the page and the rest is still drawn.
Every table is summed, binned or merged as it is read, so the memory needed does not
grow with the database (the timeline's events, held until written, are what
--timeline-max-events bounds). The database is only read, and nothing is left beside
it (cli_paths.py).

A missing file, a file that is not a results database or an unknown run is one line
on stderr and exit status 2, with nothing written; so is, before the database is read,
an --out that is the database (or would write over it: DIR/index.html or
DIR/timeline.json as another name of it) or that cannot be used (a file, or a place
where no directory can be made).
"""

import argparse
import base64
import html
import io
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

# The scripts' shared modules (and timeline.py) sit beside this one.
SCRIPT_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPT_DIR))
from cli_paths import (PathError, check_distinct, check_output_dir,  # noqa: E402
                       input_database, output_dir)
from plot_common import Refusal, ResultsDb, fmt_time  # noqa: E402
from results_runs import run_state  # noqa: E402

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Patch
except ImportError:
    print(f"run-report.py needs matplotlib for {sys.executable} "
          "(Debian: apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(2)

# Caps that keep the plots of runs with hundreds of jobs and links readable.
MAX_GANTT_JOBS = 40
MAX_HEAT_LINKS = 60
MAX_PORTS = 4
MAX_COLUMNS = 1200  # time bins of the heat map and port series; more are merged
LANE_BINS = 2 * MAX_COLUMNS  # time bins of a row of the Gantt chart (half a pixel each)
DPI = 100
# The timeline the report writes beside the page holds at most this many events (each
# held in memory until it is written; --timeline-max-events changes it).
TIMELINE_MAX_EVENTS = 250_000
# What the report writes in DIR.
OUTPUT_NAMES = ("index.html", ".index.html.partial", "timeline.json")
# iteration_times column -> table heading, in the order of the schema reference.
PARTS = [("compute_ns", "compute"), ("overlapped_ns", "overlapped"),
         ("exposed_dp_ns", "exposed DP"), ("exposed_tp_ns", "exposed TP"),
         ("exposed_pp_ns", "exposed PP"), ("exposed_ep_ns", "exposed EP"),
         ("exposed_other_ns", "exposed other"), ("gate_wait_ns", "gate wait"),
         ("bubble_ns", "bubble")]
LINK_SAMPLES_HINT = ("run the example with --ns3::LinkSampler::Interval=100us, or set that "
                     "attribute in the scenario's \"attributes\"")
PORT_MONITOR_HINT = "run the example with --ns3::PortMonitor::Interval=10us"

CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1300px; padding: 0 1em;
       color: #222; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.95em; }
.alert { background: #fde2e2; border: 2px solid #c00; color: #800; padding: 0.6em 1em;
         font-weight: bold; }
.note { color: #555; }
img { max-width: 100%; height: auto; }
figure { margin: 0.5em 0; }
nav a { margin-right: 1em; }
div.wide { overflow: auto; max-height: 40em; }
div.wide table { font-size: 0.8em; }
div.wide th { position: sticky; top: 0; }
"""

# Records in the DOM how many images decoded, for checks in a headless browser.
LOAD_SCRIPT = """<script>
window.addEventListener("load", function () {
  var images = document.images, loaded = 0;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth > 0) { loaded++; }
  }
  document.body.setAttribute("data-images-loaded", String(loaded));
  document.body.setAttribute("data-images-total", String(images.length));
});
</script>"""


# ----------------------------------------------------------------------------- helpers


def esc(value):
    return html.escape(str(value), quote=True)


def para(text, cls=None):
    """A paragraph of plain text (escaped)."""
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{esc(text)}</p>"


def na(value):
    return "n/a" if value is None else value


def ms(ns, digits=3):
    return "n/a" if ns is None else f"{ns / 1e6:.{digits}f}"


def count(n):
    return "n/a" if n is None else f"{n:,}"


def table(headers, rows, numeric=()):
    """An HTML table; cells are escaped, columns whose index is in `numeric` right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(f'<td class="num">{esc(v)}</td>' if i in numeric else f"<td>{esc(v)}</td>"
                        for i, v in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f"<table>\n<tr>{head}</tr>\n" + "\n".join(body) + "\n</table>"


def select_columns(db, table_name, wanted):
    """The column list for SELECT: NULL for columns an older file's table lacks."""
    have = db.columns(table_name)
    return ", ".join(c if c in have else f"NULL AS {c}" for c in wanted)


def has_table(db, name, columns):
    return name in db.tables and set(columns) <= db.columns(name)


def figure_html(fig, alt, caption=None):
    """The figure as an <img> with a PNG data URI (no file beside the page)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    plt.close(fig)
    png = buffer.getvalue()
    # The PNG header's IHDR holds the size: the browser lays the page out before decoding.
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    data = base64.b64encode(png).decode("ascii")
    text = f'<figure>\n<img src="data:image/png;base64,{data}" alt="{esc(alt)}" ' \
           f'width="{width}" height="{height}">\n'
    if caption:
        text += f"<figcaption class=\"note\">{esc(caption)}</figcaption>\n"
    return text + "</figure>"


def compact_ranges(numbers):
    """[0, 1, 2, 3, 7, 9, 10] -> '0-3,7,9-10'."""
    numbers = sorted(set(numbers))
    parts, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ",".join(parts)


def shorten(text, limit=60):
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def placement_summary(text, gpus_per_host):
    """placement_json in a few words: policy, host count and host ranges."""
    if not text:
        return "n/a"
    try:
        placement = json.loads(text)
    except ValueError:
        return shorten(text)
    if not isinstance(placement, dict):
        return shorten(json.dumps(placement, separators=(",", ":")))
    parts = []
    for key, value in placement.items():
        if key == "policy":
            parts.insert(0, str(value))
        elif key == "hosts" and isinstance(value, list) and all(
                isinstance(h, int) for h in value):
            parts.append(f"{len(value)} hosts {shorten(compact_ranges(value))}")
        else:
            parts.append(f"{key}={shorten(json.dumps(value, separators=(',', ':')), 30)}")
    if gpus_per_host and gpus_per_host > 1:
        parts.append(f"{gpus_per_host} GPUs/host")
    return ", ".join(parts)


def sample_interval(params, keys, db, table, series, where, args):
    """The sampling interval: from params_json when set, else the smallest gap between
    distinct sample times of one series (rows that would be all zero may be absent), else
    the first sample's time. Worked out in SQL over table's rows that match `where`
    (with args), a series being the rows that agree on the columns `series`."""
    for key in keys:
        value = params.get(key)
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
    columns = ", ".join(series)
    (gap,) = db.query(f"SELECT MIN(t_ns - previous) FROM (SELECT t_ns, LAG(t_ns) OVER"
                      f" (PARTITION BY {columns} ORDER BY t_ns) AS previous FROM"
                      f" (SELECT DISTINCT {columns}, t_ns FROM {table} WHERE {where}))"
                      " WHERE t_ns > previous", args)[0]
    if gap is not None:
        return gap
    (first,) = db.query(f"SELECT MIN(t_ns) FROM {table} WHERE {where}", args)[0]
    return max(first, 1) if first is not None else 1


class TimeBins:
    """Samples of `interval` ns up to `last_ns` in at most MAX_COLUMNS bins: a run of many
    samples is merged into fewer columns without ever holding one per sample."""

    def __init__(self, interval, last_ns):
        self.interval = interval
        self.samples = max(1, round(last_ns / interval))
        self.merged = -(-self.samples // MAX_COLUMNS)  # samples per bin
        self.count = -(-self.samples // self.merged)

    def index(self, t_ns):
        """The bin of the sample at t_ns, which covers the interval ending at t_ns."""
        return min(max(round(t_ns / self.interval) - 1, 0), self.samples - 1) // self.merged

    @property
    def end_ms(self):
        return self.count * self.merged * self.interval / 1e6

    def describe(self, how):
        return f", {self.merged} merged per {how}" if self.merged > 1 else ""


# ----------------------------------------------------------------------------- data


class Run:
    """The runs row, its parameters and the jobs (loaded once, used by several sections)."""

    def __init__(self, db, run_id):
        columns = ["run_id", "example", "scheduler", "seed", "params_json", "status",
                   "started_at", "finished_at", "sim_end_ns", "wall_s", "events",
                   "packet_hops", "error", "pid", "host"]
        rows = db.query(f"SELECT {select_columns(db, 'runs', columns)} FROM runs"
                        " WHERE run_id = ?", (run_id,))
        if not rows:
            known = [r for (r,) in db.query("SELECT run_id FROM runs ORDER BY run_id")]
            listed = compact_ranges(known) if known else "none"
            raise Refusal(f"{db.path}: no run {run_id} (runs in the file: {listed})")
        self.row = dict(zip(columns, rows[0]))
        self.run_id = run_id
        self.state = run_state(self.row["status"], self.row["pid"], self.row["host"])
        try:
            self.params = json.loads(self.row["params_json"] or "{}")
            self.params_error = None
        except ValueError as e:
            self.params, self.params_error = {}, str(e)
        if not isinstance(self.params, dict):
            self.params, self.params_error = {}, "not a JSON object"
        self.jobs = self.load_jobs(db)
        self.iteration_stats = self.load_iteration_stats(db)

    def load_jobs(self, db):
        columns = ["job_id", "model", "workers", "gpus_per_host", "placement_json",
                   "arrival_ns", "start_ns", "end_ns", "iterations"]
        if "jobs" not in db.tables:
            return []
        return [dict(zip(columns, row)) for row in db.query(
            f"SELECT {select_columns(db, 'jobs', columns)} FROM jobs WHERE run_id = ?"
            " ORDER BY job_id", (self.run_id,))]

    def load_iteration_stats(self, db):
        """job id -> (communication ns, [sum, count] of iteration durations, last
        communication end), summed in SQL: a run's iterations are never held."""
        if not has_table(db, "iterations", ["run_id", "job_id", "compute_start_ns",
                                             "comm_start_ns", "comm_end_ns"]):
            return {}
        return {job: (comm or 0, (total or 0, n), last) for job, comm, total, n, last in db.query(
            "SELECT job_id, SUM(comm_end_ns - comm_start_ns), SUM(comm_end_ns - compute_start_ns),"
            " COUNT(comm_end_ns - compute_start_ns), MAX(comm_end_ns) FROM iterations"
            " WHERE run_id = ? GROUP BY job_id", (self.run_id,))}

    @property
    def end_ns(self):
        """The end of the plots' time axis: the simulated end, else the last job's end."""
        if self.row["sim_end_ns"]:
            return self.row["sim_end_ns"]
        ends = [j["end_ns"] for j in self.jobs if j["end_ns"]]
        ends += [last for _, _, last in self.iteration_stats.values() if last]
        return max(ends, default=0)

    @property
    def complete(self):
        return self.state == "complete"

    def comm_ns(self, job):
        """Time the job spent communicating (iterations' comm_start to comm_end)."""
        return self.iteration_stats.get(job, (0, None, None))[0]

    def mean_iteration_ns(self, job):
        """The mean of the job's iterations from compute start to communication end."""
        total, n = self.iteration_stats.get(job, (0, (0, 0), None))[1]
        return total / n if n else None

    def busiest_jobs(self, limit):
        """Job ids with the most communication, at most `limit`, in job id order."""
        ranked = sorted((j["job_id"] for j in self.jobs), key=lambda j: -self.comm_ns(j))
        return sorted(ranked[:limit])

    def title(self):
        r = self.row
        return f"Run {self.run_id}: {r['example']}, scheduler {r['scheduler']}, seed {r['seed']}"


# ----------------------------------------------------------------------------- sections


def status_alert(run):
    """The banner of a run that is not complete: its rows stop where it stopped."""
    if run.complete:
        return ""
    text = f"This run is not complete: status '{run.state}'"
    if run.state == "abandoned":
        text += f" (process {run.row['pid']} on {run.row['host']} is gone)"
    if run.row["error"]:
        text += f"; error: {run.row['error']}"
    return para(text + ". Its tables hold only the rows written before it stopped.", "alert")


def param_value(value):
    """A params_json value as HTML: long ones folded (job lists can be very long)."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if len(text) <= 160:
        return f"<code>{esc(text)}</code>"
    return (f"<details><summary><code>{esc(text[:120])}\u2026</code> ({len(text):,} "
            f"characters)</summary><code>{esc(text)}</code></details>")


def section_run(db, run):
    r = run.row
    wall = "n/a" if r["wall_s"] is None else f"{r['wall_s']:.3f} s"
    sim_end = "n/a" if r["sim_end_ns"] is None else \
        f"{fmt_time(r['sim_end_ns'])} ({r['sim_end_ns']:,} ns)"
    status = run.state if run.complete else f"{run.state.upper()} (not complete)"
    rows = [("run id", run.run_id), ("example", r["example"]), ("scheduler", r["scheduler"]),
            ("seed", r["seed"]), ("status", status), ("error", r["error"] or "none"),
            ("started at", r["started_at"] or "n/a"), ("finished at", r["finished_at"] or "n/a"),
            ("simulated end time", sim_end), ("wall time", wall),
            ("events", count(r["events"])), ("packet hops", count(r["packet_hops"])),
            ("jobs", len(run.jobs))]
    if has_table(db, "scheduler_decisions", ["run_id", "kind"]):
        kinds = db.query("SELECT kind, COUNT(*) FROM scheduler_decisions WHERE run_id = ?"
                         " GROUP BY kind ORDER BY COUNT(*) DESC, kind", (run.run_id,))
        total = sum(n for _, n in kinds)
        detail = ", ".join(f"{kind} {n}" for kind, n in kinds)
        rows.append(("scheduler decisions", f"{total:,}" + (f" ({detail})" if detail else "")))
    parts = ['<section id="run">', "<h2>1. Run parameters and outcome</h2>", status_alert(run),
             table(["", "value"], rows), "<h3>Parameters (params_json)</h3>"]
    if run.params_error:
        parts.append(para(f"params_json is not readable ({run.params_error}): "
                          f"{r['params_json']}", "note"))
    elif not run.params:
        parts.append(para("params_json is empty.", "note"))
    else:
        body = "\n".join(f"<tr><td><code>{esc(k)}</code></td><td>{param_value(v)}</td></tr>"
                         for k, v in run.params.items())
        parts.append(f"<table>\n<tr><th>key</th><th>value</th></tr>\n{body}\n</table>")
    parts.append("</section>")
    return "\n".join(parts)


def iteration_means(db, run):
    """job id -> {iteration_times column: mean ns}, or None when the table is missing."""
    if not has_table(db, "iteration_times", ["run_id", "job_id"] + [c for c, _ in PARTS]):
        return None
    averages = ", ".join(f"AVG({c})" for c, _ in PARTS)
    return {job: dict(zip((c for c, _ in PARTS), values)) for job, *values in db.query(
        f"SELECT job_id, {averages} FROM iteration_times WHERE run_id = ? GROUP BY job_id",
        (run.run_id,))}


def section_jobs(db, run):
    parts = ['<section id="jobs">', "<h2>2. Jobs</h2>"]
    if not run.jobs:
        parts.append(para("The run has no rows in the jobs table."))
        return "\n".join(parts + ["</section>"])
    means = iteration_means(db, run)
    headers = ["job", "model", "workers", "placement", "arrival (ms)", "start (ms)", "end (ms)",
               "iterations", "training time (ms)", "mean iteration (ms)"]
    breakdown = bool(means)
    if breakdown:
        headers += [f"{label} (ms)" for _, label in PARTS]
    rows = []
    for j in run.jobs:
        mean = run.mean_iteration_ns(j["job_id"])
        start, end = j["start_ns"], j["end_ns"]
        train = end - start if end is not None and start is not None else None
        row = [j["job_id"], j["model"] or "n/a", na(j["workers"]),
               placement_summary(j["placement_json"], j["gpus_per_host"]),
               ms(j["arrival_ns"]), ms(start), ms(end) if end is not None else "not finished",
               na(j["iterations"]), ms(train),
               ms(mean) if mean is not None else "n/a"]
        if breakdown:
            job_means = means.get(j["job_id"])
            row += [ms(job_means[c]) if job_means else "n/a" for c, _ in PARTS]
        rows.append(row)
    numeric = set(range(4, len(headers))) | {0, 2}
    # Many columns, or hundreds of jobs: the table scrolls, not the page.
    parts.append(f'<div class="wide">{table(headers, rows, numeric)}</div>')
    note = ("Training time is end - start; the mean iteration runs from an iteration's "
            "compute start to its communication end (table iterations).")
    if breakdown:
        note += (" The breakdown is the mean over iterations of iteration_times (itself a mean "
                 "over ranks): compute + exposed + gate wait + bubble = the iteration; "
                 "overlapped is the part of compute that ran beside communication.")
    elif means is None:
        note += " No breakdown: the database has no iteration_times table (an older build)."
    else:
        note += " No breakdown: iteration_times has no rows for this run."
    parts += [para(note, "note"), "</section>"]
    return "\n".join(parts)


class Lane:
    """A row of the Gantt chart: the union of intervals given in order of their start, kept
    as the part of each of LANE_BINS equal bins of [0, axis_end] (half a pixel each) that
    it covers. A lane's size is that, however many rows it is drawn from; a bin covered
    only in part is drawn lighter, as the pixel would be."""

    def __init__(self, axis_end):
        self.axis_end = axis_end
        self.width = axis_end / LANE_BINS
        self.covered = np.zeros(LANE_BINS)  # ns covered in bins where an interval ends
        self.full = np.zeros(LANE_BINS + 1)  # +1 where a run of whole bins starts, -1 after
        self.current = None  # the union's interval still growing

    def add(self, start, end):
        start, end = max(start, 0), min(end, self.axis_end)
        if end <= start:
            return
        if self.current is not None and start <= self.current[1]:
            self.current[1] = max(self.current[1], end)
            return
        self.flush()
        self.current = [start, end]

    def flush(self):
        if self.current is None:
            return
        start, end = self.current
        self.current = None
        first = min(int(start / self.width), LANE_BINS - 1)
        last = min(int(end / self.width), LANE_BINS - 1)
        if first == last:
            self.covered[first] += end - start
            return
        self.covered[first] += (first + 1) * self.width - start
        self.covered[last] += end - last * self.width
        self.full[first + 1] += 1
        self.full[last] -= 1

    def bars(self, least=0.0):
        """broken_barh's (start, width) in ms, and each bar's covered fraction: a run of
        whole bins is one bar, a bin covered in part (more than `least`) a bar of its own."""
        self.flush()
        fractions = np.minimum(self.covered / self.width + np.cumsum(self.full)[:-1], 1.0)
        bars, shares = [], []
        run_start = None
        for i, fraction in enumerate(np.append(fractions, 0.0)):
            if fraction >= 0.999 and i < LANE_BINS:
                run_start = i if run_start is None else run_start
                continue
            if run_start is not None:
                bars.append((run_start * self.width / 1e6, (i - run_start) * self.width / 1e6))
                shares.append(1.0)
                run_start = None
            if fraction > least and i < LANE_BINS:
                bars.append((i * self.width / 1e6, self.width / 1e6))
                shares.append(float(fraction))
        return bars, shares


def draw_lane(ax, lane, y, color, zorder):
    bars, shares = lane.bars()
    ax.broken_barh(bars, y, facecolors=[to_rgba(color, share) for share in shares],
                   zorder=zorder)
    return bool(bars)


def gate_closed(db, run, jobs):
    """job id -> Lane of the times its gate was closed, cut at the job's end."""
    if not has_table(db, "gates", ["run_id", "t_ns", "job_id", "open"]):
        return {}
    axis_end = max(run.end_ns, 1)
    ends = {j["job_id"]: j["end_ns"] or run.end_ns for j in run.jobs}
    closed, since = {}, {}

    def add(job, start, end):
        end = min(end, ends.get(job, end))
        if end > start:
            closed.setdefault(job, Lane(axis_end)).add(start, end)

    marks = ",".join("?" * len(jobs))
    # rowid keeps the order of changes written at the same time.
    for job, t, is_open in db.rows(f"SELECT job_id, t_ns, open FROM gates WHERE run_id = ?"
                                   f" AND job_id IN ({marks}) ORDER BY job_id, t_ns, rowid",
                                   (run.run_id, *jobs)):
        if not is_open and job not in since:
            since[job] = t
        elif is_open and job in since:
            add(job, since.pop(job), t)
    for job, t in since.items():  # still closed at the end
        add(job, t, ends.get(job, run.end_ns))
    return closed


def span_lanes(db, run, jobs):
    """From op_spans, job id -> (compute Lane, communication Lane)."""
    if not has_table(db, "op_spans", ["run_id", "job_id", "kind", "start_ns", "end_ns"]):
        return {}
    axis_end = max(run.end_ns, 1)
    lanes = {}
    marks = ",".join("?" * len(jobs))
    for job, comm, start, end in db.rows(
            f"SELECT job_id, kind IS NOT 'compute', start_ns, end_ns FROM op_spans"
            f" WHERE run_id = ? AND job_id IN ({marks}) AND start_ns IS NOT NULL"
            f" AND end_ns IS NOT NULL ORDER BY job_id, 2, start_ns", (run.run_id, *jobs)):
        if job not in lanes:
            lanes[job] = (Lane(axis_end), Lane(axis_end))
        lanes[job][comm].add(start, end)
    return lanes


def iteration_lanes(db, run, job):
    """From iterations: compute from compute start to communication ready (or start),
    communication from its start to its end."""
    axis_end = max(run.end_ns, 1)
    compute, comm = Lane(axis_end), Lane(axis_end)
    if not has_table(db, "iterations", ["run_id", "job_id", "compute_start_ns",
                                         "comm_ready_ns", "comm_start_ns", "comm_end_ns"]):
        return compute, comm
    for start, end in db.rows(
            "SELECT compute_start_ns, COALESCE(comm_ready_ns, comm_start_ns) AS e FROM iterations"
            " WHERE run_id = ? AND job_id = ? AND compute_start_ns IS NOT NULL AND e IS NOT NULL"
            " ORDER BY 1", (run.run_id, job)):
        compute.add(start, end)
    for start, end in db.rows(
            "SELECT comm_start_ns, comm_end_ns FROM iterations WHERE run_id = ? AND job_id = ?"
            " AND comm_start_ns IS NOT NULL AND comm_end_ns IS NOT NULL ORDER BY 1",
            (run.run_id, job)):
        comm.add(start, end)
    return compute, comm


def section_gantt(db, run):
    parts = ['<section id="gantt">', "<h2>3. Job Gantt chart</h2>"]
    jobs = run.busiest_jobs(MAX_GANTT_JOBS)
    if not jobs:
        parts.append(para("No jobs to draw."))
        return "\n".join(parts + ["</section>"])
    spans = span_lanes(db, run, jobs)
    gates = gate_closed(db, run, jobs)
    models = {j["job_id"]: j["model"] for j in run.jobs}
    fig, ax = plt.subplots(figsize=(12, 1.4 + 0.4 * len(jobs)))
    drawn = False
    for row, job in enumerate(jobs):
        compute, comm = spans[job] if job in spans else iteration_lanes(db, run, job)
        # Gates behind the bars: what shows is a closed gate while the job waits (a bin
        # closed more than half of its time).
        if job in gates:
            ax.broken_barh(gates[job].bars(least=0.5)[0], (row - 0.4, 0.8), facecolors="none",
                           edgecolors="0.45", hatch="////", linewidth=0, zorder=1)
        # Compute below communication, so that overlap (op_spans) stays visible.
        drawn = draw_lane(ax, compute, (row, 0.35), "tab:blue", 2) | drawn
        drawn = draw_lane(ax, comm, (row - 0.35, 0.35), "tab:orange", 2) | drawn
    ax.set_yticks(range(len(jobs)))
    ax.set_yticklabels([f"job {j}" + (f" ({models[j]})" if models.get(j) else "")
                        for j in jobs], fontsize=8 if len(jobs) > 15 else 10)
    ax.set_ylim(len(jobs) - 0.5, -0.5)  # job order top to bottom
    ax.set_xlim(0, max(run.end_ns, 1) / 1e6)
    ax.set_xlabel("simulated time (ms)")
    ax.legend(handles=[Patch(color="tab:blue", label="compute"),
                       Patch(color="tab:orange", label="communication"),
                       Patch(facecolor="none", edgecolor="0.45", hatch="////",
                             label="gate closed")],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
              frameon=False)
    fig.tight_layout()
    spans_text = ("op_spans (each lane: the union of the job's compute ops, below, and of its "
                  "communication ops, above)")
    iterations_text = ("iterations (compute: compute start to communication ready; "
                       "communication: its start to its end)")
    if not spans:
        source = iterations_text
    elif len(spans) == len(jobs):
        source = spans_text
    else:
        source = f"{spans_text} where the job has them, else from {iterations_text}"
    caption = (f"One row per job; bars from {source}, lighter where they cover only part of "
               "the time a pixel spans; hatched: the job's gate closed (gates).")
    if not spans:
        caption += (" Without op_spans (older builds), compute that overlaps communication is "
                    "drawn as communication.")
    if len(jobs) < len(run.jobs):
        caption += (f" Showing the {len(jobs)} of {len(run.jobs)} jobs with the most "
                    "communication time.")
    if not drawn:
        caption += " The jobs have no iteration rows yet."
    parts += [figure_html(fig, f"Gantt chart of {len(jobs)} jobs of run {run.run_id}: "
                               "compute, communication and closed gates over time", caption),
              "</section>"]
    return "\n".join(parts)


def fabric_rows(db, table):
    """The SQL condition that keeps a sample table's fabric rows: since schema 7 the
    NVSwitch ports' rows (kind 'nvswitch') share link_samples and port_samples."""
    return " AND kind = 'fabric'" if "kind" in db.columns(table) else ""


def link_names(db, run):
    """link id -> (node_a, node_b, rate_bps) from the links table."""
    if not has_table(db, "links", ["run_id", "link_id", "node_a", "node_b", "rate_bps"]):
        return {}
    return {link: (a, b, rate) for link, a, b, rate in db.query(
        "SELECT link_id, node_a, node_b, rate_bps FROM links WHERE run_id = ?", (run.run_id,))}


def section_links(db, run):
    parts = ['<section id="links">', "<h2>4. Link utilization</h2>"]
    columns = ["run_id", "link_id", "direction", "t_ns", "tx_bytes"]
    totals = {}
    if has_table(db, "link_samples", columns):
        # Everything is summed or binned in SQL and read row by row: the samples of a long
        # run are never held. The jobs' bytes of one interval add up: one value per
        # directed link and time.
        totals = {(link, direction): (total, last) for link, direction, total, last in db.query(
            "SELECT link_id, direction, SUM(tx_bytes), MAX(t_ns) FROM link_samples"
            f" WHERE run_id = ?{fabric_rows(db, 'link_samples')} GROUP BY link_id, direction",
            (run.run_id,))}
    if not totals:
        missing = ("" if "link_samples" in db.tables
                   else " (the database has no link_samples table)")
        parts += [para(f"No link samples in this run{missing}: {LINK_SAMPLES_HINT}."),
                  "</section>"]
        return "\n".join(parts)
    links = link_names(db, run)
    interval = sample_interval(run.params, ("linkSampleIntervalNs", "sample_interval_ns"), db,
                               "link_samples", ("link_id", "direction"),
                               f"run_id = ?{fabric_rows(db, 'link_samples')}", (run.run_id,))
    busy = sorted((key for key, (total, _) in totals.items() if total > 0 and key[0] in links
                   and links[key[0]][2]), key=lambda k: (-totals[k][0], k))
    unknown = sum(1 for key, (total, _) in totals.items() if total > 0 and key not in busy)
    carried = len(busy)
    busy = busy[:MAX_HEAT_LINKS]
    if not busy:
        parts += [para("The link samples name no link of the links table with a rate, so "
                       "utilization cannot be computed."), "</section>"]
        return "\n".join(parts)
    index = {key: i for i, key in enumerate(busy)}
    bins = TimeBins(interval, max(last for _, last in totals.values()))
    matrix = np.zeros((len(busy), bins.count))
    peak = 0.0
    values = ",".join("(?, ?)" for _ in busy)
    for link, direction, t, tx in db.rows(
            "SELECT link_id, direction, t_ns, SUM(tx_bytes) FROM link_samples"
            f" WHERE run_id = ?{fabric_rows(db, 'link_samples')}"
            f" AND (link_id, direction) IN (VALUES {values})"
            " GROUP BY link_id, direction, t_ns", (run.run_id, *[v for key in busy for v in key])):
        utilization = tx * 8 / (interval * 1e-9 * links[link][2])
        peak = max(peak, utilization)
        matrix[index[(link, direction)], bins.index(t)] += min(utilization, 1.0) / bins.merged
    fig, ax = plt.subplots(figsize=(12, 1.6 + 0.17 * len(busy)))
    image = ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap="viridis",
                      vmin=0, vmax=1, extent=(0, bins.end_ms, len(busy), 0))
    labels = []
    for link, direction in busy:
        a, b = links[link][:2]
        src, dst = (a, b) if direction == 0 else (b, a)
        labels.append(f"link {link}: {src}->{dst}")
    ax.set_yticks([i + 0.5 for i in range(len(busy))])
    ax.set_yticklabels(labels, fontsize=7 if len(busy) > 20 else 9)
    ax.set_xlabel("simulated time (ms)")
    fig.colorbar(image, ax=ax, label="utilization", fraction=0.03, pad=0.01)
    fig.tight_layout()
    caption = (f"Rows: directed links that carried traffic (node -> node), busiest first; "
               f"columns: samples of {fmt_time(interval)}{bins.describe('column (mean)')}; "
               "colour: bytes sent * 8 / (interval * link rate).")
    if carried > len(busy):
        caption += f" Showing the {len(busy)} busiest of the {carried} links that carried traffic."
    if unknown:
        caption += f" {unknown} directed link(s) with traffic but no rate in links left out."
    if peak > 1.0001:
        caption += (f" The largest sample is {peak:.2f} of the rate (a packet counted in the "
                    "interval it started); the colour stops at 1.")
    parts += [figure_html(fig, f"Heat map of the utilization of {len(busy)} directed links "
                               f"over time, run {run.run_id}", caption), "</section>"]
    return "\n".join(parts)


def section_ports(db, run):
    parts = ['<section id="ports">', "<h2>5. Queues and PFC of the busiest ports</h2>"]
    columns = ["run_id", "node_id", "port", "t_ns", "class", "queue_bytes", "paused_ns"]
    if not has_table(db, "port_samples", columns):
        parts += [para("The run had no port monitors (the database has no port_samples "
                       f"table): {PORT_MONITOR_HINT}."), "</section>"]
        return "\n".join(parts)
    link = "link_id" if "link_id" in db.columns("port_samples") else "NULL"
    fabric = fabric_rows(db, "port_samples")
    ranked = db.query(
        f"SELECT node_id, port, MAX({link}), MAX(queue_bytes), SUM(paused_ns) FROM port_samples"
        f" WHERE run_id = ?{fabric} GROUP BY node_id, port"
        " ORDER BY 4 DESC, 5 DESC, node_id, port LIMIT ?", (run.run_id, MAX_PORTS))
    if not ranked:
        parts += [para("The run had no port monitors (no port_samples rows): "
                       f"{PORT_MONITOR_HINT}."), "</section>"]
        return "\n".join(parts)
    ports = [(node, port) for node, port, *_ in ranked]
    where = (f"run_id = ?{fabric} AND (node_id, port) IN "
             f"(VALUES {','.join('(?, ?)' for _ in ports)})")
    args = (run.run_id, *[v for p in ports for v in p])
    interval = sample_interval(run.params, ("monitorIntervalNs", "monitor_interval_ns"), db,
                               "port_samples", ("node_id", "port", "class"), where, args)
    (last,) = db.query(f"SELECT MAX(t_ns) FROM port_samples WHERE {where}", args)[0]
    bins = TimeBins(interval, last)
    xs = (np.arange(bins.count) + 1) * bins.merged * interval / 1e6  # bin ends
    # (node, port) -> {class: (queue KB per bin, paused fraction per bin)}, filled row by row:
    # absent rows are zeros; a bin shows the queue's max and the pause's mean.
    series = {}
    for node, port, cls, t, queue, paused_ns in db.rows(
            f"SELECT node_id, port, class, t_ns, queue_bytes, paused_ns FROM port_samples"
            f" WHERE {where}", args):
        by_class = series.setdefault((node, port), {})
        if cls not in by_class:
            by_class[cls] = (np.zeros(bins.count), np.zeros(bins.count))
        queue_kb, paused = by_class[cls]
        i = bins.index(t)
        queue_kb[i] = max(queue_kb[i], queue / 1e3)
        paused[i] += min(paused_ns / interval, 1.0) / bins.merged
    fig, axes = plt.subplots(len(ports), 2, figsize=(12, 0.6 + 2.3 * len(ports)),
                             squeeze=False, sharex=True)
    for (node, port, link_id, peak, paused_total), (ax_q, ax_p) in zip(ranked, axes):
        for cls, (queue_kb, paused) in sorted(series.get((node, port), {}).items()):
            ax_q.step(xs, queue_kb, where="pre", label=f"class {cls}", linewidth=1)
            ax_p.step(xs, paused, where="pre", label=f"class {cls}", linewidth=1)
        name = f"node {node} port {port}" + (f" (link {link_id})" if link_id is not None else "")
        ax_q.set_title(f"{name}: queue, peak {peak / 1e3:.1f} KB", fontsize=9)
        ax_p.set_title(f"{name}: PFC paused, {fmt_time(paused_total)} in all", fontsize=9)
        ax_q.set_ylabel("queue (KB)")
        ax_p.set_ylabel("paused fraction")
        ax_q.set_ylim(bottom=0)
        ax_p.set_ylim(0, 1.05)
        for ax in (ax_q, ax_p):
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7, loc="upper right")
    for ax in axes[-1]:
        ax.set_xlabel("simulated time (ms)")
        ax.set_xlim(0, bins.end_ms)
    fig.tight_layout()
    named = "; ".join(f"node {node} port {port}: {peak / 1e3:.1f} KB"
                      for node, port, _, peak, _ in ranked)
    merged = bins.describe("point: the queue's max, the pause's mean")
    caption = (f"The {len(ports)} port(s) with the largest peak queue ({named}); per traffic "
               "class, the egress queue at each sample and the fraction of the interval "
               f"({fmt_time(interval)}{merged}) the class was paused by PFC.")
    parts += [figure_html(fig, f"Queue bytes and PFC paused fraction over time of the "
                               f"{len(ports)} busiest ports, run {run.run_id}", caption),
              "</section>"]
    return "\n".join(parts)


def timeline_command(db_path, run, target):
    """timeline.py's command for a smaller trace: the busiest jobs, a tenth of the run."""
    jobs = ",".join(str(j) for j in run.busiest_jobs(4))
    end_us = max(run.end_ns // 10_000, 1)
    return (f"utils/timeline.py {db_path} --run {run.run_id} --out {target}"
            + (f" --jobs {jobs}" if jobs else "") + f" --from 0 --to {end_us}us")


def timeline_rows(db, run):
    """A lower bound of the timeline's events, counted in SQL: its op spans, collectives,
    iterations and scheduler decisions give at least one event each, and a closed gate
    one per two rows (closed, opened). timeline.py holds a job's rows of these tables
    whole, so a run with more than the report's events is not handed to it at all."""
    total = 0
    for table, rows_per_event in (("op_spans", 1), ("collectives", 1), ("iterations", 1),
                                  ("scheduler_decisions", 1), ("gates", 2)):
        if has_table(db, table, ["run_id"]):
            (count,) = db.query(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?",
                                (run.run_id,))[0]
            total += count // rows_per_event
    return total


def too_big(db_path, run, target, max_events, default_max):
    """What to do when the run's timeline has more events than the report writes."""
    whole = f"utils/timeline.py {db_path} --run {run.run_id} --out {target}"
    limit = f" (its --max-events is {default_max:,} by default)" if default_max else ""
    return [para(f"The report writes a timeline of at most {max_events:,} events, which "
                 "bounds the memory it needs (about 0.6 KB per event); --timeline-max-events "
                 "changes that. Make the whole run's with utils/timeline.py"
                 f"{limit}:"),
            f"<pre><code>{esc(whole)}</code></pre>",
            para("or one of a selection of jobs and a time window (and, if the fabric's "
                 "counters are what is too big, --no-counters), e.g.:"),
            f"<pre><code>{esc(timeline_command(db_path, run, target))}</code></pre>"]


def section_timeline(db, db_path, run, out_dir, max_events=TIMELINE_MAX_EVENTS):
    parts = ['<section id="timeline">', "<h2>6. Timeline</h2>"]
    target = out_dir / "timeline.json"
    if target.exists():
        target.unlink()  # a previous report's: never link a trace of another run
    try:
        import timeline
    except Exception as e:  # not written yet, or broken: the rest of the page still stands
        parts += [para(f"No timeline: utils/timeline.py could not be imported ({e})."),
                  "</section>"]
        return "\n".join(parts)
    default_max = getattr(timeline, "DEFAULT_MAX_EVENTS", None)
    rows = timeline_rows(db, run)
    if rows > max_events:
        parts.append(para(f"No timeline: the run's op spans, collectives, iterations, gates "
                          f"and scheduler decisions alone make at least {rows:,} events, more "
                          f"than the {max_events:,} of the report's timeline."))
        return "\n".join(parts + too_big(db_path, run, target, max_events, default_max)
                         + ["</section>"])
    try:
        info = timeline.write_timeline(db_path, run.run_id, str(target), max_events=max_events,
                                       count_all=False)
    except getattr(timeline, "TimelineError", ()) as e:
        if target.exists():
            target.unlink()
        parts.append(para(f"No timeline: utils/timeline.py refused the whole run ({e})."))
        # Too many events (its message names --max-events): a selection makes it smaller.
        if "max-events" in str(e):
            parts += too_big(db_path, run, target, max_events, default_max)
        return "\n".join(parts + ["</section>"])
    except Exception as e:  # a bug there must not cost the report; say it on stderr too
        print(f"run-report.py: warning: utils/timeline.py failed: {e!r}", file=sys.stderr)
        if target.exists():
            target.unlink()
        parts += [para(f"No timeline: utils/timeline.py failed ({e!r})."), "</section>"]
        return "\n".join(parts)
    info = info if isinstance(info, dict) else {}
    detail = [f"{info['events']:,} events"] if info.get("events") is not None else []
    if info.get("bytes") is not None:
        size = info["bytes"]
        detail.append(f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} KB")
    if info.get("missing"):
        detail.append("without " + ", ".join(map(str, info["missing"])))
    detail = f" ({'; '.join(detail)})" if detail else ""
    parts += [f'<p><a href="timeline.json" download>timeline.json</a>'
              f"{esc(detail)}: the run's jobs, iterations, ops, gates, scheduler decisions "
              "and samples as a Chrome trace-event file.</p>",
              para("To view it, open https://ui.perfetto.dev and choose \"Open trace file\" "
                   "(the file stays in the browser), or load it in chrome://tracing."),
              "</section>"]
    return "\n".join(parts)


# ----------------------------------------------------------------------------- page


def build_page(db, db_path, run, out_dir, timeline_max_events=TIMELINE_MAX_EVENTS):
    title = run.title() + ("" if run.complete else f" [{run.state}]")
    sections = [section_run(db, run), section_jobs(db, run), section_gantt(db, run),
                section_links(db, run), section_ports(db, run),
                section_timeline(db, db_path, run, out_dir, timeline_max_events)]
    nav = " ".join(f'<a href="#{anchor}">{esc(label)}</a>' for anchor, label in (
        ("run", "Run"), ("jobs", "Jobs"), ("gantt", "Gantt"), ("links", "Links"),
        ("ports", "Ports"), ("timeline", "Timeline")))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        '<link rel="icon" href="data:,">',  # no favicon request
        f"<style>{CSS}</style>", "</head>", "<body>", f"<h1>{esc(title)}</h1>",
        status_alert(run),
        para(f"Results database {db_path}; report made {time.strftime('%Y-%m-%d %H:%M:%S')}.",
             "note"),
        f"<nav>{nav}</nav>", *sections, LOAD_SCRIPT, "</body>", "</html>", ""])


def positive(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write a self-contained HTML report (DIR/index.html) and a trace "
                    "(DIR/timeline.json) of one run of a results database.")
    parser.add_argument("db", metavar="DB", help="results database (SQLite)")
    parser.add_argument("--run", type=int, required=True, metavar="N",
                        help="run id (runs.run_id)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="directory to write (made if needed)")
    parser.add_argument("--timeline-max-events", type=positive, default=TIMELINE_MAX_EVENTS,
                        metavar="N", help="write no timeline of more events, which bounds "
                        f"the memory needed (default {TIMELINE_MAX_EVENTS:,})")
    args = parser.parse_args(argv)
    started = time.monotonic()
    out_dir = Path(args.out)
    try:
        # The output first, before the database is read: never one of the database's
        # files, and a directory that can be written (or made).
        check_distinct(output_dir("--out", args.out, OUTPUT_NAMES), input_database(args.db))
        check_output_dir("--out", args.out)
    except PathError as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    try:
        db = ResultsDb(args.db)
        run = Run(db, args.run)
    except Refusal as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"run-report.py: {args.db}: cannot read run {args.run}: {e}", file=sys.stderr)
        return 2
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"run-report.py: --out {out_dir}: cannot make it ({e.strerror})", file=sys.stderr)
        return 2
    try:
        page = build_page(db, args.db, run, out_dir, args.timeline_max_events)
        db.check_unchanged()
    except Refusal as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"run-report.py: {args.db}: cannot read run {args.run}: {e}", file=sys.stderr)
        return 2
    index = out_dir / "index.html"
    partial = out_dir / ".index.html.partial"
    try:
        partial.write_text(page, encoding="utf-8")
        os.replace(partial, index)  # never a half-written page
    except OSError as e:
        print(f"run-report.py: --out {out_dir}: cannot write {index} ({e.strerror})",
              file=sys.stderr)
        return 2
    size = f"{len(page) / 1e6:.1f} MB" if len(page) >= 1e6 else f"{len(page) / 1e3:.0f} KB"
    print(f"wrote {index} ({size}) in {time.monotonic() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
