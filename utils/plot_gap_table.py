# SPDX-License-Identifier: GPL-2.0-only
"""optimal's whole-run reference, and the gap table of plot-figures.py's figures.md.

The optimal scheduler notes in scheduler_decisions.detail_json, at each arrival time, a
"reference": the model's best schedule of the whole run from then on ("planned",
planned_mean_completion_s) and a lower bound valid for any policy on the model's
estimates ("bound", bound_mean_completion_s, from an LP or from the jobs' chains
alone), with the number of jobs they cover. Per optimal run the reference with the
most jobs counts (reference_of_run); load_bound pools them over optimal's runs.

The gap table has one row per scenario (runs.example) of the selected figures and
splits each policy's distance to the bound in two: the model error (optimal's executed
mean training time against its own whole-run plan on the model) and the policy loss (a
policy against optimal executed). A policy's mean training time is the mean over all
its runs' jobs of end_ns - arrival_ns (isolated: each job alone twice, under ECMP and on
its best routes, and per job the faster of the two; plot_common.job_training_times).
"""

import json
import math

from plot_common import (Refusal, Skip, fmt_ratio, fmt_time, job_training_times, mean,
                         policy_key)

# (runs.example, figure number, row label), in the table's order.
SCENARIOS = [
    ("figure1", 1, "1, full-bisection fat-tree"),
    ("figure1-oversubscribed", 1, "1, 2:1 leaf-spine"),
    ("figure1-rail-optimized", 1, "1, rail-optimized"),
    ("figure3", 3, "3, large cluster"),
    ("figure4", 4, "4, shared link"),
    ("figure6", 6, "6, LLM mix (packet level)"),
    ("lingjun-200-jobs-mixed", 5, "5, Lingjun (flow level)"),
    ("lingjun-llm-jobs", 6, "6, LLM mix on Lingjun (flow level)"),
]

PLANNERS = ("symphony", "harmonics")
# Policies that are references rather than contenders.
REFERENCES = ("optimal", "isolated")
# The goals: the best planner within 2% of optimal executed, and optimal executed
# within 3% of the bound (either side).
PLANNER_GOAL = 0.02
BOUND_GOAL = 0.03

HEADER = ["scenario", "fair", "bound (LP)", "optimal planned (model)", "optimal executed",
          "model error", "optimal over bound", "best planner",
          "best planner over optimal executed", "best policy (not optimal, isolated)",
          "unproven plans", "goal 2%", "goal 3%"]


# ----------------------------------------------------------------------------- reference


class LowerBound:
    """optimal's lower bound on the mean training time, valid for any policy on the
    model's estimates, and its planned mean on the model, each pooled over optimal's
    runs like the bars pool their jobs."""

    def __init__(self, kind, references):
        self.kind = kind  # "lp", or "chains-alone" when the LP was not solved
        # per optimal run: (run_id, jobs, bound in s, planned in s)
        self.references = references

    @property
    def jobs(self):
        return sum(jobs for _, jobs, _, _ in self.references)

    @property
    def mean_ns(self):
        """Mean over all the runs' jobs: each run's bound weighted by its jobs."""
        return sum(jobs * bound for _, jobs, bound, _ in self.references) * 1e9 / self.jobs

    @property
    def planned_ns(self):
        """optimal's whole-run plan on the model, its mean over the same jobs."""
        return sum(jobs * planned for _, jobs, _, planned in self.references) * 1e9 / self.jobs

    @property
    def label(self):
        return "lower bound, any policy " + ("(LP)" if self.kind == "lp" else "(chains alone)")


def _seconds(where, reference, field):
    """A reference's duration field: a finite non-negative number of seconds."""
    value = reference.get(field)
    if (not isinstance(value, (int, float)) or isinstance(value, bool)
            or not math.isfinite(value) or value < 0):
        raise Refusal(f"{where}: field 'reference.{field}' is {value!r}, not a duration in "
                      "seconds")
    return value


def _decisions(db, run_id, example, key):
    """The run's scheduler_decisions whose detail_json is an object with `key`, as
    (where, value) in time order; `where` names the row for a refusal."""
    for rowid, t_ns, detail in db.query(
            "SELECT rowid, t_ns, detail_json FROM scheduler_decisions WHERE run_id = ?"
            " AND detail_json LIKE ? ORDER BY t_ns, rowid", (run_id, f'%"{key}"%')):
        where = (f"{db.path}: scheduler_decisions row {rowid} (run {run_id}, {example}, "
                 f"optimal, t_ns {t_ns}): detail_json")
        try:
            detail = json.loads(detail)
        except ValueError as e:
            raise Refusal(f"{where} is not JSON ({e})") from None
        if isinstance(detail, dict) and key in detail:
            yield where, detail[key]


