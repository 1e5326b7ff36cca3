#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks of run-report.py on small synthetic results databases.

Each database is written here with sqlite3 and known rows; the script runs as a
subprocess and its page is checked against numbers computed here from those rows.
Then headless Chromium opens the page: the screenshot must not be blank, every image
must have loaded and the page must log nothing to the console. The Chromium part is
skipped only when no Chromium binary is found.

    /usr/bin/python3 utils/test-run-report.py
"""

import base64
import html
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402

UTILS = Path(__file__).resolve().parent
SCRIPT = UTILS / "run-report.py"
sys.path.insert(0, str(UTILS))
import results_test_schema  # noqa: E402  (after the path it is found on)
from report_test_browser import (CHROMIUM, NO_CHROMIUM, console_errors,  # noqa: E402
                                 images_loaded, non_background, open_page, sideways)
from results_test_schema import side_files, to_wal  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HEADINGS = ["1. Run parameters and outcome", "2. Jobs", "3. Job Gantt chart",
            "4. Link utilization", "5. Queues and PFC of the busiest ports", "6. Timeline"]

SCHEMA = results_test_schema.BASE

NEW_TABLES = results_test_schema.SCHEDULING + results_test_schema.MONITORS

INTERVAL = 10_000  # link and port sampling interval, ns
RATE = 100_000_000_000  # every link, b/s
# job id -> (model, workers, placement, arrival, start, end, iterations)
JOBS = {
    0: ("gpt2-124m", 4, {"hosts": [0, 1, 2, 3], "policy": "packed"}, 0, 100_000, 2_345_678, 2),
    1: ("llama-7b", 8, {"hosts": [4, 5, 6, 7, 9], "policy": "spread"}, 50_000, 200_000,
        2_900_000, 2),
    2: ("pythia-1b", 4, {"hosts": [8, 10, 11, 12], "policy": "random"}, 0, 0, 1_500_000, 2),
}
# (job, iter) -> (compute start, comm ready, comm start, comm end)
ITERATIONS = {
    (0, 0): (100_000, 600_000, 650_000, 1_100_000), (0, 1): (1_100_000, 1_600_000,
                                                              1_700_000, 2_345_678),
    (1, 0): (200_000, 700_000, 900_000, 1_500_000), (1, 1): (1_500_000, 2_000_000,
                                                              2_100_000, 2_900_000),
    (2, 0): (0, 400_000, 400_000, 700_000), (2, 1): (700_000, 1_100_000, 1_150_000,
                                                     1_500_000),
}
# (job, iter) -> compute, overlapped, exposed dp/tp/pp/ep/other, gate wait, bubble (ns)
ITERATION_TIMES = {
    (0, 0): (400_000, 50_000, 300_000, 100_000, 0, 0, 0, 50_000, 150_000),
    (0, 1): (600_000, 70_000, 500_000, 45_678, 0, 0, 0, 100_000, 0),
    (1, 0): (500_000, 0, 600_000, 0, 0, 0, 0, 200_000, 0),
    (1, 1): (500_000, 0, 800_000, 0, 0, 0, 0, 100_000, 0),
    (2, 0): (400_000, 0, 300_000, 0, 0, 0, 0, 0, 0),
    (2, 1): (400_000, 0, 350_000, 0, 0, 0, 0, 50_000, 0),
}
# (node, port, link) -> peak queue bytes; the smallest is not among the 4 shown
PORTS = {(8, 0, 2): 300_000, (4, 1, 0): 120_000, (4, 0, 1): 50_000, (4, 2, 3): 8_000,
         (9, 1, 3): 1_000}


def add_complete_run(conn):
    """Run 1: complete, three jobs, every table filled."""
    params = {"topology": "fat-tree", "jobs": 3, "linkSampleIntervalNs": INTERVAL,
              "monitorIntervalNs": INTERVAL, "scheduler_params": {"SlotLength": "50us"}}
    conn.execute("INSERT INTO runs VALUES (1, 'unit-example', 'harmonics', 7, ?, 'complete',"
                 " '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', 3000000, 1.25, 123456,"
                 " 654321, NULL, 4242, 'testhost')", (json.dumps(params),))
    for job, (model, workers, placement, arrival, start, end, iters) in JOBS.items():
        conn.execute("INSERT INTO jobs VALUES (1, ?, ?, ?, 1, ?, ?, ?, ?, ?, 1.0)",
                     (job, model, workers, json.dumps(placement), arrival, start, end, iters))
    for (job, it), times in ITERATIONS.items():
        conn.execute("INSERT INTO iterations VALUES (1, ?, ?, ?, ?, ?, ?)", (job, it, *times))
        conn.execute("INSERT INTO iteration_times VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (job, it, times[3], *ITERATION_TIMES[(job, it)]))
        conn.execute("INSERT INTO collectives VALUES (1, ?, ?, ?, ?, ?, 0, NULL, NULL, NULL,"
                     " NULL)", (job, it, times[1], times[2], times[3]))
    # Job 1's gate: closed from the start, opened, closed, opened.
    conn.executemany("INSERT INTO gates VALUES (1, ?, 1, ?)",
                     [(0, 0), (900_000, 1), (1_500_000, 0), (2_100_000, 1)])
    conn.executemany("INSERT INTO scheduler_decisions VALUES (1, ?, 'harmonics', ?, ?, '{}', 5)",
                     [(0, "job-arrived", 0), (0, "job-arrived", 1), (10_000, "plan-ready", None)])
    for link, (a, b) in enumerate([(0, 4), (1, 4), (4, 8), (5, 8)]):
        conn.execute("INSERT INTO links VALUES (1, ?, ?, ?, ?, 1000, 0, 0, 0, 0, 0, 0)",
                     (link, a, b, RATE))
    samples = []
    for t in range(INTERVAL, 200_001, INTERVAL):  # link 0 a->b: two jobs, 0.75 together
        samples += [(0, 0, 0, t, 62_500), (0, 0, 1, t, 31_250)]
    for t in range(100_000, 300_001, INTERVAL):  # link 2 b->a: job 1 at the full rate
        samples.append((2, 1, 1, t, 125_000))
    for t in range(INTERVAL, 50_001, INTERVAL):
        samples.append((1, 0, 2, t, 12_500))
    conn.executemany("INSERT INTO link_samples VALUES (1, ?, ?, ?, ?, ?)", samples)
    rows = []
    for (node, port, link), peak in PORTS.items():
        for k, t in enumerate(range(INTERVAL, 400_001, INTERVAL)):
            queue = peak if k == 10 else peak // (k % 7 + 2)
            rows.append((node, port, link, t, 3, queue, INTERVAL // 2 if k % 5 == 0 else 0, 1))
            if k % 3 == 0:
                rows.append((node, port, link, t, 0, queue // 4, 0, 0))
    conn.executemany("INSERT INTO port_samples VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    spans = []
    for (job, it), (start, ready, comm_start, comm_end) in ITERATIONS.items():
        if job == 2:
            continue  # job 2 is drawn from iterations
        if job == 1:  # two stages: ranks 4-7 compute less and wait (a bubble)
            spans += [(job, it, 0, "compute", "fwd-bwd", "none", None, 0, "0-3", 0, start,
                       start, ready),
                      (job, it, 2, "compute", "fwd-bwd", "none", None, 0, "4-7", 0, start,
                       start, ready - 200_000),
                      (job, it, 1, "collective", "grads", "dp", "ring", 1_000_000, "0,4", 1,
                       ready - 100_000, comm_start - 100_000, comm_end)]
            continue
        spans += [(job, it, 0, "compute", "fwd-bwd", "none", None, 0, "0-3", 0, start, start,
                   ready),
                  (job, it, 1, "collective", "grads", "dp", "ring", 1_000_000, "0-3", 1,
                   ready - 100_000, comm_start - 100_000, comm_end)]
    conn.executemany("INSERT INTO op_spans VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     spans)


def add_failed_run(conn):
    """Run 2: failed half-way, its one job never finished."""
    conn.execute("INSERT INTO runs VALUES (2, 'unit-example', 'fair', 8, '{}', 'failed',"
                 " '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', 800000, 0.5, 1000, 2000,"
                 " 'simulated out of memory', 4243, 'testhost')")
    conn.execute("INSERT INTO jobs VALUES (2, 0, 'gpt2-124m', 4, 1, NULL, 0, 0, NULL, 5, 1.0)")
    conn.execute("INSERT INTO iterations VALUES (2, 0, 0, 0, 300000, 300000, 700000)")


def make_database(path, new_tables=True):
    """A results database; without `new_tables`, an older build's (no iteration_times,
    op_spans, port_samples, ...), with a run whose link samples are off."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA + (NEW_TABLES if new_tables else ""))
    if new_tables:
        add_complete_run(conn)
        add_failed_run(conn)
    else:
        conn.execute("INSERT INTO runs VALUES (1, 'old-example', 'fair', 1, '{\"k\": 4}',"
                     " 'complete', '2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z', 2000000,"
                     " 0.1, 10, 20, NULL, NULL, NULL)")
        for job in (0, 1):
            conn.execute("INSERT INTO jobs VALUES (1, ?, 'gpt2-124m', 4, 1, NULL, 0, 0, ?, 1,"
                         " 1.0)", (job, 1_000_000 + job))
            conn.execute("INSERT INTO iterations VALUES (1, ?, 0, 0, 400000, 400000, ?)",
                         (job, 1_000_000 + job))
    conn.commit()
    conn.close()


