#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of plot-figures.py's figure 5 (large scale at the flow level) on small
synthetic databases: the policy comparison on the large cluster, and scheduling time
per plan against cluster size with Harmonics' speed-ups, computed here from the
inputs, never from what the script prints."""

import importlib.util
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "plot-figures.py"


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The other figures' test builds the schema and the policy comparisons.
base = load("test_plot_figures", HERE / "test-plot-figures.py")

TIMING_SCHEMA = """
CREATE TABLE scheduler_timing(
    run_id INTEGER NOT NULL, part TEXT NOT NULL, count INTEGER NOT NULL,
    total_us REAL NOT NULL, mean_us REAL NOT NULL, max_us REAL NOT NULL,
    PRIMARY KEY (run_id, part));
"""

LARGE = "lingjun-200-jobs-mixed"
# Jobs per policy as (arrival_ns, end_ns, [communication per iteration, ns]).
LARGE_RUNS = {
    "fair": [[(0, 1000, [100, 300]), (100, 2100, [200])]],
    "crux": [[(0, 900, [90, 250]), (100, 1900, [150])]],
    "harmonics": [[(0, 800, [60, 200]), (100, 1850, [140])]],
}

# Scaling points: example -> (hosts, GPUs per host, jobs, {planner: (plans, mean_us,
# max_us)}). "symphony-split" is symphony run with SolveByParts. At k16 the one-MILP
# run's longest plan reached its 10 s time limit: no speed-up over it there.
SCALING = {
    "scaling-fat-tree-k8": (128, 8, 30, {"symphony": (100, 5000.0, 9000.0),
                                         "symphony-split": (100, 2000.0, 4000.0),
                                         "harmonics": (120, 250.0, 800.0)}),
    "scaling-fat-tree-k16": (1024, 8, 240, {"symphony": (90, 80000.0, 10000000.0),
                                            "symphony-split": (90, 30000.0, 900000.0),
                                            "harmonics": (150, 400.0, 2000.0)}),
}


def scaling_params(hosts, gpus_per_host, jobs, scheduler_params):
    return json.dumps({"backend": "flow", "hosts": hosts, "gpusPerHost": gpus_per_host,
                       "jobs": jobs, "scheduler_params": scheduler_params})


def build(path, large=True, scaling=SCALING, params=scaling_params, status="complete"):
    db = base.Database(path)
    db.conn.executescript(TIMING_SCHEMA)
    if large:
        db.policy_comparison(LARGE, LARGE_RUNS)
    for example, (hosts, per_host, jobs, planners) in scaling.items():
        for planner, (plans, mean_us, max_us) in planners.items():
            scheduler = "symphony" if planner.startswith("symphony") else planner
            sp = {"TimeLimit": "10s"}
            if scheduler == "symphony":
                sp["SolveByParts"] = "true" if planner == "symphony-split" else "false"
            run_id = db.run(example, scheduler, params(hosts, per_host, jobs, sp), status)
            db.conn.execute("INSERT INTO scheduler_timing VALUES (?, 'scheduling', ?, ?, ?, ?)",
                            (run_id, plans, plans * mean_us, mean_us, max_us))
        # A fair run has no plans to time and must not count as a planner.
        db.run(example, "fair", params(hosts, per_host, jobs, {}))
    db.close()


def table_after(text, heading):
    """The first markdown table after the line `heading`, as dicts."""
    lines = text.splitlines()
    rows = []
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return [dict(zip(rows[0], r)) for r in rows[2:]]


def speedup_text(value):
    return f"{value:.0f}x" if value >= 10 else f"{value:.2g}x"


class LargeScaleFigureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="plot-large-scale-test-")
        self.dir = Path(self.tmp.name)
        self.db = self.dir / "results.db"
        self.out = self.dir / "out"

    def tearDown(self):
        self.tmp.cleanup()

    def plot(self):
        return subprocess.run([sys.executable, str(SCRIPT), str(self.db), "--out", str(self.out),
                               "--figures", "5"], capture_output=True, text=True, timeout=300)

    def summary(self):
        return (self.out / "figures.md").read_text()

    def test_figure_claims_and_tables_follow_the_inputs(self):
        build(self.db)
        result = self.plot()
        self.assertEqual(result.returncode, 0, result.stderr)
        png = (self.out / "figure5.png").read_bytes()
        self.assertEqual(png[:8], base.PNG_SIGNATURE)
        text = self.summary()

        ratios = base.expected_ratios(LARGE_RUNS)
        claims = {row["Claim"]: row for row in
                  base.markdown_table(text, "| Claim | Paper | This database | Note |")}
        large = next(r for c, r in claims.items() if "flow level: Harmonics vs fair" in c)
        self.assertEqual(large["This database"], f"{(ratios['harmonics'][0] - 1) * 100:+.1f}%")
        self.assertEqual(large["Paper"], "-26%")

        rows = {r["Cluster"]: r for r in table_after(text, "### Scheduling time against "
                                                            "cluster size")}
        self.assertEqual(set(rows), {"fat-tree-k8", "fat-tree-k16"})
        k8 = SCALING["scaling-fat-tree-k8"][3]
        self.assertEqual(rows["fat-tree-k8"]["GPUs"], str(128 * 8))
        self.assertEqual(rows["fat-tree-k8"]["Speed-up over Symphony"],
                         speedup_text(k8["symphony"][1] / k8["harmonics"][1]))
        self.assertEqual(rows["fat-tree-k8"]["Speed-up over by parts"],
                         speedup_text(k8["symphony-split"][1] / k8["harmonics"][1]))
        # At k16 the one-MILP run hit its limit: its mean is a lower bound, no speed-up.
        k16 = SCALING["scaling-fat-tree-k16"][3]
        self.assertEqual(rows["fat-tree-k16"]["Speed-up over Symphony"], "n/a")
        self.assertIn("hit its time limit", rows["fat-tree-k16"]["Symphony (ms per plan, plans)"])
        self.assertEqual(rows["fat-tree-k16"]["Speed-up over by parts"],
                         speedup_text(k16["symphony-split"][1] / k16["harmonics"][1]))
        speed = next(r for c, r in claims.items() if "largest cluster" in c)
        # The largest cluster with a finished one-MILP run is k8.
        self.assertEqual(speed["This database"], speedup_text(k8["symphony"][1]
                                                              / k8["harmonics"][1]))
        self.assertIn("at 1024 GPUs", speed["Note"])
        self.assertIn("at 8192 GPUs", speed["Note"])  # by parts, at k16

    def test_scaling_runs_alone_still_draw_the_figure(self):
        build(self.db, large=False)
        result = self.plot()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue((self.out / "figure5.png").exists())
        self.assertIn(f"no runs with example '{LARGE}'", self.summary())

    def test_a_run_without_its_host_count_is_refused_by_name(self):
        def no_hosts(hosts, per_host, jobs, sp):
            return json.dumps({"gpusPerHost": per_host, "jobs": jobs, "scheduler_params": sp})

        build(self.db, params=no_hosts)
        result = self.plot()
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertRegex(result.stderr, r"run \d+ \(scaling-fat-tree-k\d+, symphony\)")
        self.assertIn("hosts", result.stderr)
        self.assertFalse((self.out / "figures.md").exists())

    def test_an_unfinished_scaling_run_is_refused(self):
        build(self.db, status="failed")
        result = self.plot()
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn("scaling-fat-tree-k8", result.stderr)
        self.assertIn("not complete", result.stderr)

    def test_two_runs_of_one_planner_at_one_size_are_refused(self):
        build(self.db)
        conn = base.sqlite3.connect(self.db)
        run_id = conn.execute("INSERT INTO runs (example, scheduler, seed, params_json, status,"
                              " started_at) VALUES ('scaling-fat-tree-k8', 'harmonics', 2, ?,"
                              " 'complete', 'x')",
                              (scaling_params(128, 8, 30, {"TimeLimit": "10s"}),)).lastrowid
        conn.execute("INSERT INTO scheduler_timing VALUES (?, 'scheduling', 1, 1, 1, 1)",
                     (run_id,))
        conn.commit()
        conn.close()
        result = self.plot()
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertIn("a second harmonics run", result.stderr)


if __name__ == "__main__":
    unittest.main()