def reference_of_run(db, run_id, example):
    """The optimal run's reference with the most jobs (the plan made once every job had
    arrived; the first such), as (jobs, bound in s, bound kind, planned in s), or None."""
    best = None
    for where, reference in _decisions(db, run_id, example, "reference"):
        if not isinstance(reference, dict):
            raise Refusal(f"{where}: field 'reference' is not an object")
        jobs = reference.get("jobs")
        if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
            raise Refusal(f"{where}: field 'reference.jobs' is {jobs!r}, not a count")
        seconds = _seconds(where, reference, "bound_mean_completion_s")
        planned = _seconds(where, reference, "planned_mean_completion_s")
        kind = reference.get("bound")
        if not isinstance(kind, str):
            raise Refusal(f"{where}: field 'reference.bound' is {kind!r}, not a name")
        if jobs > 0 and (best is None or jobs > best[0]):
            best = (jobs, seconds, kind, planned)
    return best


def has_decisions(db):
    return "scheduler_decisions" in db.tables and {
        "run_id", "t_ns", "detail_json"} <= db.columns("scheduler_decisions")


def load_bound(db, example, runs):
    """optimal's lower bound and planned mean over optimal's `runs` (run ids), checked to
    cover the jobs and seeds the bars are computed from."""
    if not has_decisions(db):
        raise Skip("the database has no scheduler_decisions table with detail_json")
    if "seed" in db.columns("runs"):
        def seeds(policy):
            return sorted(db.query(
                "SELECT seed FROM runs WHERE example = ? AND scheduler = ?", (example, policy)))
        if seeds("optimal") != seeds("fair"):
            raise Skip("optimal's runs have other seeds than fair's, so its bound is not "
                       "comparable to fair's mean")
    references, kinds = [], set()
    for run_id in sorted(runs):
        best = reference_of_run(db, run_id, example)
        if best is None:
            raise Skip(f"optimal run {run_id} recorded no reference (scheduler_decisions "
                       "detail_json 'reference')")
        jobs, seconds, kind, planned = best
        (run_jobs,), = db.query("SELECT COUNT(*) FROM jobs WHERE run_id = ?", (run_id,))
        if jobs != run_jobs:
            raise Skip(f"optimal run {run_id}'s reference with the most jobs covers {jobs} of "
                       f"its {run_jobs} jobs, so it bounds another mean than the bars'")
        references.append((run_id, jobs, seconds, planned))
        kinds.add(kind)
    # One run whose LP was not solved makes the pooled bound a chains-alone one.
    return LowerBound("lp" if kinds == {"lp"} else "chains-alone", references)


def unproven_of_run(db, run_id, example):
    """The plans of an optimal run not proven optimal: its largest 'unproven' note (a
    running count), 0 without one."""
    count = 0
    for where, value in _decisions(db, run_id, example, "unproven"):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise Refusal(f"{where}: field 'unproven' is {value!r}, not a count")
        count = max(count, value)
    return count


# ----------------------------------------------------------------------------- rows


class GapRow:
    """One scenario: each policy's mean training time, optimal's bound and plan."""

    def __init__(self, example, label):
        self.example = example
        self.label = label
        self.means = {}  # policy -> mean training time, ns
        self.bound = None  # a LowerBound
        self.unproven = None  # plans of optimal's runs not proven optimal
        self.notes = []  # why cells read n/a

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    @property
    def fair_ns(self):
        return self.means.get("fair")

    @property
    def optimal_ns(self):
        return self.means.get("optimal")

    @property
    def bound_ns(self):
        return None if self.bound is None else self.bound.mean_ns

    @property
    def planned_ns(self):
        return None if self.bound is None else self.bound.planned_ns

    def ratio(self, ns):
        """`ns` over fair's mean, or None."""
        return None if ns is None or not self.fair_ns else ns / self.fair_ns

    @staticmethod
    def _best(means):
        if not means:
            return None
        return min(means.items(), key=lambda item: (item[1], policy_key(item[0])))

    @property
    def best_planner(self):
        """(name, mean ns) of the lower of symphony and harmonics, or None."""
        return self._best({p: ns for p, ns in self.means.items() if p in PLANNERS})

    @property
    def best_policy(self):
        """(name, mean ns) of the best policy other than the references, or None."""
        return self._best({p: ns for p, ns in self.means.items() if p not in REFERENCES})

    @staticmethod
    def _over(ns, base):
        return None if ns is None or not base else ns / base - 1

    @property
    def model_error(self):
        """optimal executed against its plan on the model: executed / planned - 1."""
        return self._over(self.optimal_ns, self.planned_ns)

    @property
    def over_bound(self):
        """optimal executed against the bound: executed / bound - 1."""
        return self._over(self.optimal_ns, self.bound_ns)

    @property
    def planner_loss(self):
        """The best planner against optimal executed: planner / optimal - 1."""
        planner = self.best_planner
        return None if planner is None else self._over(planner[1], self.optimal_ns)

    @property
    def planner_goal(self):
        loss = self.planner_loss
        return None if loss is None else abs(loss) <= PLANNER_GOAL

    @property
    def bound_goal(self):
        gap = self.over_bound
        return None if gap is None else abs(gap) <= BOUND_GOAL


