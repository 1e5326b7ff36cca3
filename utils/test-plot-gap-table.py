#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of plot-figures.py's gap table (utils/plot_gap_table.py) on small synthetic
results databases: every cell against numbers computed here from the synthetic inputs,
the rows that read n/a and why, the refusals of malformed references, and the planned
line of figures 1 and 3.
"""

import importlib.util
import sqlite3
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The other figures' test builds the schema, the databases and the plot harness.
base = load("test_plot_figures", HERE / "test-plot-figures.py")
Database = base.Database
FIGURE1 = base.FIGURE1
FIGURE3 = base.FIGURE3
expected_ratios = base.expected_ratios
full_database = base.full_database
load_script = base.load_script
markdown_table = base.markdown_table
mean = base.mean
reference = base.reference


def ms_jobs(*pairs):
    """A run's jobs from (arrival, end) pairs in ms, with two iterations each."""
    return [(round(a * 1e6), round(e * 1e6), [1000, 2000]) for a, e in pairs]


# The gap table's scenarios. Figure 1 in ms: optimal 16 ms, symphony 16.275 ms (the best
# planner, +1.72% over optimal), isolated faster than all but left out of "best policy".
GAP_FIGURE1 = {
    "fair": [ms_jobs((0, 20), (5, 30)), ms_jobs((0, 22), (4, 28))],
    "symphony": [ms_jobs((0, 15.5), (5, 21.5)), ms_jobs((0, 16.2), (4, 20.9))],
    "harmonics": [ms_jobs((0, 16.4), (5, 21.6)), ms_jobs((0, 16.8), (4, 21))],
    "crux": [ms_jobs((0, 18), (5, 24)), ms_jobs((0, 20), (4, 25))],
    "optimal": [ms_jobs((0, 15), (5, 21)), ms_jobs((0, 16), (4, 21))],
    "isolated": [ms_jobs((0, 10)), ms_jobs((5, 15)), ms_jobs((0, 10)), ms_jobs((4, 14))],
}
# On the 2:1 leaf-spine in seconds, one seed: optimal 2.6 s, harmonics the only planner
# (+5.77%), crux the best policy.
GAP_OVERSUBSCRIBED = {
    "fair": [ms_jobs((0, 3000), (500, 3900))],
    "harmonics": [ms_jobs((0, 2700), (500, 3300))],
    "crux": [ms_jobs((0, 2650), (500, 3250))],
    "optimal": [ms_jobs((0, 2500), (500, 3200))],
}
# Per example, per optimal run (in seed order): (bound s, planned s, its 'unproven' notes).
GAP_REFERENCES = {
    "figure1": [(0.0150, 0.0152, [1, 2]), (0.0158, 0.0160, [])],
    "figure1-oversubscribed": [(2.55, 2.65, [1])],
}
GAP_LABELS = {"figure1": "1, full-bisection fat-tree",
              "figure1-oversubscribed": "1, 2:1 leaf-spine", "figure3": "3, large cluster"}
GAP_HEADING = "## The gap table: bound, model error and policy loss"


def gap_database(path):
    """GAP_FIGURE1 and GAP_OVERSUBSCRIBED with optimal's references and notes, and
    FIGURE3 (no optimal); returns the run ids per example and policy."""
    db = Database(path)
    ids = {"figure1": db.policy_comparison("figure1", GAP_FIGURE1),
           "figure1-oversubscribed": db.policy_comparison("figure1-oversubscribed",
                                                          GAP_OVERSUBSCRIBED),
           "figure3": db.policy_comparison("figure3", FIGURE3)}
    for example, references in GAP_REFERENCES.items():
        for run_id, (bound_s, planned_s, unproven) in zip(ids[example]["optimal"], references):
            # A first plan at the first arrival covers one job: its values do not count.
            rows = [(0, reference(1, bound_s / 3, planned_s=planned_s * 3)),
                    (4000000, reference(2, bound_s, planned_s=planned_s)),
                    (4000000, '{"actions":[],"plan":{"proven":true}}')]
            rows += [(5000000 + i, '{"unproven":%d,"plan":{"proven":false}}' % count)
                     for i, count in enumerate(unproven)]
            for t_ns, detail in rows:
                db.insert("scheduler_decisions", (run_id, t_ns, "optimal", "plan", None,
                                                  detail, 1.0))
    db.close()
    return ids


