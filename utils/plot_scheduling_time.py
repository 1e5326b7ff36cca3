# SPDX-License-Identifier: GPL-2.0-only
"""Figure 2 of plot-figures.py: each planner's time to plan one epoch against cluster size
(table scheduling_bench), Harmonics' speed-up, and their table in figures.md."""

import sys
from collections import defaultdict

from plot_common import MATPLOTLIB_MISSING, Refusal, Skip, fmt_speedup, median

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullLocator
except ImportError:
    sys.exit(MATPLOTLIB_MISSING)

PLANNERS = ("symphony", "symphony-split", "harmonics")


class BenchRep:
    """One planner on one instance (seed)."""

    def __init__(self, wall_ms, objective, proven, hit_limit):
        self.wall_ms = wall_ms
        self.objective = objective
        self.proven = bool(proven)
        self.hit_limit = bool(hit_limit)


class BenchPoint:
    """The planners at one cluster size, over the seeds measured there."""

    def __init__(self, racks):
        self.racks = racks
        self.jobs = 0
        self.gpus = 0
        self.reps = defaultdict(dict)  # planner -> seed -> BenchRep

    def walls(self, planner):
        return [r.wall_ms for r in self.reps[planner].values()]

    def median_ms(self, planner):
        return median(self.walls(planner))

    def hits(self, planner):
        return sum(r.hit_limit for r in self.reps[planner].values())

    def seeds(self, planner):
        return len(self.reps[planner])

    def proven_pairs(self, central="symphony"):
        """(central, harmonics) of every seed where the central solve proved its optimum."""
        out = []
        for seed, c in sorted(self.reps[central].items()):
            h = self.reps["harmonics"].get(seed)
            if h is not None and c.proven:
                out.append((c, h))
        return out

    def speedup(self, central="symphony"):
        """Median speed-up over the seeds whose central solve proved its optimum."""
        return median([c.wall_ms / h.wall_ms for c, h in self.proven_pairs(central)])

    def objective_gap(self, central="symphony"):
        """Median of Harmonics' objective over the proven central solve's, minus 1."""
        return median([h.objective / c.objective - 1 for c, h in self.proven_pairs(central)
                       if c.objective and h.objective is not None])


def load_scheduling_bench(db):
    if not db.query("SELECT 1 FROM runs WHERE example = 'figure2' LIMIT 1"):
        raise Skip("no runs with example 'figure2'")
    db.require("scheduling_bench",
               ["run_id", "racks", "jobs", "gpus", "planner", "wall_ms", "objective", "proven",
                "seed", "hit_limit"])
    marks = ",".join("?" * len(PLANNERS))
    rows = db.query("SELECT b.racks, b.jobs, b.gpus, b.planner, b.seed, b.wall_ms, b.objective,"
                    " b.proven, b.hit_limit FROM scheduling_bench b"
                    " JOIN runs r ON r.run_id = b.run_id"
                    f" WHERE r.example = 'figure2' AND b.planner IN ({marks})", PLANNERS)
    if not rows:
        raise Skip("scheduling_bench has no symphony or harmonics rows for the 'figure2' runs")
    points = {}
    for racks, jobs, gpus, planner, seed, wall_ms, objective, proven, hit_limit in rows:
        if racks is None or wall_ms is None or racks <= 0 or wall_ms <= 0:
            raise Refusal(f"{db.path}: scheduling_bench row with racks {racks}, planner {planner}"
                          f" has no positive wall_ms ({wall_ms})")
        point = points.setdefault(racks, BenchPoint(racks))
        point.jobs = max(point.jobs, jobs or 0)
        point.gpus = max(point.gpus, gpus or 0)
        if seed in point.reps[planner]:
            raise Refusal(f"{db.path}: scheduling_bench has two {planner} rows for racks {racks},"
                          f" seed {seed}: keep one figure2 run per database")
        point.reps[planner][seed] = BenchRep(wall_ms, objective, proven, hit_limit)
    return [points[r] for r in sorted(points)]


def best_speedup(points):
    with_speedup = [p for p in points if p.speedup() is not None]
    return max(with_speedup, key=lambda p: p.speedup()) if with_speedup else None


