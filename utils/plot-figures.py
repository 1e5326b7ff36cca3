#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Draw the papers' figures from a results database written by this module.

    utils/plot-figures.py RESULTS.db --out DIR [--figures 1,2,3,4,5,6]

Runs are chosen by runs.example:
  figure1  policy comparison on a model mix (tables jobs, iterations)
           (figure1-oversubscribed, figure1-rail-optimized: the same on further
           fabrics, drawn as further panels)
  figure2  scheduling time against cluster size (table scheduling_bench;
           see plot_scheduling_time.py)
  figure3  policy comparison on a large cluster (tables jobs, iterations)
  figure4  interleaving of jobs on one link over time (table link_samples;
           see plot_link_timelines.py)
  lingjun-200-jobs-mixed, scaling-*
           figure 5, large scale at the flow level: the policy comparison on the
           Lingjun cluster, and scheduling time per plan against cluster size from
           whole runs (table scheduler_timing; see plot_large_scale.py)
  figure6, lingjun-llm-jobs
           a multi-tenant LLM cluster: each job's training time and where its
           iterations' time went, by policy (tables jobs, iteration_times; see
           plot_llm_cluster.py), at packet level and at the flow level on Lingjun
A policy's runs are the runs of that example whose runs.scheduler is the policy;
'isolated' has two runs per job (each job alone under ECMP and alone on its best routes:
params_json's scheduler_params.Routes 'ecmp' and 'best'), and per job (seed and job id)
the faster of the two is its isolated time, and its iterations those of that run. Where 'optimal' ran, figures 1 and 3 draw its lower bound on the mean
training time (table scheduler_decisions, detail_json "reference": per optimal run
the plan with the most jobs) as a dotted line and the same plans' schedule of the
whole run on the model as a dash-dot line, normalized to fair like the bars.
figures.md ends with the gap table of the selected figures' scenarios: per scenario,
the bound, optimal planned and executed, and the best policies against them (see
plot_gap_table.py).

Writes DIR/figureN.png for every selected figure the database holds, and
DIR/figures.md: our numbers beside the papers' claims, "n/a" where data is missing.

Exit status 2, with nothing written, when the file is missing, is not a results
database (no runs table), or holds a run of a selected figure's example that is not
'complete' (or a complete run whose jobs did not finish); and, before the database is
read, when --out is the database, would write over it (a file of DIR that is another
name of it) or cannot be used. A figure whose table or runs are missing is skipped with
a message on stderr; the others are still drawn. The database is only read, and nothing
is left beside it (cli_paths.py).
"""

import argparse
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

# The scripts' shared modules sit beside them (also when this file is run through a link).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import (PathError, check_distinct, check_output_dir,  # noqa: E402
                       input_database, output_dir)
from plot_common import (MATPLOTLIB_MISSING, Refusal, ResultsDb, Skip,  # noqa: E402
                         check_complete, fmt_change, fmt_ratio, fmt_speedup, fmt_time,
                         isolated_choice, job_training_times, mean, policy_key)
from plot_gap_table import gap_table, load_bound, load_gap_rows  # noqa: E402
from plot_large_scale import (ScalingError, draw_scaling, largest_speedup,  # noqa: E402
                              load_scaling, scaling_examples, scaling_table)
from plot_llm_cluster import (FLOW_EXAMPLE, draw_llm_cluster,  # noqa: E402
                              llm_cluster_table, load_llm_cluster)
from plot_link_timelines import (draw_link_timelines, load_link_timelines,  # noqa: E402
                                 timeline_table)
from plot_scheduling_time import (best_speedup, bench_table,  # noqa: E402
                                  draw_scheduling_time, load_scheduling_bench)

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(MATPLOTLIB_MISSING)

EXAMPLES = {1: "figure1", 2: "figure2", 3: "figure3", 4: "figure4",
            5: "lingjun-200-jobs-mixed", 6: "figure6"}
# Further fabrics a figure is run on, drawn as panels beside its first
# (paper-figures runs figure 1 on a 2:1 oversubscribed leaf-spine and on a
# rail-optimized fabric too).
VARIANTS = {1: {"figure1-oversubscribed": "2:1 oversubscribed leaf-spine",
                "figure1-rail-optimized": "full-bisection rail-optimized fabric"}}

PAPER_CLAIMS = {
    "train": "up to -33%",
    "comm": "up to -48%",
    "speedup": "up to 91x",
    "large": "-26%",
}


# ----------------------------------------------------------------------------- figures 1 and 3


class PolicyMeans:
    """One policy's runs of one example, pooled."""

    def __init__(self, name):
        self.name = name
        self.runs = set()
        self.train_ns = []  # per job: end - arrival
        self.comm_ns = []  # per iteration: comm_end - comm_ready
        self.models = Counter()
        self.collectives = 0  # rows of the collectives table
        # per planned collective: (start - planned start, executed / planned duration,
        # planned duration - estimate), ns
        self.planned = []

    @property
    def train_mean(self):
        return mean(self.train_ns)

    @property
    def comm_mean(self):
        return mean(self.comm_ns)


class PolicyComparison:
    def __init__(self, example, policies):
        self.example = example
        self.fabric = None  # the fabric's name, for a figure run on several
        self.variants = []  # the same figure's PolicyComparisons on other fabrics
        self.policies = policies  # ordered for display, fair first
        self.fair = policies[0]
        self.bound = None  # a LowerBound, when optimal ran and recorded one
        self.bound_missing = None  # why there is no bound although optimal ran

    def bound_ratio(self):
        return None if self.bound is None else self.bound.mean_ns / self.fair.train_mean

    def planned_ratio(self):
        """optimal's whole-run plan on the model over fair's mean, or None."""
        return None if self.bound is None else self.bound.planned_ns / self.fair.train_mean

    def ratio(self, policy, metric):
        """policy's mean of `metric` ('train' or 'comm') over fair's, or None."""
        value = getattr(policy, f"{metric}_mean")
        base = getattr(self.fair, f"{metric}_mean")
        return None if value is None else value / base

    def find(self, name):
        return next((p for p in self.policies if p.name == name), None)


def load_policy_comparison(db, example):
    runs = db.query("SELECT run_id, scheduler FROM runs WHERE example = ?", (example,))
    if not runs:
        raise Skip(f"no runs with example '{example}'")
    db.require("jobs", ["run_id", "job_id", "model", "arrival_ns", "end_ns"])
    db.require("iterations", ["run_id", "job_id", "iter", "comm_ready_ns", "comm_end_ns"])
    policies = {}
    for run_id, scheduler in runs:
        policies.setdefault(scheduler, PolicyMeans(scheduler)).runs.add(run_id)

    for policy, _, _, model, ns in job_training_times(db, example):
        policies[policy].train_ns.append(ns)
        policies[policy].models[model] += 1
    # Isolated: each job's iterations from its faster run alone.
    isolated = isolated_choice(db, example)

    for policy, run_id, job_id, it, ready, done in db.query(
            "SELECT r.scheduler, i.run_id, i.job_id, i.iter, i.comm_ready_ns, i.comm_end_ns"
            " FROM iterations i JOIN runs r ON r.run_id = i.run_id WHERE r.example = ?"
            " ORDER BY i.run_id, i.job_id, i.iter", (example,)):
        where = f"run {run_id} ({example}, {policy}) job {job_id} iteration {it}"
        if ready is None or done is None or done < ready:
            raise Refusal(f"{db.path}: {where}: comm_ready_ns {ready}, comm_end_ns {done} "
                          "give no communication time")
        if policy == "isolated" and (run_id, job_id) not in isolated:
            continue
        policies[policy].comm_ns.append(done - ready)

    if "collectives" in db.tables and {"planned_start_ns", "estimate_ns"} <= db.columns(
            "collectives"):
        load_plans(db, example, policies)

    for name in sorted(policies):
        if not policies[name].train_ns:
            print(f"{example}: policy {name} has no jobs; left out", file=sys.stderr)
            del policies[name]
    fair = policies.get("fair")
    if fair is None:
        raise Skip(f"no 'fair' runs with example '{example}' to normalize against")
    if not fair.train_mean or not fair.comm_mean:
        raise Skip(f"fair's mean training or communication time in '{example}' is zero or missing")
    comparison = PolicyComparison(example,
                                  sorted(policies.values(), key=lambda p: policy_key(p.name)))
    if "optimal" in policies:
        try:
            comparison.bound = load_bound(db, example, policies["optimal"].runs)
        except Skip as reason:
            comparison.bound_missing = str(reason)
            print(f"{example}: no lower bound drawn: {reason}", file=sys.stderr)
    return comparison


def load_figure_comparisons(db, number):
    """A figure's policy comparison, with its runs on further fabrics as variants."""
    data = load_policy_comparison(db, EXAMPLES[number])
    for example, fabric in VARIANTS.get(number, {}).items():
        if db.query("SELECT 1 FROM runs WHERE example = ? LIMIT 1", (example,)):
            variant = load_policy_comparison(db, example)
            variant.fabric = fabric
            data.variants.append(variant)
    if data.variants:
        data.fabric = "full-bisection fat-tree"
    return data


def load_plans(db, example, policies):
    """Each policy's collectives, and how the planned ones ran against their plans."""
    for policy, count in db.query(
            "SELECT r.scheduler, COUNT(*) FROM collectives c JOIN runs r ON r.run_id = c.run_id"
            " WHERE r.example = ? GROUP BY r.scheduler", (example,)):
        policies[policy].collectives = count
    for policy, start, finish, planned_start, planned_finish, estimate in db.query(
            "SELECT r.scheduler, c.start_ns, c.finish_ns, c.planned_start_ns,"
            " c.planned_finish_ns, c.estimate_ns FROM collectives c"
            " JOIN runs r ON r.run_id = c.run_id WHERE r.example = ?"
            " AND c.planned_start_ns IS NOT NULL AND c.start_ns IS NOT NULL"
            " AND c.finish_ns IS NOT NULL ORDER BY c.run_id, c.job_id, c.iteration",
            (example,)):
        planned = planned_finish - planned_start
        if planned <= 0:
            continue
        policies[policy].planned.append(
            (start - planned_start, (finish - start) / planned, planned - estimate))


def model_mix(policy):
    parts = [f"{n}x {model or '?'}" for model, n in policy.models.most_common()]
    text = ", ".join(parts[:4])
    return text + (f" and {len(parts) - 4} more" if len(parts) > 4 else "")


# How the figures name policies whose short name says too little.
POLICY_LABELS = {"isolated": "each job alone\n(faster of ECMP\nand best routes)"}


def draw_policy_comparison(data, number, heading, path):
    fig = policy_comparison_figure(data, number, heading)
    fig.savefig(path, dpi=150)
    plt.close(fig)


def policy_comparison_figure(data, number, heading):
    panels = [data] + data.variants
    width = max(6.5, 1.15 * max(len(d.policies) for d in panels) + 2.5)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 5 * len(panels)), squeeze=False)
    for panel, ax in zip(panels, axes[:, 0]):
        title = heading if panel.fabric is None else f"{heading}, {panel.fabric}"
        policy_comparison_panel(ax, panel, number, title)
    fig.tight_layout()
    return fig