def policy_mean_ns(runs):
    return mean([end - arrival for run in runs for arrival, end, _ in run])


def gap_expected(example, figure):
    """The gap table's row of `example`, computed from the synthetic inputs."""
    means = {policy: policy_mean_ns(runs) for policy, runs in figure.items()}
    fair, optimal = means["fair"], means["optimal"]
    jobs = [len(run) for run in figure["optimal"]]
    references = GAP_REFERENCES[example]
    bound = sum(n * b for n, (b, _, _) in zip(jobs, references)) * 1e9 / sum(jobs)
    planned = sum(n * p for n, (_, p, _) in zip(jobs, references)) * 1e9 / sum(jobs)

    def time(ns):
        return f"{ns / 1e6:.2f} ms" if ns < 1e9 else f"{ns / 1e9:.4g} s"

    def value(ns):
        return f"{time(ns)} ({ns / fair:.3f})"

    def percent(fraction):
        return f"{fraction * 100:+.2f}%"

    planner = min((p for p in means if p in ("symphony", "harmonics")), key=means.get)
    best = min((p for p in means if p not in ("optimal", "isolated")), key=means.get)
    planner_loss = means[planner] / optimal - 1
    over_bound = optimal / bound - 1
    return {"scenario": GAP_LABELS[example], "fair": time(fair), "bound (LP)": value(bound),
            "optimal planned (model)": value(planned), "optimal executed": value(optimal),
            "model error": percent(optimal / planned - 1),
            "optimal over bound": percent(over_bound),
            "best planner": f"{planner} ({means[planner] / fair:.3f})",
            "best planner over optimal executed": percent(planner_loss),
            "best policy (not optimal, isolated)": f"{best} ({means[best] / fair:.3f})",
            "unproven plans": str(sum(max(notes, default=0) for _, _, notes in references)),
            "goal 2%": "yes" if abs(planner_loss) <= 0.02 else "no",
            "goal 3%": "yes" if abs(over_bound) <= 0.03 else "no"}


# The optimal-dependent cells of the gap table.
GAP_OPTIMAL_CELLS = ["bound (LP)", "optimal planned (model)", "optimal executed",
                     "model error", "optimal over bound", "best planner over optimal executed",
                     "unproven plans", "goal 2%", "goal 3%"]
# The cells that need optimal's reference.
GAP_REFERENCE_CELLS = ["bound (LP)", "optimal planned (model)", "model error",
                       "optimal over bound", "goal 3%"]


