# SPDX-License-Identifier: GPL-2.0-only
"""Scheduling time against cluster size, from whole runs (plot-figures.py's figure 5).

The runs are those whose runs.example starts with "scaling-" (the scenarios of
examples/scenarios/scaling/, one cluster size each). A run's planner is its
scheduler, and for symphony whether it solved each plan's independent parts apart
(scheduler_params.SolveByParts). Its scheduling time per plan is the mean of its
scheduler_timing part "scheduling": Symphony's whole solve, Harmonics' coordinator
plus its slowest Local Scheduler (they run in parallel), wall-clock microseconds.
"""

import json

from plot_common import fmt_speedup

SCALING_PREFIX = "scaling-"

# Planner -> (colour, marker, label), in drawing order.
PLANNER_STYLES = {
    "symphony": ("C3", "s", "Symphony (one MILP over the cluster)"),
    "symphony-split": ("C1", "v", "Symphony, each independent part apart"),
    "harmonics": ("C0", "o", "Harmonics (coordinator + slowest per-rack MILP)"),
}


class ScalingError(Exception):
    """A scaling run whose records cannot be read as a point of the curve."""


class ScalingRun:
    """One planner's run at one cluster size."""

    def __init__(self, run_id, plans, mean_us, max_us, wall_s, time_limit_s):
        self.run_id = run_id
        self.plans = plans
        self.mean_ms = mean_us / 1000
        self.max_ms = max_us / 1000
        self.wall_s = wall_s
        # A plan as long as the solver's limit was cut off: the mean is then a lower bound.
        self.hit_limit = time_limit_s is not None and time_limit_s > 0 and \
            max_us >= 0.99 * time_limit_s * 1e6


class ScalingPoint:
    """The planners' runs on one cluster."""

    def __init__(self, example, gpus, jobs):
        self.example = example
        self.gpus = gpus
        self.jobs = jobs
        self.runs = {}  # planner -> ScalingRun

    @property
    def name(self):
        return self.example[len(SCALING_PREFIX):]

    def speedup(self, central):
        """Harmonics' mean scheduling time per plan below `central`'s (None if either is
        missing or the central solve hit its time limit)."""
        c, h = self.runs.get(central), self.runs.get("harmonics")
        if c is None or h is None or c.hit_limit or h.mean_ms <= 0:
            return None
        return c.mean_ms / h.mean_ms


def _seconds(text):
    """An ns-3 time attribute's text ("10s", "500ms", "0s") in seconds, None if unknown."""
    units = (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("min", 60.0), ("s", 1.0))
    for suffix, factor in units:
        if isinstance(text, str) and text.endswith(suffix):
            try:
                return float(text[:-len(suffix)]) * factor
            except ValueError:
                return None
    return None


def scaling_examples(db):
    """The examples of the scaling runs in `db`, sorted."""
    return [e for (e,) in db.query(
        "SELECT DISTINCT example FROM runs WHERE substr(example, 1, ?) = ? ORDER BY example",
        (len(SCALING_PREFIX), SCALING_PREFIX))]


def load_scaling(db):
    """The scaling points in `db`, by GPUs; [] if there are none.
    Raises ScalingError naming the run and field of a record that cannot be used."""
    examples = scaling_examples(db)
    if not examples:
        return []
    if "scheduler_timing" not in db.tables:
        raise ScalingError("scaling runs but no scheduler_timing table")
    points = {}
    for example in examples:
        for run_id, scheduler, params_text, wall_s in db.query(
                "SELECT run_id, scheduler, params_json, wall_s FROM runs WHERE example = ?"
                " ORDER BY run_id", (example,)):
            where = f"run {run_id} ({example}, {scheduler})"
            try:
                params = json.loads(params_text)
                gpus = int(params["hosts"]) * int(params["gpusPerHost"])
                jobs = int(params["jobs"])
                scheduler_params = params.get("scheduler_params") or {}
            except (ValueError, KeyError, TypeError) as e:
                raise ScalingError(f"{where}: params_json lacks hosts, gpusPerHost or jobs "
                                   f"({e})") from None
            if scheduler not in ("symphony", "harmonics"):
                continue  # other policies have no plans to time
            planner = scheduler
            if scheduler == "symphony" and scheduler_params.get("SolveByParts") == "true":
                planner = "symphony-split"
            timing = db.query("SELECT count, mean_us, max_us FROM scheduler_timing"
                              " WHERE run_id = ? AND part = 'scheduling'", (run_id,))
            if not timing or timing[0][0] <= 0:
                raise ScalingError(f"{where}: no 'scheduling' row in scheduler_timing")
            plans, mean_us, max_us = timing[0]
            point = points.setdefault(example, ScalingPoint(example, gpus, jobs))
            if point.gpus != gpus:
                raise ScalingError(f"{where}: {gpus} GPUs where the example's other runs have "
                                   f"{point.gpus}")
            if planner in point.runs:
                raise ScalingError(f"{where}: a second {planner} run of {example}: keep one "
                                   "per database")
            point.runs[planner] = ScalingRun(run_id, plans, mean_us, max_us, wall_s,
                                             _seconds(scheduler_params.get("TimeLimit")))
    return sorted((p for p in points.values() if p.runs), key=lambda p: (p.gpus, p.example))