def run_script(*args, script=SCRIPT):
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


class PageParser(HTMLParser):
    """The page's h2 headings, table rows per section, images, and whether tags nest."""

    VOID = {"meta", "link", "img", "br", "hr", "input", "source", "wbr"}

    def __init__(self):
        super().__init__()
        self.headings, self.images, self.links, self.errors = [], [], [], []
        self.tables = {}  # section id -> [rows of cell texts]
        self.stack, self.section, self.text, self.row = [], None, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in self.VOID:
            self.stack.append(tag)
        if tag == "section":
            self.section = attrs.get("id")
        elif tag in ("h2", "td", "th"):
            self.text = []
        elif tag == "tr":
            self.row = []
        elif tag == "img":
            self.images.append(attrs)
        elif tag in ("a", "link", "script"):
            self.links.append((tag, attrs.get("href") or attrs.get("src")))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()
        if tag == "h2":
            self.headings.append("".join(self.text).strip())
        elif tag in ("td", "th") and self.row is not None:
            self.row.append("".join(self.text).strip())
        elif tag == "tr":
            self.tables.setdefault(self.section, []).append(self.row)
        if tag in ("h2", "td", "th"):
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)


def parse(page):
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


def section_text(page, anchor):
    """The text of one section, tags removed and whitespace collapsed."""
    match = re.search(rf'<section id="{anchor}">(.*?)</section>', page, re.S)
    text = re.sub(r"<[^>]+>", " ", match.group(1)) if match else ""
    return re.sub(r"\s+", " ", html.unescape(text))