def policy_comparison_panel(ax, data, number, heading, mix=True):
    names = [POLICY_LABELS.get(p.name, p.name) for p in data.policies]
    width = 0.38
    series = (
        ("train", -width / 2, "C0", "training time (job arrival to end, mean over jobs)"),
        ("comm", width / 2, "C1",
         "communication time (collective ready to done, mean over iterations)"),
    )
    top = 1.0
    for metric, offset, color, label in series:
        xs, ys = [], []
        for i, policy in enumerate(data.policies):
            ratio = data.ratio(policy, metric)
            if ratio is not None:
                xs.append(i + offset)
                ys.append(ratio)
        bars = ax.bar(xs, ys, width, color=color, label=label)
        ax.bar_label(bars, labels=[f"{y:.2f}" for y in ys], padding=2, fontsize=8)
        top = max([top] + ys)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8, zorder=0)
    bound = data.bound_ratio()
    if bound is not None:
        # Normalized like the training bars: the same jobs' mean over fair's.
        ax.axhline(bound, color="C0", linestyle=":", linewidth=1.5,
                   label=f"{data.bound.label}: training time {bound:.2f}")
    planned = data.planned_ratio()
    if planned is not None:
        # The plan the bound is read beside: what the model expects of optimal.
        ax.axhline(planned, color="C2", linestyle="-.", linewidth=1.5,
                   label=f"optimal planned on the model (whole run): training time {planned:.2f}")
        top = max(top, planned)
    ax.set_xticks(range(len(names)), names)
    ax.set_xlabel("scheduling policy")
    ax.set_ylabel("mean time, normalized to fair (fair = 1.0)")
    ax.set_ylim(0, top * 1.3)
    ax.legend(loc="upper left", fontsize=8)
    fair = data.fair
    jobs = f"{len(fair.train_ns)} jobs" + (f" ({model_mix(fair)})" if mix else "")
    ax.set_title(f"Figure {number}: {heading}\n"
                 f"{jobs}; fair's means: training "
                 f"{fmt_time(fair.train_mean)}, communication {fmt_time(fair.comm_mean)}",
                 fontsize=10)


