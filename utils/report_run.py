# SPDX-License-Identifier: GPL-2.0-only
"""The run page's data and sections (run-report.py): the run, its parameters and outcome,
the jobs with where their iterations' time went, the links' utilization and the busiest
ports' queues. Every table is summed, binned or merged as it is read."""

import json

import matplotlib.pyplot as plt
import numpy as np

from plot_common import Refusal, fmt_time
from report_breakdown import PARTS, breakdown_figure, breakdown_means
from report_html import (FIGURE_WIDTH, compact_ranges, count, esc, figure_html, ms, na,
                         para, shorten, table, tall_table)
from report_samples import (TimeBins, fabric_rows, has_table, link_interval, link_label,
                            link_names, link_totals, sample_interval, select_columns,
                            utilization_matrix)
from results_runs import run_state

MAX_HEAT_LINKS = 60
MAX_PORTS = 4
LINK_SAMPLES_HINT = ("packet-level runs sample their links every 1 ms by default; this one had "
                     "it off (ns3::LinkSampler::Interval=0), ran at the flow level or on several "
                     "MPI ranks, or was made by an older build. Run the example with "
                     "--ns3::LinkSampler::Interval=100us for finer samples, or set that attribute "
                     "in the scenario's \"attributes\"")
PORT_MONITOR_HINT = ("packet-level runs sample their ports every 1 ms by default; run the "
                     "example with --ns3::PortMonitor::Interval=10us for finer samples")


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


def section_jobs(db, run):
    parts = ['<section id="jobs">', "<h2>2. Jobs</h2>"]
    if not run.jobs:
        parts.append(para("No jobs: the run has no rows in the jobs table."))
        return "\n".join(parts + ["</section>"])
    headers = ["job", "model", "workers", "placement", "arrival (ms)", "start (ms)", "end (ms)",
               "iterations", "training time (ms)", "mean iteration (ms)"]
    rows = []
    for j in run.jobs:
        mean = run.mean_iteration_ns(j["job_id"])
        start, end = j["start_ns"], j["end_ns"]
        train = end - start if end is not None and start is not None else None
        rows.append([j["job_id"], j["model"] or "n/a", na(j["workers"]),
                     placement_summary(j["placement_json"], j["gpus_per_host"]),
                     ms(j["arrival_ns"]), ms(start),
                     ms(end) if end is not None else "not finished", na(j["iterations"]),
                     ms(train), ms(mean) if mean is not None else "n/a"])
    # Hundreds of jobs: the table scrolls down in its box, never sideways.
    parts += [tall_table(headers, rows, set(range(4, len(headers))) | {0, 2}),
              para("Training time is end - start; the mean iteration runs from an iteration's "
                   "compute start to its communication end (table iterations).", "note"),
              section_breakdown(db, run), "</section>"]
    return "\n".join(parts)


def section_breakdown(db, run):
    """Where each job's iterations went: a stacked bar per job, its numbers below."""
    means = breakdown_means(db, "run_id = ?", (run.run_id,))
    parts = ['<h3 id="breakdown">Where the iterations\' time went</h3>']
    if means is None:
        return "\n".join(parts + [para("No breakdown: the database has no iteration_times "
                                        "table (an older build).")])
    if not means:
        return "\n".join(parts + [para("No breakdown: iteration_times has no rows for this "
                                        "run.")])
    models = {j["job_id"]: j["model"] for j in run.jobs}
    jobs = sorted(job for _, job in means)
    bars = [(f"job {job}" + (f" ({models[job]})" if models.get(job) else ""),
             means[(run.run_id, job)]) for job in jobs]
    fig = breakdown_figure(bars)
    parts.append(figure_html(fig, f"Stacked bars of the mean iteration of each of the "
                                  f"{len(jobs)} jobs of run {run.run_id}, by where its time "
                                  "went", "A bar per job: the mean iteration, split into "
                                  "compute, exposed communication by group, gate wait and "
                                  "bubble (they add up to the iteration)."))
    headers = ["job"] + [f"{label} (ms)" for _, label in PARTS]
    rows = [[job] + [ms(means[(run.run_id, job)][c]) for c, _ in PARTS] for job in jobs]
    parts += [tall_table(headers, rows, set(range(len(headers)))),
              para("The mean over iterations of iteration_times (itself a mean over ranks): "
                   "compute + exposed + gate wait + bubble = the iteration; overlapped is the "
                   "part of compute that ran beside communication.", "note")]
    return "\n".join(parts)


def heat_links(totals, links, limit):
    """The directed links drawn, busiest first (at most limit), how many carried traffic
    with a rate known, and how many carried traffic without one."""
    busy = sorted((key for key, (total, _) in totals.items() if total > 0 and key[0] in links
                   and links[key[0]][2]), key=lambda k: (-totals[k][0], k))
    unknown = sum(1 for key, (total, _) in totals.items() if total > 0 and key not in busy)
    return busy[:limit], len(busy), unknown


def section_links(db, run):
    parts = ['<section id="links">', "<h2>4. Link utilization</h2>"]
    # Everything is summed or binned in SQL and read row by row: the samples of a long
    # run are never held.
    totals = link_totals(db, run.run_id)
    if not totals:
        missing = ("" if "link_samples" in db.tables
                   else " (the database has no link_samples table)")
        parts += [para(f"No link samples in this run{missing}: {LINK_SAMPLES_HINT}."),
                  "</section>"]
        return "\n".join(parts)
    links = link_names(db, run.run_id)
    interval = link_interval(db, run.run_id, run.params)
    busy, carried, unknown = heat_links(totals, links, MAX_HEAT_LINKS)
    if not busy:
        parts += [para("The link samples name no link of the links table with a rate, so "
                       "utilization cannot be computed."), "</section>"]
        return "\n".join(parts)
    bins = TimeBins(interval, max(last for _, last in totals.values()))
    matrix, peak = utilization_matrix(db, run.run_id, busy, links, interval, bins)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 1.6 + 0.17 * len(busy)))
    image = ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap="viridis",
                      vmin=0, vmax=1, extent=(0, bins.end_ms, len(busy), 0))
    ax.set_yticks([i + 0.5 for i in range(len(busy))])
    ax.set_yticklabels([link_label(links, *key) for key in busy],
                       fontsize=7 if len(busy) > 20 else 9)
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
    fig, axes = plt.subplots(len(ports), 2, figsize=(FIGURE_WIDTH, 0.6 + 2.3 * len(ports)),
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