def job_rows(parser):
    """Rows of the jobs section's tables (the jobs, then their breakdown) as dicts keyed
    by the header cells, a job's rows of both tables merged."""
    jobs, headers = {}, None
    for row in parser.tables["jobs"]:
        if row[0] == "job":
            headers = row
        else:
            jobs.setdefault(row[0], {}).update(zip(headers, row))
    return jobs


class ReportTest(unittest.TestCase):
    """One report of the complete run, shared by the checks of its content."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="run-report-test-")
        cls.dir = Path(cls.tmp.name)
        cls.db = cls.dir / "results.db"
        make_database(cls.db)
        cls.out = cls.dir / "report"
        cls.result = run_script(cls.db, "--run", 1, "--out", cls.out)
        page_path = cls.out / "index.html"
        cls.page = page_path.read_text(encoding="utf-8") if page_path.exists() else ""

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_runs_and_says_what_it_wrote(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertRegex(self.result.stdout, r"wrote .*index\.html.* in [0-9.]+ s")

    def test_page_is_valid_simple_html(self):
        self.assertTrue(self.page.startswith("<!DOCTYPE html>"))
        self.assertIn('<meta charset="utf-8">', self.page)
        self.assertRegex(self.page, r"<title>Run 1: unit-example, scheduler harmonics, seed 7")
        parser = parse(self.page)
        self.assertEqual(parser.errors, [])
        self.assertEqual(parser.stack, [], "unclosed tags")

    def test_section_headings_in_order(self):
        self.assertEqual(parse(self.page).headings, HEADINGS)

    def test_run_section(self):
        text = section_text(self.page, "run")
        for expected in ("unit-example", "harmonics", "complete", "3 ms (3,000,000 ns)",
                         "1.250 s", "123,456", "654,321",
                         "3 (job-arrived 2, plan-ready 1)", "linkSampleIntervalNs", "10000",
                         '{"SlotLength":"50us"}'):
            self.assertIn(expected, text)
        self.assertNotIn('class="alert"', self.page)

    def test_job_table_holds_the_inserted_values(self):
        rows = job_rows(parse(self.page))
        self.assertEqual(sorted(rows), ["0", "1", "2"])
        for job, (model, workers, _, arrival, start, end, iters) in JOBS.items():
            row = rows[str(job)]
            self.assertEqual(row["model"], model)
            self.assertEqual(row["workers"], str(workers))
            self.assertEqual(row["iterations"], str(iters))
            self.assertEqual(row["arrival (ms)"], f"{arrival / 1e6:.3f}")
            self.assertEqual(row["end (ms)"], f"{end / 1e6:.3f}")
            self.assertEqual(row["training time (ms)"], f"{(end - start) / 1e6:.3f}")
            durations = [ITERATIONS[(job, i)][3] - ITERATIONS[(job, i)][0] for i in range(2)]
            self.assertEqual(row["mean iteration (ms)"], f"{sum(durations) / 2 / 1e6:.3f}")
            for column, index in (("compute (ms)", 0), ("exposed DP (ms)", 2),
                                  ("gate wait (ms)", 7), ("bubble (ms)", 8)):
                mean = (ITERATION_TIMES[(job, 0)][index] + ITERATION_TIMES[(job, 1)][index]) / 2
                self.assertEqual(row[column], f"{mean / 1e6:.3f}", (job, column))
        self.assertEqual(rows["0"]["training time (ms)"], "2.246")  # (2345678 - 100000) ns
        self.assertEqual(rows["0"]["placement"], "packed, 4 hosts 0-3")
        self.assertEqual(rows["1"]["placement"], "spread, 5 hosts 4-7,9")

    def test_images_are_valid_pngs_with_alt_text(self):
        images = parse(self.page).images
        self.assertEqual(len(images), 4)  # breakdown, Gantt, links, ports
        for attrs in images:
            self.assertTrue(attrs.get("alt"), attrs.get("src", "")[:40])
            prefix = "data:image/png;base64,"
            self.assertTrue(attrs["src"].startswith(prefix))
            png = base64.b64decode(attrs["src"][len(prefix):], validate=True)
            self.assertTrue(png.startswith(PNG_SIGNATURE))
            pixels = mpimg.imread(io.BytesIO(png), format="png")
            self.assertEqual((pixels.shape[1], pixels.shape[0]),
                             (int(attrs["width"]), int(attrs["height"])))

    def test_nothing_loaded_from_elsewhere(self):
        for tag, target in parse(self.page).links:
            if target is not None:
                self.assertTrue(target.startswith(("#", "data:")) or target == "timeline.json",
                                (tag, target))
        self.assertNotRegex(self.page, r"(src|href)=\"(https?:)?//")

    def test_breakdown_is_a_stacked_bar_chart_above_its_table(self):
        jobs = self.page[self.page.index('<section id="jobs">'):]
        chart = jobs.index('alt="Stacked bars of the mean iteration of each of the 3 jobs')
        self.assertLess(chart, jobs.index("<th>exposed DP (ms)</th>"))

    def test_gantt_has_a_row_per_rank_group_of_a_staged_job(self):
        """Job 1 computes in two groups of ranks (0-3 and 4-7): a row each, job 0 (one group)
        and job 2 (no op spans) a row of their own."""
        gantt = [a["alt"] for a in parse(self.page).images if a["alt"].startswith("Gantt")]
        self.assertEqual(len(gantt), 1)
        self.assertIn("in 4 rows (job 0 (gpt2-124m); job 1 (llama-7b) ranks 0-3; ranks 4-7; "
                      "job 2 (pythia-1b))", gantt[0])
        self.assertIn("a row per group, named by its ranks", section_text(self.page, "gantt"))

    def test_plots_say_what_they_show(self):
        self.assertIn("op_spans", section_text(self.page, "gantt"))
        links = section_text(self.page, "links")
        self.assertIn("samples of 10 us", links)
        self.assertNotIn("Showing the", links)  # 3 links carried traffic: no cap
        ports = section_text(self.page, "ports")
        for node, port, _ in sorted(PORTS, key=PORTS.get, reverse=True)[:4]:
            self.assertIn(f"node {node} port {port}: {PORTS[(node, port, _)] / 1e3:.1f} KB",
                          ports)
        self.assertNotIn("node 9 port 1", ports)

    def test_timeline_linked_or_explained(self):
        text = section_text(self.page, "timeline")
        if (UTILS / "timeline.py").exists() and 'href="timeline.json"' in self.page:
            json.loads((self.out / "timeline.json").read_text())
            self.assertIn("ui.perfetto.dev", text)
        else:
            self.assertIn("No timeline", text)
            self.assertFalse((self.out / "timeline.json").exists())


class OtherRunsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="run-report-test-")
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def copy_script(self, timeline_source=None):
        """The script in a directory of its own, with the given timeline.py (or none)."""
        utils = self.dir / "utils"
        utils.mkdir()
        for name in ("run-report.py", "plot_common.py", "results_runs.py", "cli_paths.py"):
            shutil.copy(UTILS / name, utils / name)
        for module in UTILS.glob("report_*.py"):
            shutil.copy(module, utils / module.name)
        if timeline_source is not None:
            (utils / "timeline.py").write_text(timeline_source)
        return utils / "run-report.py"

    def test_incomplete_run_is_flagged(self):
        make_database(self.dir / "r.db")
        result = run_script(self.dir / "r.db", "--run", 2, "--out", self.dir / "out")
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (self.dir / "out" / "index.html").read_text()
        alert = re.search(r'<p class="alert">(.*?)</p>', page)
        self.assertIsNotNone(alert)
        self.assertIn("This run is not complete: status 'failed'; error: simulated out of memory",
                      html.unescape(alert.group(1)))
        self.assertIn("[failed]</title>", page)
        self.assertIn("FAILED (not complete)", section_text(page, "run"))
        self.assertEqual(job_rows(parse(page))["0"]["end (ms)"], "not finished")
        self.assertIn("No link samples in this run", page)
        self.assertIn("no port_samples rows", page)

    def test_old_database_gives_a_full_page(self):
        make_database(self.dir / "old.db", new_tables=False)
        script = self.copy_script()  # and no timeline.py beside it
        result = run_script(self.dir / "old.db", "--run", 1, "--out", self.dir / "out",
                            script=script)
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (self.dir / "out" / "index.html").read_text()
        parser = parse(page)
        self.assertEqual(parser.headings, HEADINGS)
        self.assertEqual(parser.errors, [])
        self.assertEqual(len(parser.images), 1)  # the Gantt chart
        self.assertIn("no iteration_times table", page)
        self.assertIn("iterations (compute", section_text(page, "gantt"))
        self.assertIn("No link samples in this run", page)
        self.assertIn("--ns3::LinkSampler::Interval=100us", page)
        self.assertIn("no port monitors", page)
        self.assertIn("--ns3::PortMonitor::Interval=10us", page)
        self.assertIn("No timeline: utils/timeline.py could not be imported", page)
        self.assertFalse((self.dir / "out" / "timeline.json").exists())

    def test_timeline_written_and_linked(self):
        make_database(self.dir / "r.db")
        script = self.copy_script(
            "import json\nclass TimelineError(Exception):\n    pass\n"
            "def write_timeline(db_path, run_id, out_path, **kwargs):\n"
            "    text = json.dumps({'traceEvents': [], 'run': run_id})\n"
            "    open(out_path, 'w').write(text)\n"
            "    return {'events': 0, 'bytes': len(text), 'from_ns': 0, 'to_ns': 1}\n")
        result = run_script(self.dir / "r.db", "--run", 1, "--out", self.dir / "out",
                            script=script)
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (self.dir / "out" / "index.html").read_text()
        self.assertIn('<a href="timeline.json"', page)
        self.assertIn("Open trace file", page)
        self.assertIn("chrome://tracing", page)
        self.assertEqual(json.loads((self.dir / "out" / "timeline.json").read_text())["run"], 1)

    def test_timeline_too_big_gives_the_command(self):
        make_database(self.dir / "r.db")
        script = self.copy_script(
            "class TimelineError(Exception):\n    pass\n"
            "def write_timeline(db_path, run_id, out_path, **kwargs):\n"
            "    raise TimelineError('the trace would have 5000000 events, more than "
            "--max-events 1000000')\n")
        out = self.dir / "out"
        out.mkdir()
        (out / "timeline.json").write_text("{}")  # a stale one from an earlier report
        result = run_script(self.dir / "r.db", "--run", 1, "--out", out, script=script)
        self.assertEqual(result.returncode, 0, result.stderr)
        page = (out / "index.html").read_text()
        text = section_text(page, "timeline")
        self.assertIn("5000000 events, more than --max-events 1000000", text)
        self.assertRegex(text, r"utils/timeline\.py \S+r\.db --run 1 --out \S+timeline\.json"
                               r" --jobs 0,1,2 --from 0 --to 300us")
        self.assertNotIn('href="timeline.json"', text)
        self.assertFalse((out / "timeline.json").exists())
        if (UTILS / "timeline.py").exists():  # the command suggested works with the real one
            shown = html.unescape(re.search(r"<pre><code>(.*?)</code></pre>", page).group(1))
            command = shown.split()[1:]
            result = subprocess.run([sys.executable, str(UTILS / "timeline.py"), *command],
                                    capture_output=True, text=True, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("traceEvents", json.loads((out / "timeline.json").read_text()))

    def test_bad_inputs_exit_2_and_write_nothing(self):
        make_database(self.dir / "r.db")
        (self.dir / "text.db").write_text("not a database\n" * 100)
        conn = sqlite3.connect(self.dir / "other.db")
        conn.execute("CREATE TABLE t (x)")
        conn.close()
        (self.dir / "file").write_text("")
        cases = [(self.dir / "missing.db", 1, "out", "no such file"),
                 (self.dir / "text.db", 1, "out", "not an SQLite database"),
                 (self.dir / "other.db", 1, "out", "not a results database"),
                 (self.dir / "r.db", 99, "out", "no run 99"),
                 (self.dir / "r.db", 1, "file", "not a directory")]
        for db, run, out, message in cases:
            with self.subTest(db=db.name, run=run, out=out):
                result = run_script(db, "--run", run, "--out", self.dir / out)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertEqual(result.stdout, "")
                self.assertFalse((self.dir / "out").exists())


def page_text(page):
    """A page without what differs between two reports of one run: its time and the path
    of the database."""
    return re.sub(r"<p class=\"note\">Results database [^<]*</p>", "", page)


class NvSwitchRowsTest(unittest.TestCase):
    """Since schema 7 the NVSwitch ports' samples share link_samples and port_samples
    (kind 'nvswitch', link_id or node_id a GPU): the fabric's sections leave them out."""

    def test_nvswitch_rows_are_not_fabric_links_or_ports(self):
        with tempfile.TemporaryDirectory(prefix="run-report-test-") as tmp:
            db = Path(tmp) / "results.db"
            make_database(db)
            conn = sqlite3.connect(db)
            for table in ("link_samples", "port_samples"):
                conn.execute(f"ALTER TABLE {table} ADD COLUMN kind TEXT NOT NULL"
                             " DEFAULT 'fabric'")
            # GPU 0's port in at ten times link 0's rate, GPU 999's a deep backlog.
            conn.executemany("INSERT INTO link_samples (run_id, link_id, direction, job_id,"
                             " t_ns, tx_bytes, kind) VALUES (1, 0, 0, 0, ?, 1250000,"
                             " 'nvswitch')", [(t,) for t in range(INTERVAL, 200_001, INTERVAL)])
            conn.execute("INSERT INTO port_samples (run_id, node_id, port, link_id, t_ns, class,"
                         " queue_bytes, paused_ns, ecn_marks, kind) VALUES (1, 999, 0, 999, ?,"
                         " 0, 1000000000, 0, 0, 'nvswitch')", (INTERVAL,))
            conn.commit()
            conn.close()
            out = Path(tmp) / "report"
            result = run_script(db, "--run", 1, "--out", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            page = (out / "index.html").read_text(encoding="utf-8")
            self.assertNotIn("The largest sample", section_text(page, "links"))
            self.assertIn("node 8 port 0", section_text(page, "ports"))
            self.assertNotIn("node 999", section_text(page, "ports"))


class FilesTest(unittest.TestCase):
    """What the script does to the files around it: never writes over the database (or a
    file SQLite keeps beside it), reads it without leaving anything, refuses an output
    directory it cannot use before reading, and reads a large database in bounded memory."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="run-report-test-")
        self.dir = Path(self.tmp.name)
        self.db = self.dir / "r.db"
        make_database(self.db)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_refused(self, result, *words):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        for word in words:
            self.assertIn(word, result.stderr)
        self.assertEqual(result.stdout, "")

    def test_out_that_is_or_holds_the_database_is_refused_and_the_database_kept(self):
        before = self.db.read_bytes()
        out = self.dir / "out"
        out.mkdir()
        # The database where the report writes its page or its timeline: as the file
        # itself, through a symbolic link and through a hard link.
        inside = out / "timeline.json"
        shutil.copy(self.db, inside)
        link = self.dir / "link.db"
        link.symlink_to(out / "index.html")
        hard = self.dir / "hard.db"
        cases = [(self.db, self.db, f"--out {self.db} is the input database {self.db}"),
                 (inside, out, f"--out {out} would write {inside}, which is the input "
                               f"database {inside}"),
                 (link, out, f"--out {out} would write {out / 'index.html'}, which is the "
                             f"input database {link}"),
                 (hard, out, f"--out {out} would write {out / 'index.html'}, which is the "
                             f"input database {hard}")]
        for db, target, message in cases:
            with self.subTest(db=db.name, out=str(target)):
                if db == link:
                    shutil.copy(self.db, out / "index.html")
                elif db == hard:
                    (out / "index.html").unlink()
                    os.link(self.db, out / "index.html")
                    os.link(self.db, hard)
                db_before = Path(db).read_bytes()
                self.assert_refused(run_script(db, "--run", 1, "--out", target), message)
                self.assertEqual(Path(db).read_bytes(), db_before)
                self.assertEqual(side_files(db), [])
        self.assertEqual(self.db.read_bytes(), before)
        self.assertEqual(inside.read_bytes(), before)
        self.assertTrue(os.path.samefile(hard, out / "index.html"))
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["index.html", "timeline.json"])

    def test_out_that_cannot_be_used_is_refused_before_the_database_is_read(self):
        file = self.dir / "file"
        file.write_text("")
        missing = self.dir / "missing.db"  # a database error would come first if it were read
        cases = [(file, f"--out {file}: exists and is not a directory"),
                 (file / "sub", f"--out {file / 'sub'}: {file} is not a directory")]
        if os.path.isdir("/proc/self"):  # a file system where nothing can be made
            cases.append((Path("/proc/x"), "--out /proc/x: cannot create a directory in /proc"))
        for out, message in cases:
            with self.subTest(out=str(out)):
                result = run_script(missing, "--run", 1, "--out", out)
                self.assert_refused(result, message)
                self.assertNotIn("missing.db", result.stderr)
        self.assertEqual(file.read_text(), "")
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["file", "r.db"])

    def test_wal_database_is_read_without_leaving_files(self):
        rollback = self.dir / "rollback.db"
        make_database(rollback)
        to_wal(self.db)
        before = self.db.read_bytes()
        for db, out in ((self.db, "wal"), (rollback, "rollback")):
            result = run_script(db, "--run", 1, "--out", self.dir / out)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(side_files(db), [])
        self.assertEqual(self.db.read_bytes(), before)
        self.assertEqual(page_text((self.dir / "wal" / "index.html").read_text()),
                         page_text((self.dir / "rollback" / "index.html").read_text()))

    def test_missing_database_is_named_and_not_created(self):
        missing = self.dir / "missing.db"
        result = run_script(missing, "--run", 1, "--out", self.dir / "out")
        self.assert_refused(result, f"{missing}: no such file")
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["r.db"])

    @unittest.skipUnless(os.path.exists("/proc/self/status"), "no /proc/self/status")
    def test_large_database_in_bounded_memory(self):
        """The report of a run with a million link samples, and that of a run with 600,000
        op spans, need no more memory than those of the same runs with a hundredth of the
        rows, plus a little: every table is summed, binned or merged as it is read."""
        links, samples, ports, spans = 64, 10_000, 16, 600_000
        small, big = self.dir / "small.db", self.dir / "big.db"
        make_large_database(small, links, samples // 100, ports, spans // 100)
        make_large_database(big, links, samples, ports, spans)
        # Holding the link samples as tuples of four numbers (72 bytes each, without the
        # numbers), or the op spans as tuples of two, needs more than the headroom allowed.
        headroom = 32 * 2**20
        self.assertGreater(links * 2 * samples * 72, 2 * headroom)
        self.assertGreater(spans * 56, headroom)
        for run, extra in ((1, ["--timeline-max-events", 1000]), (2, [])):
            with self.subTest(run=run):
                args = ["--run", run, "--out", self.dir / f"small{run}", *extra]
                reference, small_peak = results_test_schema.run_measured(
                    sys.executable, SCRIPT, [small, *args])
                self.assertEqual(reference.returncode, 0, reference.stderr)
                self.assertIsNotNone(small_peak)
                out = self.dir / f"big{run}"
                result, peak = results_test_schema.run_measured(
                    sys.executable, SCRIPT, [big, "--run", run, "--out", out, *extra],
                    limit=small_peak + headroom)
                self.assertEqual(result.returncode, 0, result.stderr[-2000:])
                self.assertEqual(result.stderr, "")  # no warning: nothing failed
                self.assertLess(peak - small_peak, headroom)
                page = (out / "index.html").read_text()
                self.assertEqual(parse(page).headings, HEADINGS)
                timeline = section_text(page, "timeline")
                self.assertIn("No timeline", timeline)
                self.assertIn("--timeline-max-events", timeline)
                self.assertFalse((out / "timeline.json").exists())
                if run == 1:
                    self.assertEqual(len(parse(page).images), 3)
                    self.assertIn(f"Showing the 60 busiest of the {links * 2} links",
                                  section_text(page, "links"))
                    self.assertIn("more than --max-events 1000", timeline)
                else:
                    self.assertEqual(len(parse(page).images), 1)  # the Gantt chart
                    # Op spans, iterations (30 ops each) and gates (two rows each).
                    self.assertIn(f"at least {spans + spans // 30 + spans // 30:,} events",
                                  timeline)


def make_large_database(path, links, samples, ports, spans):
    """Run 1: many link and port samples; run 2: many op spans, iterations and gates."""
    interval = 10_000
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA + NEW_TABLES)
    params = json.dumps({"linkSampleIntervalNs": interval, "monitorIntervalNs": interval})
    for run in (1, 2):
        conn.execute("INSERT INTO runs VALUES (?, 'large', 'fair', 1, ?, 'complete',"
                     " '2026-01-01T00:00:00Z', '2026-01-01T00:00:02Z', ?, 1.0, 1, 1, NULL,"
                     " NULL, NULL)", (run, params, samples * interval))
        conn.execute("INSERT INTO jobs VALUES (?, 0, 'gpt2-124m', 4, 1, NULL, 0, 0, ?, 1, 1.0)",
                     (run, samples * interval))
    conn.execute("INSERT INTO iterations VALUES (1, 0, 0, 0, 10, 20, ?)", (samples * interval,))
    results_test_schema.add_link_samples(conn, 1, links, samples, interval)
    conn.executemany("INSERT INTO port_samples VALUES (1, ?, 0, ?, ?, 3, ?, ?, 0)",
                     ((port, port, k * interval, (port * 31 + k * 17) % 300_000,
                       interval // 2 if k % 5 == 0 else 0)
                      for port in range(ports) for k in range(1, samples + 1)))
    # Run 2: iterations of 30 ops, alternately compute and communication, and a gate
    # closed in the first op of each.
    ops, step = 30, samples * interval // spans
    conn.executemany("INSERT INTO op_spans VALUES (2, 0, ?, ?, ?, '', 'dp', NULL, 0, '0-3', 0,"
                     " ?, ?, ?)",
                     ((i // ops, i % ops, "compute" if i % 2 else "collective", i * step,
                       i * step, (i + 1) * step - 1) for i in range(spans)))
    conn.executemany("INSERT INTO iterations VALUES (2, 0, ?, ?, ?, ?, ?)",
                     ((k, k * ops * step, k * ops * step + step, k * ops * step + step,
                       (k + 1) * ops * step) for k in range(spans // ops)))
    conn.executemany("INSERT INTO gates VALUES (2, ?, 0, ?)",
                     ((k * ops * step + d, d) for k in range(spans // ops) for d in (0, 1)))
    conn.commit()
    conn.close()


@unittest.skipUnless(CHROMIUM, NO_CHROMIUM)
class ChromiumTest(unittest.TestCase):
    """The page of the complete run as headless Chromium renders it, 1,280 pixels wide."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="run-report-chromium-")
        cls.dir = Path(cls.tmp.name)
        make_database(cls.dir / "r.db")
        result = run_script(cls.dir / "r.db", "--run", 1, "--out", cls.dir / "out")
        assert result.returncode == 0, result.stderr
        cls.page = cls.dir / "out" / "index.html"
        cls.screenshot = cls.dir / "page.png"
        # One browser start for the screenshot, the DOM after load and the console log.
        cls.dom, cls.log = open_page(cls.page, cls.dir, "--hide-scrollbars",
                                     f"--screenshot={cls.screenshot}")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_screenshot_is_not_blank(self):
        differs, shape = non_background(self.screenshot)
        self.assertEqual(shape, (2400, 1280))
        self.assertGreater(differs, 0.05, f"only {differs:.1%} of the pixels are not background")

    def test_every_image_loaded(self):
        self.assertEqual(images_loaded(self.dom), (4, 4), self.dom[:300])

    def test_no_console_errors(self):
        self.assertEqual(console_errors(self.log), [])

    def test_no_horizontal_scroll_bar(self):
        self.assertEqual(sideways(self.dom), (0, 0))

    def test_the_checks_catch_errors(self):
        """An error, a broken image and a box too wide injected on purpose into a copy of
        the page are seen."""
        page = self.page.read_text()
        broken = re.sub(r'src="data:image/png;base64,[^"]*"', 'src="data:image/png;base64,AAAA"',
                        page, count=1)
        injected = self.page.with_name("injected.html")
        injected.write_text(broken.replace(
            "</body>", '<script>console.error("injected");</script>\n'
                       "<script>undefinedFunction();</script>\n"
                       '<div style="width: 1400px">too wide</div>\n</body>'))
        dom, log = open_page(injected, self.dir)
        errors = console_errors(log)
        self.assertTrue(any("Uncaught" in e and "undefinedFunction" in e for e in errors), log)
        self.assertTrue(any("injected" in e for e in errors), log)
        self.assertEqual(images_loaded(dom), (3, 4))
        self.assertGreater(sideways(dom)[0], 0)


if __name__ == "__main__":
    unittest.main()
