#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of run-report.py's comparison page (without --run).

A real comparison first: the example given as the first argument runs a small scenario
of two LLM jobs under every policy (--compare=all) into a database, and the page of its
scenario is opened in headless Chromium 1,280 pixels wide: the screenshot is not blank,
every policy of the database appears, every image loaded, the console holds nothing and
nothing scrolls sideways; each of these checks is seen failing on a copy of the page
broken on purpose. The summary's numbers are checked against the database with SQL.
Then, on a synthetic database, the page's memory does not grow with the link samples.

    /usr/bin/python3 utils/test-compare-report.py build/multi-tenant-fat-tree
"""

import html
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

UTILS = Path(__file__).resolve().parent
SCRIPT = UTILS / "run-report.py"
SCENARIO = UTILS.parent / "examples" / "scenarios" / "llm" / "two-llm-jobs-rail.json"
sys.path.insert(0, str(UTILS))
import results_test_schema  # noqa: E402  (after the path it is found on)
from report_test_browser import (CHROMIUM, NO_CHROMIUM, console_errors,  # noqa: E402
                                 images_loaded, non_background, open_page, sideways)

EXAMPLE = sys.argv.pop(1) if len(sys.argv) > 1 and os.path.isfile(sys.argv[1]) else None
PAGE = "two-llm-jobs-rail.html"
# Summary labels of the parts -> iteration_times columns.
COLUMNS = {"compute": "compute_ns", "exposed DP": "exposed_dp_ns", "exposed TP": "exposed_tp_ns",
           "exposed PP": "exposed_pp_ns", "exposed EP": "exposed_ep_ns",
           "exposed other": "exposed_other_ns", "gate wait": "gate_wait_ns",
           "bubble": "bubble_ns"}
DIFFERENCE = re.compile(r"(\S+) (saves|adds) ([\d.]+)% (?:on|to) job (\d+): ([\d.]+) ms against "
                        r"fair's ([\d.]+) ms(?:; (.+?) (?:falls|grows) from ([\d.]+) to "
                        r"([\d.]+) ms an iteration)?\.")
GATE = re.compile(r"Under (\S+), the gate holds job (\d+) for ([\d.]+) ms an iteration\.")


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=900)


def summary_text(page):
    match = re.search(r'<p class="summary" id="summary">(.*?)</p>', page, re.S)
    return html.unescape(match.group(1)) if match else ""


def missing_policies(page, policies):
    """The policies (scheduler names of the runs table) the runs table of the page lacks."""
    runs = re.search(r'<section id="runs">(.*?)</section>', page, re.S)
    cells = set(re.findall(r"<tr><td>([^<]*)</td>", runs.group(1))) if runs else set()
    return sorted(p for p in policies if not any(c.lower() == p for c in cells))


@unittest.skipUnless(EXAMPLE, "give the multi-tenant-fat-tree binary as the first argument")
class ComparisonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="compare-report-test-")
        cls.dir = Path(cls.tmp.name)
        cls.db = cls.dir / "all.db"
        example = subprocess.run([EXAMPLE, f"--scenario={SCENARIO}", "--compare=all",
                                  f"--db={cls.db}", "--parallel=1"], capture_output=True,
                                 text=True, timeout=900)
        assert example.returncode == 0, example.stderr[-2000:]
        # The runs' timelines are timeline-test's: a small cap leaves them out, quickly.
        cls.result = run_script(cls.db, "--out", cls.dir / "out", "--timeline-max-events", 1000)
        assert cls.result.returncode == 0, cls.result.stderr
        cls.path = cls.dir / "out" / PAGE
        cls.page = cls.path.read_text()
        cls.conn = sqlite3.connect(cls.db)
        cls.policies = [p for (p,) in cls.conn.execute("SELECT DISTINCT scheduler FROM runs")]
        if CHROMIUM:
            cls.screenshot = cls.dir / "page.png"
            cls.dom, cls.log = open_page(cls.path, cls.dir, "--hide-scrollbars",
                                         "--window-size=1280,2400",
                                         f"--screenshot={cls.screenshot}")

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()
        cls.tmp.cleanup()

    def sql(self, query, *args):
        return self.conn.execute(query, args).fetchone()[0]

    def test_every_policy_and_run_appears_and_is_linked(self):
        self.assertEqual(len(self.policies), 8)
        self.assertEqual(missing_policies(self.page, self.policies), [])
        for (run,) in self.conn.execute("SELECT run_id FROM runs"):
            self.assertIn(f'<a href="run-{run}/index.html">run {run}</a>', self.page)
            self.assertIn(f'href="../{PAGE}"', (self.dir / "out" / f"run-{run}" /
                                                "index.html").read_text())
        self.assertIn(f'href="{PAGE}"', (self.dir / "out" / "index.html").read_text())

    def test_heat_maps_and_decisions_are_drawn(self):
        self.assertIn('alt="Heat maps of link utilization over time, one per policy', self.page)
        self.assertIn("<h2>4. The scheduler's decisions</h2>", self.page)

    def test_summary_names_the_largest_saving_as_the_database_has_it(self):
        text = summary_text(self.page)
        found = DIFFERENCE.findall(text)
        self.assertTrue(found, text)
        # Every job's time under every policy but fair and isolated, over fair's, by SQL.
        changes = {}
        for policy, job, mine, fair in self.conn.execute(
                "SELECT r.scheduler, j.job_id, j.end_ns - j.arrival_ns, f.end_ns - f.arrival_ns"
                " FROM jobs j JOIN runs r USING (run_id) JOIN jobs f ON f.job_id = j.job_id"
                " AND f.run_id = (SELECT run_id FROM runs WHERE scheduler = 'fair')"
                " WHERE r.scheduler NOT IN ('fair', 'isolated')"):
            changes[(policy, job)] = (1 - mine / fair, mine, fair)
        best = max(changes.values())[0]
        worst = min(changes.values())[0]
        # The largest saving and loss over 0.1% are named, and nothing else.
        self.assertEqual(sorted(verb for _, verb, *_ in found),
                         (["adds"] if worst < -0.001 else []) + (["saves"] if best > 0.001 else []))
        for label, verb, percent, job, mine, fair, part, before, after in found:
            change, mine_ns, fair_ns = changes[(label.lower(), int(job))]
            self.assertAlmostEqual(float(percent), abs(change) * 100, delta=0.05)
            self.assertEqual(change, best if verb == "saves" else worst)
            self.assertEqual(mine, f"{mine_ns / 1e6:.3f}")
            self.assertEqual(fair, f"{fair_ns / 1e6:.3f}")
            if part:
                means = {}  # policy -> {part: mean ns}
                for policy in ("fair", label.lower()):
                    row = self.conn.execute(
                        "SELECT " + ", ".join(f"AVG({c})" for c in COLUMNS.values()) +
                        " FROM iteration_times WHERE job_id = ? AND run_id ="
                        " (SELECT run_id FROM runs WHERE scheduler = ?)",
                        (int(job), policy)).fetchone()
                    means[policy] = dict(zip(COLUMNS, row))
                self.assertEqual(before, f"{means['fair'][part] / 1e6:.3f}")
                self.assertEqual(after, f"{means[label.lower()][part] / 1e6:.3f}")
                moved = {p: abs(means[label.lower()][p] - means["fair"][p]) for p in COLUMNS}
                self.assertEqual(moved[part], max(moved.values()), "the part that moved most")
        for label, job, wait in GATE.findall(text):
            waits = {j: w for j, w in self.conn.execute(
                "SELECT job_id, AVG(gate_wait_ns) FROM iteration_times WHERE run_id ="
                " (SELECT run_id FROM runs WHERE scheduler = ?) GROUP BY job_id",
                (label.lower(),))}
            self.assertEqual(int(job), max(waits, key=waits.get))
            self.assertEqual(wait, f"{waits[int(job)] / 1e6:.3f}")

    def test_summary_mean_ratios_match_the_database(self):
        means = re.search(r"mean over jobs: (.*)\.$", summary_text(self.page))
        self.assertIsNotNone(means)
        for label, shown in re.findall(r"(\S+) ([\d.]+)", means.group(1)):
            if label.lower() == "isolated":  # per job, its faster run alone
                continue
            expected = self.sql(
                "SELECT AVG(1.0 * (j.end_ns - j.arrival_ns) / (f.end_ns - f.arrival_ns)) FROM jobs"
                " j JOIN runs r USING (run_id) JOIN jobs f ON f.job_id = j.job_id AND f.run_id ="
                " (SELECT run_id FROM runs WHERE scheduler = 'fair') WHERE r.scheduler = ?",
                label.lower())
            self.assertEqual(shown, f"{expected:.3f}", label)

    @unittest.skipUnless(CHROMIUM, NO_CHROMIUM)
    def test_in_chromium(self):
        differs, shape = non_background(self.screenshot)
        self.assertEqual(shape, (2400, 1280))
        self.assertGreater(differs, 0.05)
        total = self.page.count("<img ")
        self.assertGreaterEqual(total, 2)
        self.assertEqual(images_loaded(self.dom), (total, total))
        self.assertEqual(console_errors(self.log), [])
        self.assertEqual(sideways(self.dom), (0, 0))

    @unittest.skipUnless(CHROMIUM, NO_CHROMIUM)
    def test_the_checks_catch_a_page_broken_on_purpose(self):
        """A blank page, a policy left out, a broken image, a script error and a box wider
        than the window, each on a copy of the page, fail their check."""
        blank = self.dir / "blank.html"
        blank.write_text(re.sub(r"<body>.*</body>", "<body></body>", self.page, flags=re.S))
        open_page(blank, self.dir, "--hide-scrollbars", "--window-size=1280,2400",
                  f"--screenshot={self.dir / 'blank.png'}")
        self.assertLess(non_background(self.dir / "blank.png")[0], 0.05)
        self.assertEqual(missing_policies(self.page.replace("<tr><td>Harmonics</td>",
                                                            "<tr><td>?</td>"), self.policies),
                         ["harmonics"])
        broken = self.dir / "broken.html"
        broken.write_text(re.sub(r'src="data:image/png;base64,[^"]*"',
                                 'src="data:image/png;base64,AAAA"', self.page, count=1)
                          .replace("</body>", "<script>undefinedFunction();</script>\n"
                                   '<div style="width: 1500px">wide</div>\n</body>'))
        dom, log = open_page(broken, self.dir)
        total = self.page.count("<img ")
        self.assertEqual(images_loaded(dom), (total - 1, total))
        self.assertTrue(any("undefinedFunction" in e for e in console_errors(log)), log)
        self.assertGreater(sideways(dom)[0], 0)


def make_scenario_database(path, links, samples):
    """Two runs of one scenario, fair and harmonics, a job each and a link sample of every
    directed link every 10 us."""
    interval = 10_000
    conn = sqlite3.connect(path)
    conn.executescript(results_test_schema.BASE + results_test_schema.SCHEDULING
                       + results_test_schema.MONITORS)
    for run, policy in ((1, "fair"), (2, "harmonics")):
        conn.execute("INSERT INTO runs VALUES (?, 'large', ?, 1, '{\"backend\": \"packet\"}',"
                     " 'complete', '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', ?, 1.0, 1, 1,"
                     " NULL, NULL, NULL)", (run, policy, samples * interval))
        conn.execute("INSERT INTO jobs VALUES (?, 0, 'gpt2-124m', 4, 1, NULL, 0, 0, ?, 1, 1.0)",
                     (run, samples * interval * (3 - run)))
        results_test_schema.add_link_samples(conn, run, links, samples, interval)
    conn.commit()
    conn.close()


class MemoryTest(unittest.TestCase):
    def test_link_samples_are_never_held(self):
        """The comparison of two runs of 64 links sampled 10,000 times (2.56 million rows)
        needs no more memory than that of a hundredth of the samples, plus a little."""
        with tempfile.TemporaryDirectory(prefix="compare-report-memory-") as tmp:
            tmp = Path(tmp)
            links, samples, headroom = 64, 10_000, 32 * 2**20
            self.assertGreater(2 * links * 2 * samples * 72, 2 * headroom)
            make_scenario_database(tmp / "small.db", links, samples // 100)
            make_scenario_database(tmp / "big.db", links, samples)
            args = ["--timeline-max-events", 1000]
            small, small_peak = results_test_schema.run_measured(
                sys.executable, SCRIPT, [tmp / "small.db", "--out", tmp / "small", *args])
            self.assertEqual(small.returncode, 0, small.stderr)
            big, peak = results_test_schema.run_measured(
                sys.executable, SCRIPT, [tmp / "big.db", "--out", tmp / "big", *args],
                limit=small_peak + headroom)
            self.assertEqual(big.returncode, 0, big.stderr[-2000:])
            self.assertLess(peak - small_peak, headroom)
            page = (tmp / "big" / "large.html").read_text()
            self.assertIn("Harmonics saves 50.0% on job 0: 100.000 ms against fair's "
                          "200.000 ms.", summary_text(page))
            self.assertIn('alt="Heat maps of link utilization', page)


if __name__ == "__main__":
    unittest.main()
