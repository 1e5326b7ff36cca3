# SPDX-License-Identifier: GPL-2.0-only
"""Figure 4 of plot-figures.py: per-job throughput over time on each run's busiest link
shared by two jobs (table link_samples), and its table in figures.md."""

import json
import math
import sys
from collections import Counter

from plot_common import MATPLOTLIB_MISSING, Skip, fmt_time, policy_key

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
except ImportError:
    sys.exit(MATPLOTLIB_MISSING)


class LinkTimeline:
    """One run's per-job throughput on its busiest link shared by two jobs."""

    def __init__(self, run_id, policy):
        self.run_id = run_id
        self.policy = policy
        self.interval_ns = 0
        self.link = None  # (link_id, direction), or None if no link carried two jobs
        self.nodes = None  # (from, to) node ids, when the links table has the link
        self.rate_gbps = None
        self.end_ns = 0
        self.bytes = {}  # job id (None: no job) -> {interval index: bytes}

    def jobs(self):
        return sorted(self.bytes, key=lambda j: (j is None, j if j is not None else 0))

    def shared_fraction(self):
        """Of the intervals in which the link was busy, the share in which 2+ jobs sent."""
        busy = Counter()
        for job, series in self.bytes.items():
            if job is None:
                continue
            for index, value in series.items():
                if value > 0:
                    busy[index] += 1
        return sum(1 for n in busy.values() if n >= 2) / len(busy) if busy else None


def load_link_timelines(db):
    runs = db.query("SELECT run_id, scheduler, params_json FROM runs WHERE example = 'figure4'"
                    " ORDER BY run_id")
    if not runs:
        raise Skip("no runs with example 'figure4'")
    db.require("link_samples", ["run_id", "link_id", "direction", "job_id", "t_ns", "tx_bytes"])
    links = "links" in db.tables and {"run_id", "link_id", "node_a", "node_b",
                                      "rate_bps"} <= db.columns("links")
    # Since schema 7 the NVSwitch ports' rows (kind 'nvswitch') share the table.
    fabric = " AND kind = 'fabric'" if "kind" in db.columns("link_samples") else ""
    timelines = []
    for run_id, policy, params_json in sorted(runs, key=lambda r: (policy_key(r[1]), r[0])):
        where = f"run {run_id} ({policy})"
        try:
            interval = json.loads(params_json).get("sample_interval_ns")
        except (ValueError, AttributeError, TypeError):
            raise Skip(f"{where}: params_json is not a JSON object") from None
        if not isinstance(interval, int) or interval <= 0:
            raise Skip(f"{where}: link sampling was off (params_json sample_interval_ns is "
                       f"{interval!r})")
        timeline = LinkTimeline(run_id, policy)
        timeline.interval_ns = interval
        last = db.query(f"SELECT MAX(t_ns) FROM link_samples WHERE run_id = ?{fabric}",
                        (run_id,))[0][0]
        if last is None:
            raise Skip(f"{where}: no link_samples rows")
        timeline.end_ns = last + interval
        chosen = db.query(
            f"SELECT link_id, direction FROM link_samples WHERE run_id = ?{fabric}"
            " GROUP BY link_id, direction"
            " HAVING COUNT(DISTINCT CASE WHEN tx_bytes > 0 THEN job_id END) >= 2"
            " ORDER BY SUM(tx_bytes) DESC, link_id, direction LIMIT 1", (run_id,))
        if chosen:
            timeline.link = tuple(chosen[0])
            link_id, direction = timeline.link
            for job, t_ns, tx in db.query(
                    "SELECT job_id, t_ns, SUM(tx_bytes) FROM link_samples WHERE run_id = ?"
                    f" AND link_id = ? AND direction = ?{fabric} GROUP BY job_id, t_ns",
                    (run_id, link_id, direction)):
                series = timeline.bytes.setdefault(job, {})
                index = round(t_ns / interval)
                series[index] = series.get(index, 0) + tx
            if links:
                row = db.query("SELECT node_a, node_b, rate_bps FROM links"
                               " WHERE run_id = ? AND link_id = ?", (run_id, link_id))
                if row:
                    a, b, rate = row[0]
                    timeline.nodes = (a, b) if direction == 0 else (b, a)
                    timeline.rate_gbps = rate / 1e9 if rate else None
        timelines.append(timeline)
    return timelines


