# SPDX-License-Identifier: GPL-2.0-only
"""The run page's Gantt chart (run-report.py): per job, or per rank group of a job whose
ranks compute in groups (an LLM job's pipeline stages and data-parallel replicas), the
time it computed and communicated, and the times the scheduler held its gate closed.
Rows are merged into half-pixel bins as they are read: a lane's size does not depend on
how many rows it is drawn from."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Patch

from report_html import FIGURE_WIDTH, compact_ranges, figure_html, para
from report_samples import has_table

MAX_GANTT_JOBS = 40
MAX_LANES = 64  # rows of the chart; a job's rank groups share what its jobs leave
MAX_GROUP_LANES = 8  # rank groups drawn per job
LANE_BINS = 2400  # time bins of a row (half a pixel each)


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


def parse_ranks(text):
    """op_spans.ranks ('0-7,16-23', '0,8') as a tuple of rank numbers."""
    ranks = []
    for part in (text or "").split(","):
        if "-" in part:
            first, last = part.split("-", 1)
            ranks.extend(range(int(first), int(last) + 1))
        elif part.strip():
            ranks.append(int(part))
    return tuple(ranks)


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


def rank_groups(db, run, jobs):
    """job id -> (the rank groups drawn, each a tuple of ranks; how many the job has): the
    distinct sets of ranks its compute ops run on (op_spans), in rank order."""
    marks = ",".join("?" * len(jobs))
    found = {}
    for job, ranks in db.rows(f"SELECT DISTINCT job_id, ranks FROM op_spans WHERE run_id = ?"
                              f" AND job_id IN ({marks}) AND kind = 'compute'",
                              (run.run_id, *jobs)):
        found.setdefault(job, []).append(parse_ranks(ranks))
    per_job = max(1, min(MAX_GROUP_LANES, MAX_LANES // max(len(jobs), 1)))
    groups = {}
    for job, sets in found.items():
        sets.sort()
        groups[job] = (sets[:per_job] if per_job > 1 and len(sets) > 1 else [], len(sets))
    return groups


def span_lanes(db, run, jobs):
    """From op_spans, job id -> (its groups, [(compute Lane, communication Lane)] a lane
    per group drawn, or one for the whole job): an op is drawn in the lane of every group
    drawn that shares a rank with it (a data-parallel all-reduce in each replica's)."""
    if not has_table(db, "op_spans", ["run_id", "job_id", "kind", "start_ns", "end_ns",
                                      "ranks"]):
        return {}, {}
    axis_end = max(run.end_ns, 1)
    groups = rank_groups(db, run, jobs)
    lanes, lane_of = {}, {}  # job -> lanes; (job, ranks text) -> indexes of its lanes
    marks = ",".join("?" * len(jobs))
    for job, comm, ranks, start, end in db.rows(
            f"SELECT job_id, kind IS NOT 'compute', ranks, start_ns, end_ns FROM op_spans"
            f" WHERE run_id = ? AND job_id IN ({marks}) AND start_ns IS NOT NULL"
            f" AND end_ns IS NOT NULL ORDER BY job_id, 2, start_ns", (run.run_id, *jobs)):
        drawn = groups.get(job, ([], 0))[0]
        if job not in lanes:
            lanes[job] = [(Lane(axis_end), Lane(axis_end)) for _ in drawn or [()]]
        key = (job, ranks)
        if key not in lane_of:
            members = set(parse_ranks(ranks))
            lane_of[key] = ([i for i, g in enumerate(drawn) if members.intersection(g)]
                            if drawn else [0])
        for i in lane_of[key]:
            lanes[job][i][comm].add(start, end)
    return groups, lanes


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


def chart_rows(db, run, jobs):
    """The chart's rows, top to bottom: (job, label, compute Lane, communication Lane), and
    the number of jobs drawn from op_spans and of jobs drawn by rank group."""
    groups, spans = span_lanes(db, run, jobs)
    models = {j["job_id"]: j["model"] for j in run.jobs}
    rows, grouped = [], 0
    for job in jobs:
        name = f"job {job}" + (f" ({models[job]})" if models.get(job) else "")
        if job not in spans:
            rows.append((job, name, *iteration_lanes(db, run, job)))
            continue
        drawn, total = groups.get(job, ([], 0))
        if not drawn:
            rows.append((job, name, *spans[job][0]))
            continue
        grouped += 1
        for i, (group, (compute, comm)) in enumerate(zip(drawn, spans[job])):
            label = f"ranks {compact_ranges(group)}"
            if i == 0:
                label = f"{name} {label}"
            rows.append((job, label, compute, comm))
    return rows, len(spans), grouped, groups


def gantt_caption(run, jobs, spans, grouped, groups, drawn):
    spans_text = ("op_spans (each lane: the union of the compute ops, below, and of the "
                  "communication ops, above)")
    iterations_text = ("iterations (compute: compute start to communication ready; "
                       "communication: its start to its end)")
    if not spans:
        source = iterations_text
    elif spans == len(jobs):
        source = spans_text
    else:
        source = f"{spans_text} where the job has them, else from {iterations_text}"
    caption = (f"One row per job; bars from {source}, lighter where they cover only part of "
               "the time a pixel spans; hatched: the job's gate closed (gates).")
    if grouped:
        cut = [f"job {job}: {len(d)} of {n}" for job, (d, n) in sorted(groups.items())
               if d and len(d) < n]
        caption += (" A job whose ranks compute in groups (an LLM job's pipeline stages and "
                    "data-parallel replicas) has a row per group, named by its ranks; a "
                    "communication op is drawn in the row of every group it shares a rank "
                    "with, and a gap in a row's compute is that group idle (the pipeline "
                    "bubble).")
        if cut:
            caption += f" Rank groups drawn: {', '.join(cut)}."
    if not spans:
        caption += (" Without op_spans (older builds), compute that overlaps communication is "
                    "drawn as communication.")
    if len(jobs) < len(run.jobs):
        caption += (f" Showing the {len(jobs)} of {len(run.jobs)} jobs with the most "
                    "communication time.")
    if not drawn:
        caption += " The jobs have no iteration rows yet."
    return caption


def section_gantt(db, run):
    parts = ['<section id="gantt">', "<h2>3. Job Gantt chart</h2>"]
    jobs = run.busiest_jobs(MAX_GANTT_JOBS)
    if not jobs:
        parts.append(para("No jobs to draw: the run has no rows in the jobs table."))
        return "\n".join(parts + ["</section>"])
    rows, spans, grouped, groups = chart_rows(db, run, jobs)
    gates = gate_closed(db, run, jobs)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 1.4 + 0.4 * len(rows)))
    drawn = False
    for row, (job, _, compute, comm) in enumerate(rows):
        # Gates behind the bars: what shows is a closed gate while the job waits (a bin
        # closed more than half of its time).
        if job in gates:
            ax.broken_barh(gates[job].bars(least=0.5)[0], (row - 0.4, 0.8), facecolors="none",
                           edgecolors="0.45", hatch="////", linewidth=0, zorder=1)
        # Compute below communication, so that overlap (op_spans) stays visible.
        drawn = draw_lane(ax, compute, (row, 0.35), "tab:blue", 2) | drawn
        drawn = draw_lane(ax, comm, (row - 0.35, 0.35), "tab:orange", 2) | drawn
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for _, label, _, _ in rows], fontsize=8 if len(rows) > 15 else 10)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # job order top to bottom
    ax.set_xlim(0, max(run.end_ns, 1) / 1e6)
    ax.set_xlabel("simulated time (ms)")
    ax.legend(handles=[Patch(color="tab:blue", label="compute"),
                       Patch(color="tab:orange", label="communication"),
                       Patch(facecolor="none", edgecolor="0.45", hatch="////",
                             label="gate closed")],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
              frameon=False)
    fig.tight_layout()
    caption = gantt_caption(run, jobs, spans, grouped, groups, drawn)
    labels = "; ".join(label for _, label, _, _ in rows)
    parts += [figure_html(fig, f"Gantt chart of {len(jobs)} jobs of run {run.run_id} in "
                               f"{len(rows)} rows ({labels}): compute, communication and "
                               "closed gates over time", caption),
              "</section>"]
    return "\n".join(parts)