def comparison_table(data):
    lines = ["| Policy | Runs | Jobs | Iterations | Mean training time | Training / fair "
             "| Mean communication time | Communication / fair |",
             "|---|---|---|---|---|---|---|---|"]
    for p in data.policies:
        lines.append(f"| {p.name} | {len(p.runs)} | {len(p.train_ns)} | {len(p.comm_ns)} "
                     f"| {fmt_time(p.train_mean)} | {fmt_ratio(data.ratio(p, 'train'))} "
                     f"| {fmt_time(p.comm_mean)} | {fmt_ratio(data.ratio(p, 'comm'))} |")
    bound = data.bound
    if bound is not None:
        lines.append(f"| {bound.label} | {len(bound.references)} | {bound.jobs} | n/a "
                     f"| {fmt_time(bound.mean_ns)} | {fmt_ratio(data.bound_ratio())} | n/a "
                     "| n/a |")
    notes = []
    if data.find("isolated"):
        notes.append("isolated: each job alone, twice: under ECMP and on its best routes (its "
                     "connection groups on least-loaded paths, its own load only); per job the "
                     "faster of the two runs (Runs counts both).")
    if bound is not None:
        runs = ", ".join(str(run_id) for run_id, _, _, _ in bound.references)
        notes.append(f"{bound.label}: optimal's lower bound on the mean training time (job "
                     "start to end) that no policy can beat on the model's estimates, from "
                     "each optimal run's plan with the most jobs ("
                     f"run{'s' if len(bound.references) > 1 else ''} "
                     f"{runs}), averaged over their jobs; drawn as the dotted line. The same "
                     "plans' schedule of the whole run on the model (optimal planned): "
                     f"{fmt_time(bound.planned_ns)}, {fmt_ratio(data.planned_ratio())} x fair; "
                     "drawn as the dash-dot line.")
    elif data.bound_missing:
        notes.append(f"Lower bound: not drawn: {data.bound_missing}.")
    for note in notes:
        lines += ["", note]
    return lines