def draw_scaling(ax, points):
    """Mean scheduling time per plan against GPUs on `ax`, log-log, with Harmonics'
    speed-up over each central variant written at each size."""
    if not points:
        ax.text(0.5, 0.5, "no scaling runs", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    for planner, (color, marker, label) in PLANNER_STYLES.items():
        mine = [p for p in points if planner in p.runs]
        if not mine:
            continue
        ax.plot([p.gpus for p in mine], [p.runs[planner].mean_ms for p in mine], color=color,
                marker=marker, label=label)
        cut = [p for p in mine if p.runs[planner].hit_limit]
        if cut:
            ax.scatter([p.gpus for p in cut], [p.runs[planner].mean_ms for p in cut], s=110,
                       marker="^", facecolors="white", edgecolors=color, zorder=3,
                       label=f"{label}: hit its time limit (a lower bound)")
    for p in points:
        texts = [f"{fmt_speedup(p.speedup(c))} vs {c}" for c in ("symphony", "symphony-split")
                 if p.speedup(c) is not None]
        if texts and "harmonics" in p.runs:
            ax.annotate("\n".join(texts), (p.gpus, p.runs["harmonics"].mean_ms), xytext=(0, 8),
                        textcoords="offset points", ha="center", va="bottom", fontsize=6,
                        color="C0")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([p.gpus for p in points], [f"{p.gpus}\n{p.name}" for p in points], fontsize=7)
    ax.minorticks_off()
    ax.set_xlabel("cluster size (GPUs, log scale)")
    ax.set_ylabel("scheduling time per plan (ms, mean, log scale)")
    ax.grid(True, which="major", linewidth=0.3)
    ax.legend(loc="upper left", fontsize=7)
    ax.set_title("scheduling time against cluster size (whole runs, flow level)", fontsize=10)


def scaling_table(points):
    """figures.md lines for the scaling points."""
    if not points:
        return ["No scaling runs (runs whose example starts with 'scaling-')."]
    lines = ["| Cluster | GPUs | Jobs | Symphony (ms per plan, plans) "
             "| Symphony by parts (ms, plans) | Harmonics (ms, plans) "
             "| Speed-up over Symphony | Speed-up over by parts |",
             "|---|---|---|---|---|---|---|---|"]

    def cell(p, planner):
        r = p.runs.get(planner)
        if r is None:
            return "n/a"
        limit = ", hit its time limit" if r.hit_limit else ""
        return f"{r.mean_ms:.3g} ({r.plans}{limit})"

    for p in points:
        lines.append(f"| {p.name} | {p.gpus} | {p.jobs} | {cell(p, 'symphony')} "
                     f"| {cell(p, 'symphony-split')} | {cell(p, 'harmonics')} "
                     f"| {fmt_speedup(p.speedup('symphony'))} "
                     f"| {fmt_speedup(p.speedup('symphony-split'))} |")
    lines += ["", "Mean wall-clock scheduling time per plan over each whole run (table "
              "scheduler_timing, part 'scheduling'); the runs plan with the same slots and "
              "epochs, but each makes its own number of plans. A run whose longest plan "
              "reached the solver's time limit counts no speed-up."]
    return lines


def largest_speedup(points, central="symphony"):
    """(point, speed-up) at the largest cluster where Harmonics' speed-up over `central`
    is known, or None."""
    known = [p for p in points if p.speedup(central) is not None]
    return (known[-1], known[-1].speedup(central)) if known else None

