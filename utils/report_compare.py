# SPDX-License-Identifier: GPL-2.0-only
"""The comparison page of a scenario's runs (run-report.py without --run): per job and
policy, training time over fair and over isolated and where an iteration went; the
policies' link heat maps on one colour scale; the scheduler's decisions; and a summary
of the largest differences, written from the numbers. Runs of one scenario share the
runs table's `example`; they differ by policy, seed or level (params_json's backend).
Everything is aggregated in SQL per run and job: no table is held whole."""

import math
import re

import matplotlib.pyplot as plt

from plot_common import ISOLATED, policy_key
from report_breakdown import PARTS, STACKED, breakdown_figure, breakdown_means
from report_html import FIGURE_WIDTH, esc, figure_html, ms, para, tall_table
from report_samples import (TimeBins, fabric_rows, has_table, link_interval, link_label,
                            link_names, utilization_matrix)

FAIR = "fair"
MAX_BAR_JOBS = 12  # jobs in the stacked bar chart: those whose policies differ most
MAX_HEAT_LINKS = 30
HEAT_COLUMNS = 300  # time bins of each policy's heat map
HEAT_GRID_COLUMNS = 4
# A change of training time under this fraction is no difference.
NOISE = 0.001
DISPLAY = {"mltcp": "MLTCP"}
# The breakdown's columns in the comparison table, whose unit (ms) the note gives.
SHORT = {"exposed DP": "DP", "exposed TP": "TP", "exposed PP": "PP", "exposed EP": "EP",
         "exposed other": "other", "gate wait": "gate wait", "overlapped": "overlapped"}
BACKEND_KEY = "json_extract(params_json, '$.backend')"


def display(policy):
    return DISPLAY.get(policy, policy if policy in (FAIR, ISOLATED, "optimal")
                       else policy.capitalize())


def scenarios(db):
    """The examples whose runs differ in policy, seed or level: [(example, runs)]."""
    return db.query(f"SELECT example, COUNT(*) FROM runs GROUP BY example HAVING COUNT(DISTINCT"
                    f" scheduler || '/' || seed || '/' || COALESCE({BACKEND_KEY}, '')) > 1"
                    " ORDER BY MIN(run_id)")


def slug(example):
    """A file name for the scenario's page."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", example).strip("-.") or "scenario"


class Variant:
    """A column of the comparison: one run, or, for isolated, each job's fastest run alone."""

    def __init__(self, policy, seed, backend, runs):
        self.policy, self.seed, self.backend, self.runs = policy, seed, backend, runs
        self.label = display(policy)
        self.run_of = {}  # job -> the run its numbers come from

    @property
    def key(self):
        return (self.seed, self.backend)


class Scenario:
    """A scenario's runs, grouped into variants, and its jobs' numbers per variant."""

    def __init__(self, db, example):
        self.db, self.example = db, example
        self.runs = [dict(zip(("run_id", "policy", "seed", "backend", "status"), row))
                     for row in db.query(f"SELECT run_id, scheduler, seed, {BACKEND_KEY},"
                                         " status FROM runs WHERE example = ? ORDER BY run_id",
                                         (example,))]
        self.seeds = sorted({r["seed"] for r in self.runs})
        self.backends = sorted({r["backend"] or "packet" for r in self.runs})
        self.jobs = {}  # (run, job) -> {model, train_ns, iterations}
        if has_table(db, "jobs", ["run_id", "job_id", "arrival_ns", "end_ns"]):
            for run, job, model, arrival, end, iterations in db.rows(
                    "SELECT j.run_id, j.job_id, j.model, j.arrival_ns, j.end_ns, j.iterations"
                    " FROM jobs j JOIN runs r USING (run_id) WHERE r.example = ?", (example,)):
                done = arrival is not None and end is not None and end >= arrival
                self.jobs[(run, job)] = {"model": model, "iterations": iterations,
                                         "train_ns": end - arrival if done else None}
        self.variants = self.group()
        self.means = breakdown_means(db, "run_id IN (SELECT run_id FROM runs WHERE example = ?)",
                                     (example,)) or {}
        self.job_ids = sorted({job for _, job in self.jobs})

    def group(self):
        variants, isolated = [], {}
        for r in self.runs:
            backend = r["backend"] or "packet"
            if r["policy"] == ISOLATED:
                key = (r["seed"], backend)
                if key not in isolated:
                    isolated[key] = Variant(ISOLATED, r["seed"], backend, [])
                    variants.append(isolated[key])
                isolated[key].runs.append(r["run_id"])
            else:
                variants.append(Variant(r["policy"], r["seed"], backend, [r["run_id"]]))
        for v in variants:
            for run in v.runs:  # isolated: per job, its fastest run (the first on a tie)
                for (r, job), info in self.jobs.items():
                    if r != run or info["train_ns"] is None:
                        continue
                    best = v.run_of.get(job)
                    if best is None or info["train_ns"] < self.jobs[(best, job)]["train_ns"]:
                        v.run_of[job] = run
        named = {}
        for v in variants:
            if len(self.seeds) > 1:
                v.label += f" seed {v.seed}"
            if len(self.backends) > 1:
                v.label += f" {v.backend}"
            named.setdefault(v.label, []).append(v)
        for same in named.values():  # the same policy run twice: told apart by run
            if len(same) > 1:
                for v in same:
                    v.label += f" run {v.runs[0]}"
        variants.sort(key=lambda v: (policy_key(v.policy), v.seed, v.backend, v.runs[0]))
        return variants

    def reference(self, variant, policy):
        """The variant of `policy` (fair, isolated) of the same seed and level."""
        return next((v for v in self.variants if v.policy == policy and v.key == variant.key),
                    None)

    def train_ns(self, variant, job):
        run = variant.run_of.get(job)
        return self.jobs[(run, job)]["train_ns"] if run is not None else None

    def ratio(self, variant, job, policy):
        ref = self.reference(variant, policy)
        mine = self.train_ns(variant, job)
        base = self.train_ns(ref, job) if ref else None
        return mine / base if mine is not None and base else None

    def breakdown(self, variant, job):
        run = variant.run_of.get(job)
        return self.means.get((run, job)) if run is not None else None