def _policy_means(db, example):
    """Per policy of the example's complete runs: the mean over its jobs of end - arrival."""
    train = {}
    for policy, _, _, _, ns in job_training_times(db, example, complete_only=True):
        train.setdefault(policy, []).append(ns)
    return {policy: mean(values) for policy, values in train.items()}


def load_gap_row(db, example, label):
    """The scenario's row, or None when it has no complete runs."""
    runs = {}
    for run_id, scheduler in db.query(
            "SELECT run_id, scheduler FROM runs WHERE example = ? AND status = 'complete'",
            (example,)):
        runs.setdefault(scheduler, set()).add(run_id)
    if not runs:
        return None
    row = GapRow(example, label)
    try:
        db.require("jobs", ["run_id", "job_id", "arrival_ns", "end_ns"])
    except Skip as reason:
        row.note(str(reason))
        return row
    row.means = _policy_means(db, example)
    if not row.means:
        row.note("its runs have no jobs")
        return row
    if not row.fair_ns:
        row.note("no fair jobs (or a zero mean) to normalize against")
    if not any(p in row.means for p in PLANNERS):
        row.note("neither symphony nor harmonics ran")
    if "optimal" not in runs:
        row.note("optimal did not run")
        return row
    if row.optimal_ns is None:
        row.note("optimal's runs have no jobs")
        return row
    if has_decisions(db):
        row.unproven = sum(unproven_of_run(db, run_id, example) for run_id in runs["optimal"])
    try:
        row.bound = load_bound(db, example, runs["optimal"])
    except Skip as reason:
        row.note(f"no bound or plan: {reason}")
    if row.bound is not None and row.bound.kind != "lp":
        row.note("the bound is from the jobs' chains alone in at least one optimal run (its "
                 "LP was not solved), a weaker bound than the LP's")
    return row


def load_gap_rows(db, figures=None):
    """The rows of the scenarios of `figures` (numbers; default all) that have complete
    runs, in the table's order."""
    rows = []
    for example, number, label in SCENARIOS:
        if figures is not None and number not in figures:
            continue
        row = load_gap_row(db, example, label)
        if row is not None:
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------- table


def fmt_mean(ns):
    """A mean training time: ms with two decimals below 1 s."""
    if ns is None:
        return "n/a"
    return f"{ns / 1e6:.2f} ms" if abs(ns) < 1e9 else fmt_time(ns)


def fmt_percent(fraction):
    """A signed relative difference: 0.0123 -> '+1.23%'."""
    return "n/a" if fraction is None else f"{fraction * 100:+.2f}%"


def fmt_goal(met):
    return "n/a" if met is None else ("yes" if met else "no")


def gap_cells(row):
    """The row's cells, in HEADER's order."""
    def value(ns):
        if ns is None:
            return "n/a"
        ratio = row.ratio(ns)
        return fmt_mean(ns) if ratio is None else f"{fmt_mean(ns)} ({fmt_ratio(ratio)})"

    def named(best):
        if best is None:
            return "n/a"
        name, ns = best
        ratio = row.ratio(ns)
        return f"{name} ({fmt_mean(ns) if ratio is None else fmt_ratio(ratio)})"

    return [row.label, fmt_mean(row.fair_ns), value(row.bound_ns), value(row.planned_ns),
            value(row.optimal_ns), fmt_percent(row.model_error), fmt_percent(row.over_bound),
            named(row.best_planner), fmt_percent(row.planner_loss), named(row.best_policy),
            "n/a" if row.unproven is None else str(row.unproven), fmt_goal(row.planner_goal),
            fmt_goal(row.bound_goal)]


def gap_table(rows):
    """The table's markdown lines, with the rows' notes (why cells read n/a) below."""
    if not rows:
        return ["No scenario of the selected figures has complete runs."]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(gap_cells(row)) + " |" for row in rows]
    notes = [f"- {row.label}: {note}." for row in rows for note in row.notes]
    if notes:
        lines += ["", "Notes (why a cell reads n/a):", ""] + notes
    if not any(row.optimal_ns is not None for row in rows):
        lines += ["", "No scenario of the selected figures ran optimal, so there is no bound, "
                  "plan or model error to show."]
    return lines