class GapTableTest(base.PlotHarness, unittest.TestCase):
    def gap_rows(self):
        return markdown_table(self.summary(), GAP_HEADING)

    def gap_notes(self):
        """The lines of the notes below the gap table."""
        section = self.summary().split(GAP_HEADING, 1)[1]
        return [line for line in section.splitlines() if line.startswith("- ")]

    def test_gap_table_splits_the_distance_to_the_bound(self):
        gap_database(self.db)
        self.assert_ok(self.plot("--figures", "1,3"))
        self.assert_png("figure1.png")
        rows = self.gap_rows()
        self.assertEqual([row["scenario"] for row in rows],
                         [GAP_LABELS[e] for e in ("figure1", "figure1-oversubscribed",
                                                  "figure3")])
        self.assertEqual(rows[0], gap_expected("figure1", GAP_FIGURE1))
        self.assertEqual(rows[1], gap_expected("figure1-oversubscribed", GAP_OVERSUBSCRIBED))
        # The same row by hand: fair 22.75 ms; bound (2 x 15.0 + 2 x 15.8) / 4 = 15.4 ms;
        # planned (2 x 15.2 + 2 x 16.0) / 4 = 15.6 ms; optimal 16 ms; symphony 16.275 ms.
        self.assertEqual(rows[0], {
            "scenario": "1, full-bisection fat-tree", "fair": "22.75 ms",
            "bound (LP)": "15.40 ms (0.677)", "optimal planned (model)": "15.60 ms (0.686)",
            "optimal executed": "16.00 ms (0.703)", "model error": "+2.56%",
            "optimal over bound": "+3.90%", "best planner": "symphony (0.715)",
            "best planner over optimal executed": "+1.72%",
            "best policy (not optimal, isolated)": "symphony (0.715)", "unproven plans": "2",
            "goal 2%": "yes", "goal 3%": "no"})
        # In seconds, with the model error below zero and the goals the other way round.
        self.assertEqual((rows[1]["fair"], rows[1]["model error"], rows[1]["best planner"],
                          rows[1]["best policy (not optimal, isolated)"],
                          rows[1]["unproven plans"], rows[1]["goal 2%"], rows[1]["goal 3%"]),
                         ("3.2 s", "-1.89%", "harmonics (0.859)", "crux (0.844)", "1", "no",
                          "yes"))
        # Figure 3 has no optimal runs: its cells read n/a, and the note says why.
        self.assertEqual(rows[2]["fair"], f"{policy_mean_ns(FIGURE3['fair']) / 1e6:.2f} ms")
        for cell in GAP_OPTIMAL_CELLS:
            self.assertEqual(rows[2][cell], "n/a", cell)
        self.assertEqual(rows[2]["best planner"],
                         f"harmonics ({expected_ratios(FIGURE3)['harmonics'][0]:.3f})")
        self.assertEqual(self.gap_notes(), ["- 3, large cluster: optimal did not run."])

    def test_planned_line_is_drawn_beside_the_bound(self):
        gap_database(self.db)
        script = load_script()
        data = script.load_figure_comparisons(script.ResultsDb(str(self.db)), 1)
        fig = script.policy_comparison_figure(data, 1, "test")
        for ax, figure, (example, references) in zip(
                fig.axes, (GAP_FIGURE1, GAP_OVERSUBSCRIBED), GAP_REFERENCES.items()):
            jobs = [len(run) for run in figure["optimal"]]
            fair = policy_mean_ns(figure["fair"])
            planned = sum(n * p for n, (_, p, _) in zip(jobs, references)) * 1e9 / sum(jobs)
            bound = sum(n * b for n, (b, _, _) in zip(jobs, references)) * 1e9 / sum(jobs)
            for style, value, label in (
                    ("-.", planned / fair, "optimal planned on the model (whole run): "
                     f"training time {planned / fair:.2f}"),
                    (":", bound / fair, "lower bound, any policy (LP): training time "
                     f"{bound / fair:.2f}")):
                lines = [line for line in ax.get_lines() if line.get_linestyle() == style]
                self.assertEqual(len(lines), 1, (example, style))
                self.assertEqual(set(lines[0].get_ydata()), {value})
                self.assertEqual(lines[0].get_label(), label)
                self.assertIn(label, [text.get_text() for text in ax.get_legend().get_texts()])
        script.plt.close(fig)

    def test_gap_table_is_of_the_selected_figures_only(self):
        gap_database(self.db)
        self.assert_ok(self.plot_here("--figures", "3"))
        self.assertEqual([row["scenario"] for row in self.gap_rows()], ["3, large cluster"])
        self.assertIn("No scenario of the selected figures ran optimal", self.summary())
        self.assert_ok(self.plot_here("--figures", "2"))
        section = self.summary().split(GAP_HEADING, 1)[1]
        self.assertIn("No scenario of the selected figures has complete runs.", section)

    def test_gap_table_without_optimal_reads_na_and_says_so(self):
        full_database(self.db)
        self.assert_ok(self.plot_here("--figures", "1,3"))
        rows = self.gap_rows()
        self.assertEqual([row["scenario"] for row in rows],
                         ["1, full-bisection fat-tree", "3, large cluster"])
        for row in rows:
            for cell in GAP_OPTIMAL_CELLS:
                self.assertEqual(row[cell], "n/a", (row["scenario"], cell))
        self.assertEqual(rows[0]["best policy (not optimal, isolated)"],
                         f"harmonics ({expected_ratios(FIGURE1)['harmonics'][0]:.3f})")
        self.assertEqual(self.gap_notes(), ["- 1, full-bisection fat-tree: optimal did not run.",
                                            "- 3, large cluster: optimal did not run."])
        self.assertIn("No scenario of the selected figures ran optimal", self.summary())

    def test_gap_table_without_a_usable_reference_reads_na_and_says_why(self):
        def partial(conn, ids):
            conn.execute("DELETE FROM scheduler_decisions WHERE run_id = ? AND t_ns > 0",
                         (ids["figure1"]["optimal"][1],))
            return (f"optimal run {ids['figure1']['optimal'][1]}'s reference with the most "
                    "jobs covers 1 of its 2 jobs")

        def none(conn, ids):
            conn.execute("DELETE FROM scheduler_decisions WHERE run_id = ?"
                         " AND detail_json LIKE '%reference%'", (ids["figure1"]["optimal"][0],))
            return f"optimal run {ids['figure1']['optimal'][0]} recorded no reference"

        def other_seed(conn, ids):
            conn.execute("UPDATE runs SET seed = 7 WHERE run_id = ?",
                         (ids["figure1"]["optimal"][1],))
            return "optimal's runs have other seeds than fair's"

        for change in (partial, none, other_seed):
            with self.subTest(change=change.__name__):
                self.db.unlink(missing_ok=True)
                ids = gap_database(self.db)
                conn = sqlite3.connect(self.db)
                why = change(conn, ids)
                conn.commit()
                conn.close()
                self.assert_ok(self.plot_here("--figures", "1"))
                row = self.gap_rows()[0]
                expected = gap_expected("figure1", GAP_FIGURE1)
                for cell, value in expected.items():
                    self.assertEqual(row[cell], "n/a" if cell in GAP_REFERENCE_CELLS else value,
                                     cell)
                notes = [n for n in self.gap_notes() if n.startswith("- 1, full-bisection")]
                self.assertEqual(len(notes), 1, notes)
                self.assertIn(f"no bound or plan: {why}", notes[0])

    def test_malformed_planned_value_is_refused_naming_the_field(self):
        for text, shown in (('"two"', "'two'"), ("-0.5", "-0.5"), ("NaN", "nan")):
            with self.subTest(planned=text):
                self.db.unlink(missing_ok=True)
                ids = gap_database(self.db)
                run = ids["figure1"]["optimal"][1]
                conn = sqlite3.connect(self.db)
                conn.execute(
                    "UPDATE scheduler_decisions SET detail_json = ? WHERE run_id = ?"
                    " AND t_ns = 0", ('{"reference":{"jobs":1,"bound":"lp",'
                                      '"bound_mean_completion_s":0.001,'
                                      f'"planned_mean_completion_s":{text}}}}}', run))
                (rowid,), = conn.execute("SELECT rowid FROM scheduler_decisions WHERE run_id = ?"
                                         " AND t_ns = 0", (run,))
                conn.commit()
                conn.close()
                self.assert_refused(self.plot(), str(self.db),
                                    f"scheduler_decisions row {rowid} ",
                                    f"run {run}, figure1, optimal, t_ns 0",
                                    f"field 'reference.planned_mean_completion_s' is {shown},")

    def test_malformed_unproven_note_is_refused_naming_the_field(self):
        ids = gap_database(self.db)
        run = ids["figure1"]["optimal"][0]
        conn = sqlite3.connect(self.db)
        conn.execute("UPDATE scheduler_decisions SET detail_json = ? WHERE run_id = ?"
                     " AND t_ns = 5000000", ('{"unproven":"one"}', run))
        conn.commit()
        conn.close()
        self.assert_refused(self.plot_here("--figures", "1"), f"run {run}, figure1, optimal",
                            "field 'unproven' is 'one', not a count")

    # ------------------------------------------------------------------ refusals


if __name__ == "__main__":
    unittest.main()