# ----------------------------------------------------------------------------- summary


def part_change(before, after):
    """The stacked part whose mean per iteration changed most: (label, before, after)."""
    if not before or not after:
        return None
    column = max((c for c, _ in STACKED),
                 key=lambda c: abs((after.get(c) or 0) - (before.get(c) or 0)))
    return dict(PARTS)[column], before.get(column) or 0, after.get(column) or 0


def difference_sentence(scenario, variant, job, fair):
    mine, base = scenario.train_ns(variant, job), scenario.train_ns(fair, job)
    change = 1 - mine / base
    what = (f"saves {change * 100:.1f}% on job {job}" if change > 0 else
            f"adds {-change * 100:.1f}% to job {job}")
    text = f"{variant.label} {what}: {ms(mine)} ms against fair's {ms(base)} ms"
    moved = part_change(scenario.breakdown(fair, job), scenario.breakdown(variant, job))
    if moved and abs(moved[2] - moved[1]) > 0:
        how = "falls" if moved[2] < moved[1] else "grows"
        text += f"; {moved[0]} {how} from {ms(moved[1])} to {ms(moved[2])} ms an iteration"
    return text + "."


def summary(scenario):
    """Sentences naming the largest differences from fair, from the numbers."""
    changes = []  # (1 - time / fair's, variant, job, fair variant)
    for v in scenario.variants:
        if v.policy in (FAIR, ISOLATED):
            continue
        fair = scenario.reference(v, FAIR)
        for job in scenario.job_ids:
            ratio = scenario.ratio(v, job, FAIR)
            if ratio is not None:
                changes.append((1 - ratio, v, job, fair))
    if not changes:
        return ["No policy other than fair and isolated has a job that finished beside a "
                "fair run of the same seed and level: nothing to compare."]
    sentences = []
    best = max(changes, key=lambda c: c[0])
    worst = min(changes, key=lambda c: c[0])
    if best[0] <= NOISE and worst[0] >= -NOISE:
        sentences.append(f"No policy changes any job's training time from fair's by more than "
                         f"{NOISE * 100:.1f}%.")
    if best[0] > NOISE:
        sentences.append(difference_sentence(scenario, best[1], best[2], best[3]))
        held = [(m["gate_wait_ns"], job) for job in scenario.job_ids
                for m in [scenario.breakdown(best[1], job)] if m and m["gate_wait_ns"]]
        if held:
            wait, job = max(held)
            sentences.append(f"Under {best[1].label}, the gate holds job {job} for {ms(wait)} ms "
                             "an iteration.")
    if worst[0] < -NOISE:
        sentences.append(difference_sentence(scenario, worst[1], worst[2], worst[3]))
    means = []
    for v in scenario.variants:
        if v.policy == FAIR:
            continue
        ratios = [r for job in scenario.job_ids for r in [scenario.ratio(v, job, FAIR)]
                  if r is not None]
        if ratios:
            means.append(f"{v.label} {sum(ratios) / len(ratios):.3f}")
    if means:
        sentences.append("Training time over fair's, mean over jobs: " + ", ".join(means) + ".")
    return sentences