def plan_table(data, number):
    """Planners' collectives against their plans, if the database records them."""
    planners = [p for p in data.policies if p.planned]
    if not planners:
        return []
    lines = ["", f"### Figure {number}: plans against execution", "",
             "Per collective planned by the plan in force when it started (table "
             "`collectives`): how far its start was from the planned start, how long it ran "
             "for the time planned, and the slot rounding in the plan (planned duration minus "
             "the unrounded estimate).", "",
             "| Policy | Collectives | Planned | Mean abs(start - planned start) "
             "| Started early | Mean executed / planned duration | Mean rounding loss |",
             "|---|---|---|---|---|---|---|"]
    for p in planners:
        lines.append(f"| {p.name} | {p.collectives} | {len(p.planned)} "
                     f"| {fmt_time(mean([abs(d) for d, _, _ in p.planned]))} "
                     f"| {sum(1 for d, _, _ in p.planned if d < 0)} "
                     f"| {mean([r for _, r, _ in p.planned]):.3f} "
                     f"| {fmt_time(mean([loss for _, _, loss in p.planned]))} |")
    return lines


# ----------------------------------------------------------------------------- figure 5


class LargeScale:
    """Figure 5: the policy comparison on the large cluster and the scaling points."""

    def __init__(self, comparison, comparison_missing, points):
        self.comparison = comparison
        self.comparison_missing = comparison_missing
        self.points = points


