# SPDX-License-Identifier: GPL-2.0-only
"""Where an iteration's time went (the iteration_times table), as the report pages show
it: the parts, their means per job in SQL, and a stacked bar per job (run page) or per
job and policy (comparison page)."""

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from report_html import FIGURE_WIDTH
from report_samples import has_table

# iteration_times column -> label, in the order of the schema reference. overlapped is
# part of compute; the others add up to the iteration.
PARTS = [("compute_ns", "compute"), ("overlapped_ns", "overlapped"),
         ("exposed_dp_ns", "exposed DP"), ("exposed_tp_ns", "exposed TP"),
         ("exposed_pp_ns", "exposed PP"), ("exposed_ep_ns", "exposed EP"),
         ("exposed_other_ns", "exposed other"), ("gate_wait_ns", "gate wait"),
         ("bubble_ns", "bubble")]
# The parts a bar stacks (they add up to the iteration), with their colours.
STACKED = [("compute_ns", "tab:blue"), ("exposed_dp_ns", "tab:orange"),
           ("exposed_tp_ns", "tab:green"), ("exposed_pp_ns", "tab:purple"),
           ("exposed_ep_ns", "tab:brown"), ("exposed_other_ns", "tab:olive"),
           ("gate_wait_ns", "tab:red"), ("bubble_ns", "0.75")]
LABEL = dict(PARTS)


def breakdown_means(db, where, args):
    """(run id, job id) -> {column: mean ns over the iterations} for the rows of
    iteration_times that match `where`; None when the table is missing. Averaged in SQL."""
    if not has_table(db, "iteration_times", ["run_id", "job_id"] + [c for c, _ in PARTS]):
        return None
    averages = ", ".join(f"AVG({c})" for c, _ in PARTS)
    return {(run, job): dict(zip((c for c, _ in PARTS), values))
            for run, job, *values in db.rows(
                f"SELECT run_id, job_id, {averages} FROM iteration_times WHERE {where}"
                " GROUP BY run_id, job_id", args)}


def breakdown_figure(bars, title=None):
    """Horizontal stacked bars, top to bottom: bars is a list of (label, {column: ns}) or
    (label, None) for a gap between groups. Returns the figure."""
    height = 0.9 + 0.24 * len(bars)
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, height))
    for row, (label, means) in enumerate(bars):
        if not means:
            continue
        left = 0.0
        for column, color in STACKED:
            width = (means.get(column) or 0) / 1e6
            if width > 0:
                ax.barh(row, width, left=left, height=0.75, color=color)
            left += width
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([label for label, _ in bars], fontsize=8 if len(bars) > 20 else 9)
    ax.set_ylim(len(bars) - 0.5, -0.5)
    ax.set_xlabel("mean iteration (ms)")
    ax.legend(handles=[Patch(color=color, label=LABEL[column]) for column, color in STACKED],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(STACKED), fontsize=8,
              frameon=False)
    if title:
        ax.set_title(title, fontsize=9, pad=22)
    fig.tight_layout()
    return fig