# ----------------------------------------------------------------------------- sections


def section_runs(scenario, run_href):
    rows = []
    for v in scenario.variants:
        links = ", ".join(f'<a href="{esc(run_href(run))}">run {run}</a>' for run in v.runs)
        status = sorted({r["status"] for r in scenario.runs if r["run_id"] in v.runs})
        rows.append(f"<tr><td>{esc(v.label)}</td><td>{esc(v.seed)}</td><td>{esc(v.backend)}"
                    f"</td><td>{links}</td><td>{esc(', '.join(status))}</td></tr>")
    return "\n".join(['<section id="runs">', "<h2>1. Runs</h2>",
                      "<table>\n<tr><th>policy</th><th>seed</th><th>level</th><th>runs</th>"
                      "<th>status</th></tr>", *rows, "</table>",
                      para("Each run has its own page (parameters, jobs, Gantt chart, "
                           "samples, timeline). isolated runs each job alone, under ECMP and "
                           "on its best routes; a job's isolated numbers are those of the "
                           "faster.", "note"), "</section>"])


def bar_jobs(scenario):
    """The jobs of the stacked bar chart: those whose training times differ most between
    variants (max over min), at most MAX_BAR_JOBS, in job order."""
    spread = {}
    for job in scenario.job_ids:
        times = [t for v in scenario.variants for t in [scenario.train_ns(v, job)] if t]
        if times:
            spread[job] = max(times) / min(times)
    ranked = sorted(spread, key=lambda j: -spread[j])[:MAX_BAR_JOBS]
    return sorted(ranked)


def section_jobs(scenario):
    parts = ['<section id="jobs">', "<h2>2. Jobs: training time and where an iteration "
             "went</h2>"]
    if not scenario.job_ids:
        parts += [para("No jobs: the scenario's runs have no rows in the jobs table."),
                  "</section>"]
        return "\n".join(parts)
    shown = bar_jobs(scenario)
    bars = []
    for job in shown:
        if bars:
            bars.append(("", None))
        for v in scenario.variants:
            means = scenario.breakdown(v, job)
            if means:
                bars.append((f"job {job} {v.label}", means))
    if any(means for _, means in bars):
        caption = ("A bar per job and policy: the mean iteration, split into compute, exposed "
                   "communication by group, gate wait and bubble (iteration_times).")
        if len(shown) < len(scenario.job_ids):
            caption += (f" Showing the {len(shown)} of {len(scenario.job_ids)} jobs whose "
                        "training times differ most between policies; the table has them all.")
        parts.append(figure_html(breakdown_figure(bars), f"Stacked bars of the mean iteration "
                                 f"of {len(shown)} jobs under each policy of "
                                 f"{scenario.example}", caption))
    else:
        parts.append(para("No breakdown: the runs have no iteration_times rows (an older "
                          "build, or no iteration finished)."))
    headers = ["job", "model", "policy", "training (ms)", "/ fair", "/ isolated",
               *[SHORT.get(label, label) for _, label in PARTS]]
    rows = []
    for job in scenario.job_ids:
        for v in scenario.variants:
            run = v.run_of.get(job)
            info = scenario.jobs.get((run, job)) if run is not None else None
            if info is None:
                continue
            fair, iso = scenario.ratio(v, job, FAIR), scenario.ratio(v, job, ISOLATED)
            means = scenario.breakdown(v, job) or {}
            rows.append([job, info["model"] or "n/a", v.label, ms(info["train_ns"]),
                         "n/a" if fair is None else f"{fair:.3f}",
                         "n/a" if iso is None else f"{iso:.3f}",
                         *[ms(means.get(c)) for c, _ in PARTS]])
    parts += [tall_table(headers, rows, {0} | set(range(3, len(headers)))),
              para("Training time is a job's end - arrival; / fair and / isolated divide it "
                   "by the job's under fair sharing and alone (of the same seed and level). "
                   "The parts, in ms, are means over iterations of iteration_times: compute, "
                   "overlapped (the part of compute beside communication), exposed "
                   "communication by group (DP, TP, PP, EP, other), gate wait and bubble; "
                   "compute + exposed + gate wait + bubble = the iteration.", "note"),
              "</section>"]
    return "\n".join(parts)