def load_large_scale(db):
    comparison, missing = None, ""
    try:
        comparison = load_policy_comparison(db, EXAMPLES[5])
    except Skip as reason:
        missing = str(reason)
    try:
        points = load_scaling(db)
    except ScalingError as reason:
        raise Refusal(f"{db.path}: {reason}") from None
    if comparison is None and not points:
        raise Skip(f"{missing}, and no scaling runs")
    return LargeScale(comparison, missing, points)


def draw_large_scale(data, path):
    fig, (ax_bars, ax_time) = plt.subplots(1, 2, figsize=(15, 6))
    if data.comparison is not None:
        # The model mix of hundreds of jobs does not fit a title line.
        policy_comparison_panel(ax_bars, data.comparison, 5,
                                "large cluster (Lingjun, flow level)", mix=False)
    else:
        ax_bars.text(0.5, 0.5, f"no policy comparison: {data.comparison_missing}", ha="center",
                     va="center", transform=ax_bars.transAxes, fontsize=8, wrap=True)
        ax_bars.set_axis_off()
    draw_scaling(ax_time, data.points)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def large_scale_table(data):
    lines = ["### Training time on the large cluster", ""]
    if data.comparison is not None:
        lines += comparison_table(data.comparison)
    else:
        lines.append(f"Not drawn: {data.comparison_missing}.")
    lines += ["", "### Scheduling time against cluster size", ""]
    return lines + scaling_table(data.points)


# ----------------------------------------------------------------------------- summary


FIGURE_HEADINGS = {
    1: "policy comparison on a model mix",
    2: "scheduling time against cluster size",
    3: "policy comparison on a large cluster",
    4: "interleaving on a shared link",
    5: "large scale at the flow level",
    6: "a multi-tenant LLM cluster",
}


GAP_HEADING = "## The gap table: bound, model error and policy loss"
GAP_INTRO = (
    "Per scenario of the selected figures, mean training times (job arrival to end, over all "
    "jobs of a policy's runs) and, in brackets, over fair's. *bound (LP)*: optimal's lower "
    "bound, valid for any policy on the model's estimates; *optimal planned (model)*: "
    "optimal's best schedule of the whole run on the model, from the same reference as the "
    "bound (per optimal run the one with the most jobs); *optimal executed*: optimal's runs "
    "as simulated. *model error* = optimal executed / planned - 1: what the model misses, "
    "optimal executed against its own whole-run plan. *optimal over bound* = optimal "
    "executed / bound - 1. The policy loss is a policy against optimal executed: *best "
    "planner* is the faster of symphony and harmonics, and *best planner over optimal "
    "executed* = best planner / optimal executed - 1; *best policy* is the fastest policy "
    "other than optimal and isolated. *unproven plans*: plans of optimal's runs not proven "
    "optimal within its time limit (per run its largest 'unproven' note, summed). *goal "
    "2%*: the best planner within 2% of optimal executed (either side); *goal 3%*: optimal "
    "executed within 3% of the bound (either side).")


def gap_section(rows):
    return ["", GAP_HEADING, "", GAP_INTRO, ""] + gap_table(rows)