def draw_scheduling_time(points, path):
    fig, (ax_time, ax_speed) = plt.subplots(
        2, 1, sharex=True, figsize=(7.5, 7), gridspec_kw={"height_ratios": [3, 1.6]})
    styles = {"symphony": ("C3", "s", "Symphony (one MILP over the cluster)"),
              "symphony-split": ("C1", "v", "the same MILP, per independent part"),
              "harmonics": ("C0", "o", "Harmonics (coordinator + per-rack MILPs)")}
    limit_drawn = False
    for planner, (color, marker, label) in styles.items():
        mine = [p for p in points if p.reps.get(planner)]
        if not mine:
            continue
        xs = [p.racks for p in mine]
        meds = [p.median_ms(planner) for p in mine]
        lows = [m - min(p.walls(planner)) for p, m in zip(mine, meds)]
        highs = [max(p.walls(planner)) - m for p, m in zip(mine, meds)]
        ax_time.errorbar(xs, meds, yerr=[lows, highs], color=color, marker=marker, capsize=3,
                         label=f"{label}: median, range over seeds")
        # Central solves that did not prove their optimum (at the time limit, a
        # lower bound, or before it), drawn hollow: no speed-up counts them.
        cut = [(p.racks, r.wall_ms) for p in mine for r in p.reps[planner].values()
               if r.hit_limit or (planner != "harmonics" and not r.proven)]
        if cut:
            ax_time.scatter([x for x, _ in cut], [y for _, y in cut], s=110, marker="^",
                            facecolors="white", edgecolors=color, zorder=3,
                            label=None if limit_drawn else
                            "unproven (time limit or early stop; no speed-up counted)")
            limit_drawn = True
    ax_time.set_yscale("log")
    ax_time.set_ylabel("scheduling time per epoch (ms, log scale)")
    ax_time.legend(loc="upper left", fontsize=7)
    ax_time.grid(True, which="major", linewidth=0.3)
    ax_time.set_title("Figure 2: time to plan one epoch against cluster size")

    # Speed-up over the proven central solves, with the objective Harmonics gives up.
    drawn = False
    for central, color, marker, label in (
            ("symphony", "C3", "s", "over Symphony"),
            ("symphony-split", "C1", "v", "over the split MILP")):
        mine = [p for p in points if p.speedup(central) is not None]
        if not mine:
            continue
        drawn = True
        ax_speed.plot([p.racks for p in mine], [p.speedup(central) for p in mine], color=color,
                      marker=marker, label=f"Harmonics' speed-up {label} (median, proven seeds)")
        for p in mine:
            gap = p.objective_gap(central)
            text = fmt_speedup(p.speedup(central))
            if gap is not None:
                text += f", objective {gap * 100:+.2f}%"
            ax_speed.annotate(text, (p.racks, p.speedup(central)), xytext=(0, 6),
                              textcoords="offset points", ha="center", fontsize=6, color=color)
    if not drawn:
        ax_speed.text(0.5, 0.5, "no size where the central solve proved its optimum", ha="center",
                      va="center", transform=ax_speed.transAxes)
    else:
        ax_speed.legend(loc="upper left", fontsize=7)
    ax_speed.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax_speed.set_yscale("log")
    ax_speed.set_ylabel("speed-up (log)\nlabels: + objective gap", fontsize=8)
    ax_speed.set_xscale("log", base=2)
    ax_speed.set_xticks([p.racks for p in points],
                        [f"{p.racks}\n({p.gpus} GPUs)" if p.gpus else str(p.racks) for p in points])
    ax_speed.xaxis.set_minor_locator(NullLocator())
    ax_speed.set_xlabel("cluster size (racks, log2 scale)")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def bench_table(points):
    lines = ["| Racks | GPUs | Jobs | Seeds | Symphony (ms) | Symphony limit hits "
             "| Split MILP (ms) | Harmonics (ms) | Speed-up | Objective gap "
             "| Speed-up over split |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def one(v):
        return f"{v:.0f}" if v >= 100 else f"{v:.3g}"

    def ms(p, planner):
        walls = p.walls(planner)
        if not walls:
            return "n/a"
        return f"{one(median(walls))} [{one(min(walls))}-{one(max(walls))}]"

    def gap(p):
        g = p.objective_gap()
        return "n/a" if g is None else f"{g * 100:+.2f}%"

    for p in points:
        lines.append(f"| {p.racks} | {p.gpus} | {p.jobs} | {p.seeds('symphony')} "
                     f"| {ms(p, 'symphony')} | {p.hits('symphony')} "
                     f"| {ms(p, 'symphony-split')} | {ms(p, 'harmonics')} "
                     f"| {fmt_speedup(p.speedup())} | {gap(p)} "
                     f"| {fmt_speedup(p.speedup('symphony-split'))} |")
    lines += ["", "Times: median [min-max] over the seeds. Speed-ups and the objective gap "
              "(Harmonics' objective over the central one, minus 1; positive is worse) are "
              "medians over the seeds whose central solve proved its optimum; a solve stopped "
              "unproven, at its time limit or before, is never counted as a speed-up."]
    return lines