def heat_runs(scenario):
    """(variant, run) of the heat maps: every variant's run but isolated's (a run per job)."""
    return [(v, v.runs[0]) for v in scenario.variants if v.policy != ISOLATED]


def section_links(scenario):
    db = scenario.db
    parts = ['<section id="links">', "<h2>3. Link utilization per policy</h2>"]
    pairs = heat_runs(scenario)
    runs = [run for _, run in pairs]
    if not runs or not has_table(db, "link_samples", ["run_id", "link_id", "direction", "t_ns",
                                                      "tx_bytes"]):
        parts += [para("No link samples: the database has no link_samples table."),
                  "</section>"]
        return "\n".join(parts)
    marks = ",".join("?" * len(runs))
    fabric = fabric_rows(db, "link_samples")
    sampled = {run: last for run, last in db.query(
        f"SELECT run_id, MAX(t_ns) FROM link_samples WHERE run_id IN ({marks}){fabric}"
        " GROUP BY run_id",
        runs)}
    if not sampled:
        parts += [para("No link samples in these runs (link sampling was off, or the runs "
                       "are at the flow level)."), "</section>"]
        return "\n".join(parts)
    links = link_names(db, runs[0])
    busy = [(link, direction) for link, direction, _ in db.query(
        f"SELECT link_id, direction, SUM(tx_bytes) FROM link_samples WHERE run_id IN ({marks})"
        f"{fabric} GROUP BY link_id, direction HAVING SUM(tx_bytes) > 0 ORDER BY 3 DESC, 1, 2 LIMIT ?",
        (*runs, 4 * MAX_HEAT_LINKS))]
    busy = [key for key in busy if key[0] in links and links[key[0]][2]][:MAX_HEAT_LINKS]
    drawn = [(v, run) for v, run in pairs if run in sampled]
    if not busy:
        parts += [para("The link samples name no link of the links table with a rate, so "
                       "utilization cannot be computed."), "</section>"]
        return "\n".join(parts)
    last = max(sampled.values())
    columns = min(HEAT_GRID_COLUMNS, len(drawn))
    rows = math.ceil(len(drawn) / columns)
    height = 0.4 + rows * (0.7 + 0.12 * len(busy))
    fig, axes = plt.subplots(rows, columns, squeeze=False, sharey=True,
                             figsize=(FIGURE_WIDTH, height))
    # Room for the first column's link names on the left and one colour bar on the right.
    fig.subplots_adjust(left=0.13, right=0.91, wspace=0.06, bottom=0.5 / height,
                        top=1 - 0.3 / height, hspace=0.7 / (0.7 + 0.12 * len(busy)))
    image = None
    for k, (v, run) in enumerate(drawn):
        ax = axes[k // columns][k % columns]
        interval = link_interval(db, run, {})
        bins = TimeBins(interval, last, HEAT_COLUMNS)
        matrix, _ = utilization_matrix(db, run, busy, link_names(db, run), interval, bins)
        image = ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap="viridis",
                          vmin=0, vmax=1, extent=(0, bins.end_ms, len(busy), 0))
        ax.set_title(f"{v.label} (run {run})", fontsize=9)
        ax.set_xlabel("simulated time (ms)", fontsize=8)
        ax.tick_params(labelsize=7)
    for k in range(len(drawn), rows * columns):
        axes[k // columns][k % columns].axis("off")
    axes[0][0].set_yticks([i + 0.5 for i in range(len(busy))])
    axes[0][0].set_yticklabels([link_label(links, *key) for key in busy],
                               fontsize=6 if len(busy) > 20 else 7)
    fig.colorbar(image, cax=fig.add_axes([0.93, 0.5 / height, 0.012, 1 - 0.8 / height]),
                 label="utilization")
    caption = (f"One map per policy on the same rows (the {len(busy)} directed links that "
               "carried the most bytes over these runs), time axis and colour scale (0 to 1 "
               "of the link's rate, a sample above capped). isolated is left out: it is a run "
               "per job.")
    missing = [v.label for v, run in pairs if run not in sampled]
    if missing:
        caption += f" No link samples in the runs of: {', '.join(missing)}."
    parts += [figure_html(fig, f"Heat maps of link utilization over time, one per policy, of "
                               f"{scenario.example}", caption), "</section>"]
    return "\n".join(parts)


def decision_rows(db, runs):
    """run -> {kinds, plans, closings, held_ns, decisions, wall_us, max_us, sched_us}."""
    marks = ",".join("?" * len(runs))
    out = {run: {"kinds": []} for run in runs}
    if has_table(db, "scheduler_decisions", ["run_id", "kind"]):
        for run, kind, n in db.rows(f"SELECT run_id, kind, COUNT(*) FROM scheduler_decisions"
                                    f" WHERE run_id IN ({marks}) GROUP BY run_id, kind"
                                    " ORDER BY run_id, 3 DESC, kind", runs):
            out[run]["kinds"].append((kind, n))
    if has_table(db, "gates", ["run_id", "t_ns", "job_id", "open"]):
        # A closed gate holds until the next change of the job's gate, or the job's end.
        for run, closings, held in db.rows(
                "SELECT g.run_id, COUNT(*), SUM(MAX(0, MIN(COALESCE(g.next, j.end_ns, g.t_ns),"
                " COALESCE(j.end_ns, g.next, g.t_ns)) - g.t_ns)) FROM (SELECT run_id, job_id,"
                " t_ns, open, LEAD(t_ns) OVER (PARTITION BY run_id, job_id ORDER BY t_ns, rowid)"
                f" AS next FROM gates WHERE run_id IN ({marks})) g LEFT JOIN jobs j"
                " ON j.run_id = g.run_id AND j.job_id = g.job_id WHERE g.open = 0"
                " GROUP BY g.run_id", runs):
            out[run].update(closings=closings, held_ns=held)
    if has_table(db, "scheduler_runs", ["run_id", "decisions", "total_wall_us", "max_wall_us"]):
        for run, n, total, peak in db.rows(f"SELECT run_id, decisions, total_wall_us,"
                                           f" max_wall_us FROM scheduler_runs WHERE run_id IN"
                                           f" ({marks})", runs):
            out[run].update(decisions=n, wall_us=total, max_us=peak)
    return out


def section_decisions(scenario):
    db = scenario.db
    parts = ['<section id="decisions">', "<h2>4. The scheduler's decisions</h2>"]
    pairs = [(v, run) for v in scenario.variants for run in v.runs]
    found = decision_rows(db, [run for _, run in pairs])
    if not any(len(d) > 1 or d["kinds"] for d in found.values()):
        parts += [para("No decisions: the database has no scheduler_decisions, gates or "
                       "scheduler_runs rows for these runs."), "</section>"]
        return "\n".join(parts)
    headers = ["policy", "run", "decisions", "by kind", "plans", "gate closings",
               "gates held (ms)", "scheduling wall time (ms)", "longest decision (ms)"]
    rows = []
    for v, run in pairs:
        d = found[run]
        kinds = dict(d["kinds"])
        rows.append([v.label, run, d.get("decisions", sum(kinds.values())),
                     ", ".join(f"{k} {n}" for k, n in d["kinds"]) or "none",
                     kinds.get("plan-ready", 0), d.get("closings", 0),
                     ms(d.get("held_ns") or 0),
                     "n/a" if d.get("wall_us") is None else f"{d['wall_us'] / 1e3:.3f}",
                     "n/a" if d.get("max_us") is None else f"{d['max_us'] / 1e3:.3f}"])
    parts += [tall_table(headers, rows, {1, 2, 4, 5, 6, 7, 8}),
              para("Plans: decisions of kind plan-ready (a planner's new plan). Gates held: "
                   "the time the scheduler kept jobs' gates closed, summed over jobs, each "
                   "closing until the gate's next change or the job's end (gates). Scheduling "
                   "wall time: what the scheduler's decisions took of the machine's time "
                   "(scheduler_runs).", "note"), "</section>"]
    return "\n".join(parts)


def comparison_body(scenario, run_href):
    """The page's parts after its title: the summary, then the sections."""
    text = " ".join(summary(scenario))
    return [f'<p class="summary" id="summary">{esc(text)}</p>', section_runs(scenario, run_href),
            section_jobs(scenario), section_links(scenario), section_decisions(scenario)]


NAV = (("#summary", "Summary"), ("#runs", "Runs"), ("#jobs", "Jobs"), ("#links", "Links"),
       ("#decisions", "Decisions"))


def scenario_title(scenario):
    policies = ", ".join(dict.fromkeys(v.policy for v in scenario.variants))
    return f"Scenario {scenario.example}: {policies}"


def index_rows(found, href):
    """The index page's table of scenarios, each linked to its page."""
    return "\n".join(["<table>", "<tr><th>scenario</th><th>runs</th></tr>",
                      *[f'<tr><td><a href="{esc(href(example))}">{esc(example)}</a></td>'
                        f'<td class="num">{runs}</td></tr>' for example, runs in found],
                      "</table>"])