def summary(db, data, skipped, selected, gap_rows=()):
    """figures.md: the papers' claims beside this database's numbers, and the gap table
    of `gap_rows` (plot_gap_table.load_gap_rows)."""

    def why(number):
        if number not in selected:
            return "figure not selected"
        return skipped.get(number, "")

    def harmonics_vs_fair(number, metric, variant=None):
        comparison = data.get(number)
        if comparison is None:
            return "n/a", why(number)
        if variant is not None:
            comparison = next((v for v in comparison.variants if v.example == variant), None)
            if comparison is None:
                return "n/a", f"no runs with example '{variant}'"
        harmonics = comparison.find("harmonics")
        if harmonics is None:
            return "n/a", f"no harmonics runs with example '{comparison.example}'"
        ratio = comparison.ratio(harmonics, metric)
        if ratio is None:
            return "n/a", "harmonics has no iterations"
        return fmt_change(ratio), f"{ratio:.3f} x fair"

    def speedup():
        points = data.get(2)
        if points is None:
            return "n/a", why(2)
        best = best_speedup(points)
        if best is None:
            return "n/a", "no cluster size where Symphony's solve proved its optimum"
        gap = best.objective_gap()
        note = (f"largest median over proven solves, at {best.racks} racks"
                + ("" if gap is None else f", objective {gap * 100:+.2f}%"))
        return fmt_speedup(best.speedup()), note

    def large_vs_fair():
        large = data.get(5)
        if large is None:
            return "n/a", why(5)
        if large.comparison is None:
            return "n/a", large.comparison_missing
        harmonics = large.comparison.find("harmonics")
        ratio = None if harmonics is None else large.comparison.ratio(harmonics, "train")
        if ratio is None:
            return "n/a", f"no harmonics runs with example '{EXAMPLES[5]}'"
        return fmt_change(ratio), f"{ratio:.3f} x fair"

    def large_speedup():
        large = data.get(5)
        if large is None:
            return "n/a", why(5)
        notes = []
        for central, label in (("symphony", "one MILP"), ("symphony-split", "by parts")):
            found = largest_speedup(large.points, central)
            if found is not None:
                point, value = found
                notes.append(f"{fmt_speedup(value)} over {label} at {point.gpus} GPUs")
        if not notes:
            return "n/a", "no cluster size with both Harmonics and a proven Symphony solve"
        return notes[0].split(" over ")[0], "; ".join(notes)

    rows = [
        ("Harmonics vs fair, mean job training time (figure 1)", PAPER_CLAIMS["train"],
         *harmonics_vs_fair(1, "train")),
        ("Harmonics vs fair, mean communication time per iteration (figure 1)",
         PAPER_CLAIMS["comm"], *harmonics_vs_fair(1, "comm")),
    ]
    for example, fabric in VARIANTS[1].items():
        rows += [
            (f"Harmonics vs fair, mean job training time (figure 1, {fabric})",
             PAPER_CLAIMS["train"], *harmonics_vs_fair(1, "train", example)),
            (f"Harmonics vs fair, mean communication time per iteration (figure 1, {fabric})",
             PAPER_CLAIMS["comm"], *harmonics_vs_fair(1, "comm", example)),
        ]
    rows += [
        ("Scheduling-time speed-up of Harmonics over Symphony (figure 2)",
         PAPER_CLAIMS["speedup"], *speedup()),
        ("Large cluster: Harmonics vs fair, mean job training time (figure 3)",
         PAPER_CLAIMS["large"], *harmonics_vs_fair(3, "train")),
        ("Large cluster, flow level: Harmonics vs fair, mean job training time (figure 5)",
         PAPER_CLAIMS["large"], *large_vs_fair()),
        ("Scheduling-time speed-up of Harmonics over Symphony at the largest cluster "
         "(figure 5, whole runs)", PAPER_CLAIMS["speedup"], *large_speedup()),
    ]
    lines = ["# Figures: this database beside the papers' claims", "",
             f"Database: `{db.path}` ({db.count_runs()} runs). Changes are relative to fair "
             "(negative is faster); times are means over all jobs (training: arrival to end) "
             "or all iterations (communication: collective ready to done) of a policy's runs.",
             "", "| Claim | Paper | This database | Note |", "|---|---|---|---|"]
    lines += [f"| {claim} | {paper} | {ours} | {note} |" for claim, paper, ours, note in rows]
    tables = {1: comparison_table, 2: bench_table, 3: comparison_table, 4: timeline_table,
              5: large_scale_table, 6: llm_cluster_table}
    for number in sorted(EXAMPLES):
        lines += ["", f"## Figure {number}: {FIGURE_HEADINGS[number]}", ""]
        if number in data:
            lines += [f"![Figure {number}](figure{number}.png)", ""]
            lines += tables[number](data[number])
            if number in (1, 3):
                lines += plan_table(data[number], number)
                for variant in data[number].variants:
                    lines += ["", f"### Figure {number} on a {variant.fabric}", ""]
                    lines += comparison_table(variant)
                    lines += plan_table(variant, f"{number} ({variant.fabric})")
        else:
            lines.append(f"Not drawn: {why(number)}.")
    lines += gap_section(list(gap_rows))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- main