def link_name(t):
    link_id, direction = t.link
    if t.nodes:
        return f"link {link_id}, node {t.nodes[0]} -> node {t.nodes[1]}"
    return f"link {link_id}, direction {'a->b' if direction == 0 else 'b->a'}"


def draw_link_timelines(timelines, path):
    all_jobs = sorted({j for t in timelines for j in t.bytes if j is not None})
    colors = {job: f"C{i % 10}" for i, job in enumerate(all_jobs)}
    colors[None] = "lightgrey"
    fig, axes = plt.subplots(len(timelines), 1, sharex=True, sharey=True, squeeze=False,
                             figsize=(8.5, 1.2 + 2.4 * len(timelines)))
    rate_drawn = False
    for ax, t in zip(axes[:, 0], timelines):
        if t.link is None:
            ax.text(0.5, 0.5, "no link carried the traffic of two jobs", ha="center",
                    va="center", transform=ax.transAxes)
            ax.set_title(f"{t.policy} (run {t.run_id})", fontsize=10)
            ax.set_ylabel("throughput (Gb/s)")
            continue
        count = math.ceil(t.end_ns / t.interval_ns)
        # Step plot: each sample holds for its interval; the repeated last value closes it.
        xs = [i * t.interval_ns / 1e6 for i in range(count + 1)]
        lower = [0.0] * (count + 1)
        for job in t.jobs():
            series = t.bytes[job]
            # bytes * 8 / ns = Gb/s
            upper = [lower[i] + series.get(min(i, count - 1), 0) * 8 / t.interval_ns
                     for i in range(count + 1)]
            ax.fill_between(xs, lower, upper, step="post", color=colors[job], linewidth=0)
            lower = upper
        if t.rate_gbps:
            ax.axhline(t.rate_gbps, color="black", linestyle="--", linewidth=0.8)
            rate_drawn = True
        ax.set_title(f"{t.policy} (run {t.run_id}): {link_name(t)}", fontsize=10)
        ax.set_ylabel("throughput (Gb/s)")
        ax.set_ylim(bottom=0)
    axes[-1, 0].set_xlabel(f"simulated time (ms); samples of "
                           f"{fmt_time(timelines[0].interval_ns)}")
    axes[-1, 0].set_xlim(left=0)
    handles = [Patch(color=colors[j], label=f"job {j}") for j in all_jobs]
    if any(None in t.bytes for t in timelines):
        handles.append(Patch(color=colors[None], label="no job (e.g. PFC)"))
    if rate_drawn:
        handles.append(plt.Line2D([], [], color="black", linestyle="--", label="link rate"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 6), fontsize=8)
    fig.suptitle("Figure 4: per-job throughput (stacked) on the busiest link shared by two "
                 "jobs", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=150)
    plt.close(fig)


def timeline_table(timelines):
    lines = ["| Policy | Run | Link | Jobs on the link | Busy intervals shared by 2+ jobs |",
             "|---|---|---|---|---|"]
    for t in timelines:
        if t.link is None:
            lines.append(f"| {t.policy} | {t.run_id} | none shared by two jobs | n/a | n/a |")
            continue
        jobs = ", ".join(str(j) for j in t.jobs() if j is not None)
        share = t.shared_fraction()
        lines.append(f"| {t.policy} | {t.run_id} | {link_name(t)} | {jobs} "
                     f"| {'n/a' if share is None else f'{share * 100:.1f}%'} |")
    return lines