LOADERS = {
    1: lambda db: load_figure_comparisons(db, 1),
    2: load_scheduling_bench,
    3: lambda db: load_figure_comparisons(db, 3),
    4: load_link_timelines,
    5: load_large_scale,
    6: load_llm_cluster,
}

DRAWERS = {
    1: lambda d, p: draw_policy_comparison(d, 1, "training and communication time by policy "
                                           "(model mix)", p),
    2: draw_scheduling_time,
    3: lambda d, p: draw_policy_comparison(d, 3, "training and communication time by policy "
                                           "(large cluster)", p),
    4: draw_link_timelines,
    5: draw_large_scale,
    6: draw_llm_cluster,
}


def parse_figures(text):
    try:
        numbers = {int(part) for part in text.split(",") if part.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of 1-5") from None
    if not numbers or not numbers <= set(EXAMPLES):
        raise argparse.ArgumentTypeError(f"'{text}': figures are numbered 1 to 6")
    return numbers


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Draw the papers' figures (PNG) and figures.md from a results database.")
    parser.add_argument("db", help="SQLite results database written by the module")
    parser.add_argument("--out", required=True, help="directory for figureN.png and figures.md")
    parser.add_argument("--figures", type=parse_figures, default=set(EXAMPLES),
                        help="comma-separated figure numbers (default 1,2,3,4,5,6)")
    args = parser.parse_args(argv)
    selected = sorted(args.figures)

    # Everything is read and checked before anything is written; the output first, which
    # must be none of the database's files and a directory that can be written.
    data, skipped, gap_rows = {}, {}, []
    try:
        names = [f"figure{n}.png" for n in sorted(EXAMPLES)] + ["figures.md"]
        check_distinct(output_dir("--out", args.out, names), input_database(args.db))
        check_output_dir("--out", args.out)
        db = ResultsDb(args.db)
        examples = [example for n in selected for example in [EXAMPLES[n], *VARIANTS.get(n, {})]]
        if 5 in selected:
            examples += scaling_examples(db)
        if 6 in selected:
            examples.append(FLOW_EXAMPLE)
        check_complete(db, examples)
        for number in selected:
            try:
                data[number] = LOADERS[number](db)
            except Skip as reason:
                skipped[number] = str(reason)
                print(f"figure {number} skipped: {reason}", file=sys.stderr)
        gap_rows = load_gap_rows(db, selected)
    except (Refusal, PathError) as reason:
        print(f"plot-figures.py: {reason}\nnothing written", file=sys.stderr)
        return 2

    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="plot-figures-") as stage:
        for number, figure in data.items():
            DRAWERS[number](figure, os.path.join(stage, f"figure{number}.png"))
        Path(stage, "figures.md").write_text(summary(db, data, skipped, selected, gap_rows))
        try:
            db.check_unchanged()
        except Refusal as reason:
            print(f"plot-figures.py: {reason}\nnothing written", file=sys.stderr)
            return 2
        out.mkdir(parents=True, exist_ok=True)
        for number in skipped:
            # A picture left from an earlier database would contradict figures.md.
            stale = out / f"figure{number}.png"
            if stale.exists():
                stale.unlink()
                print(f"removed stale {stale}", file=sys.stderr)
        for name in sorted(os.listdir(stage)):
            shutil.move(os.path.join(stage, name), out / name)
            print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
