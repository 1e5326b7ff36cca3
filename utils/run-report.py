#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A results database's runs as self-contained HTML pages.

    utils/run-report.py RESULTS.db --run N --out DIR [--timeline-max-events N]
    utils/run-report.py RESULTS.db --out DIR [--timeline-max-events N]

With --run, writes DIR/index.html, one file that needs nothing else (plots embedded as
PNG data URIs, inline CSS, no network), and DIR/timeline.json, the run's trace made by
utils/timeline.py, linked from the page. The page holds, in order:

  1. the run's parameters and outcome (a run that is not complete is flagged);
  2. per job: model, workers, placement, times, training time, mean iteration time,
     and where the iterations' time went (iteration_times) as stacked bars and a table;
  3. a Gantt chart of the jobs' iterations (compute, communication) and closed gates,
     a row per rank group for a job whose ranks compute in groups (an LLM job's stages);
  4. a heat map of link utilization over time (link_samples);
  5. queue and PFC pause time series of the busiest ports (port_samples);
  6. the link to the timeline (of at most --timeline-max-events events, 250,000 by
     default; for a bigger run, the timeline.py commands that make it).

Without --run, writes a comparison page for every scenario of the database (runs of
one `example`) whose runs differ in policy, seed or level, DIR/SCENARIO.html
(report_compare.py), the page of each of their runs, DIR/run-N/, linked from it, and
DIR/index.html, the list of the scenarios.

Tables an older build did not write are named on the page and the rest is still drawn.
Every table is summed, binned or merged as it is read, so the memory needed does not
grow with the database (the timeline's events, held until written, are what
--timeline-max-events bounds). The database is only read, and nothing is left beside
it (cli_paths.py).

A missing file, a file that is not a results database or an unknown run is one line
on stderr and exit status 2, with nothing written; so is, before the database is read,
an --out that is the database (or would write over it: DIR/index.html or
DIR/timeline.json as another name of it) or that cannot be used (a file, or a place
where no directory can be made).
"""

import argparse
import importlib.util
import sqlite3
import sys
import time
from pathlib import Path

# The scripts' shared modules (and timeline.py) sit beside this one.
SCRIPT_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPT_DIR))
from cli_paths import (PathError, check_distinct, check_output_dir,  # noqa: E402
                       input_database, output_dir)
from plot_common import Refusal, ResultsDb  # noqa: E402

if importlib.util.find_spec("matplotlib") is None:  # the report modules draw with it
    print(f"run-report.py needs matplotlib for {sys.executable} "
          "(Debian: apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(2)
import report_compare  # noqa: E402
from report_gantt import section_gantt  # noqa: E402
from report_html import esc, page, para, write_atomically  # noqa: E402
from report_run import (Run, section_jobs, section_links, section_ports,  # noqa: E402
                        section_run, status_alert)
from report_samples import has_table  # noqa: E402

# The timeline the report writes beside the page holds at most this many events (each
# held in memory until it is written; --timeline-max-events changes it).
TIMELINE_MAX_EVENTS = 250_000
# What the report writes in DIR.
OUTPUT_NAMES = ("index.html", ".index.html.partial", "timeline.json")


def timeline_command(db_path, run, target):
    """timeline.py's command for a smaller trace: the busiest jobs, a tenth of the run."""
    jobs = ",".join(str(j) for j in run.busiest_jobs(4))
    end_us = max(run.end_ns // 10_000, 1)
    return (f"utils/timeline.py {db_path} --run {run.run_id} --out {target}"
            + (f" --jobs {jobs}" if jobs else "") + f" --from 0 --to {end_us}us")


def timeline_rows(db, run):
    """A lower bound of the timeline's events, counted in SQL: its op spans, collectives,
    iterations and scheduler decisions give at least one event each, and a closed gate
    one per two rows (closed, opened). timeline.py holds a job's rows of these tables
    whole, so a run with more than the report's events is not handed to it at all."""
    total = 0
    for table, rows_per_event in (("op_spans", 1), ("collectives", 1), ("iterations", 1),
                                  ("scheduler_decisions", 1), ("gates", 2)):
        if has_table(db, table, ["run_id"]):
            (count,) = db.query(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?",
                                (run.run_id,))[0]
            total += count // rows_per_event
    return total


def too_big(db_path, run, target, max_events, default_max):
    """What to do when the run's timeline has more events than the report writes."""
    whole = f"utils/timeline.py {db_path} --run {run.run_id} --out {target}"
    limit = f" (its --max-events is {default_max:,} by default)" if default_max else ""
    return [para(f"The report writes a timeline of at most {max_events:,} events, which "
                 "bounds the memory it needs (about 0.6 KB per event); --timeline-max-events "
                 "changes that. Make the whole run's with utils/timeline.py"
                 f"{limit}:"),
            f"<pre><code>{esc(whole)}</code></pre>",
            para("or one of a selection of jobs and a time window (and, if the fabric's "
                 "counters are what is too big, --no-counters), e.g.:"),
            f"<pre><code>{esc(timeline_command(db_path, run, target))}</code></pre>"]


def section_timeline(db, db_path, run, out_dir, max_events=TIMELINE_MAX_EVENTS):
    parts = ['<section id="timeline">', "<h2>6. Timeline</h2>"]
    target = out_dir / "timeline.json"
    if target.exists():
        target.unlink()  # a previous report's: never link a trace of another run
    try:
        import timeline
    except Exception as e:  # not written yet, or broken: the rest of the page still stands
        parts += [para(f"No timeline: utils/timeline.py could not be imported ({e})."),
                  "</section>"]
        return "\n".join(parts)
    default_max = getattr(timeline, "DEFAULT_MAX_EVENTS", None)
    rows = timeline_rows(db, run)
    if rows > max_events:
        parts.append(para(f"No timeline: the run's op spans, collectives, iterations, gates "
                          f"and scheduler decisions alone make at least {rows:,} events, more "
                          f"than the {max_events:,} of the report's timeline."))
        return "\n".join(parts + too_big(db_path, run, target, max_events, default_max)
                         + ["</section>"])
    try:
        info = timeline.write_timeline(db_path, run.run_id, str(target), max_events=max_events,
                                       count_all=False)
    except getattr(timeline, "TimelineError", ()) as e:
        if target.exists():
            target.unlink()
        parts.append(para(f"No timeline: utils/timeline.py refused the whole run ({e})."))
        # Too many events (its message names --max-events): a selection makes it smaller.
        if "max-events" in str(e):
            parts += too_big(db_path, run, target, max_events, default_max)
        return "\n".join(parts + ["</section>"])
    except Exception as e:  # a bug there must not cost the report; say it on stderr too
        print(f"run-report.py: warning: utils/timeline.py failed: {e!r}", file=sys.stderr)
        if target.exists():
            target.unlink()
        parts += [para(f"No timeline: utils/timeline.py failed ({e!r})."), "</section>"]
        return "\n".join(parts)
    info = info if isinstance(info, dict) else {}
    detail = [f"{info['events']:,} events"] if info.get("events") is not None else []
    if info.get("bytes") is not None:
        size = info["bytes"]
        detail.append(f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} KB")
    if info.get("missing"):
        detail.append("without " + ", ".join(map(str, info["missing"])))
    detail = f" ({'; '.join(detail)})" if detail else ""
    parts += [f'<p><a href="timeline.json" download>timeline.json</a>'
              f"{esc(detail)}: the run's jobs, iterations, ops, gates, scheduler decisions "
              "and samples as a Chrome trace-event file.</p>",
              para("To view it, open https://ui.perfetto.dev and choose \"Open trace file\" "
                   "(the file stays in the browser), or load it in chrome://tracing."),
              "</section>"]
    return "\n".join(parts)


# ----------------------------------------------------------------------------- page


def build_page(db, db_path, run, out_dir, timeline_max_events=TIMELINE_MAX_EVENTS,
               back=None):
    """The run's page; back: (href, label) of the comparison page it is linked from."""
    title = run.title() + ("" if run.complete else f" [{run.state}]")
    sections = [section_run(db, run), section_jobs(db, run), section_gantt(db, run),
                section_links(db, run), section_ports(db, run),
                section_timeline(db, db_path, run, out_dir, timeline_max_events)]
    nav = [(f"#{anchor}", label) for anchor, label in (
        ("run", "Run"), ("jobs", "Jobs"), ("gantt", "Gantt"), ("links", "Links"),
        ("ports", "Ports"), ("timeline", "Timeline"))]
    return page(title, sections, db_path, nav + ([back] if back else []), status_alert(run))


def positive(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def size_text(text):
    return f"{len(text) / 1e6:.1f} MB" if len(text) >= 1e6 else f"{len(text) / 1e3:.0f} KB"


def write_run(db, db_path, run_id, out_dir, max_events, back=None):
    """Write the run's page in out_dir (made if needed); returns the page's text."""
    run = Run(db, run_id)
    out_dir.mkdir(parents=True, exist_ok=True)
    text = build_page(db, db_path, run, out_dir, max_events, back)
    db.check_unchanged()
    write_atomically(out_dir / "index.html", text)
    return text


def scenario_pages(db, out_dir):
    """[(example, runs, page name)] of the scenarios compared, names made distinct."""
    found, used = [], set()
    for example, runs in report_compare.scenarios(db):
        name = report_compare.slug(example)
        while f"{name}.html" in used or name == "index":
            name += "-"
        used.add(f"{name}.html")
        found.append((example, runs, f"{name}.html"))
    return found


def write_comparisons(db, db_path, out_dir, max_events):
    """The comparison pages, their runs' pages and the index; returns what it wrote."""
    found = scenario_pages(db, out_dir)
    if not found:
        (total,) = db.query("SELECT COUNT(*) FROM runs")[0]
        raise Refusal(f"{db_path}: no scenario has runs that differ in policy, seed or level "
                      f"({total} run(s) in the file); give --run N for a run's page")
    pages = []
    for example, _, name in found:
        scenario = report_compare.Scenario(db, example)
        run_ids = [run for v in scenario.variants for run in v.runs]
        # Checked before anything is written: no page of the comparison is the database.
        check_distinct([(str(out_dir / name), f"--out {out_dir} would write {out_dir / name},"
                                              " which")]
                       + [p for run in run_ids for p in output_dir(
                           f"--out {out_dir}: run page", str(out_dir / f"run-{run}"),
                           OUTPUT_NAMES)],
                       input_database(db_path))
        for run in run_ids:
            write_run(db, db_path, run, out_dir / f"run-{run}", max_events,
                      (f"../{name}", "Scenario comparison"))
        title = report_compare.scenario_title(scenario)
        text = page(title, report_compare.comparison_body(
            scenario, lambda run: f"run-{run}/index.html"), db_path,
            report_compare.NAV + (("index.html", "All scenarios"),))
        db.check_unchanged()
        write_atomically(out_dir / name, text)
        pages.append((out_dir / name, len(run_ids), text))
    index = page(f"Scenarios of {Path(db_path).name}", [
        "<h2>Scenarios compared</h2>",
        report_compare.index_rows([(e, n) for e, n, _ in found],
                                  lambda e: next(n for x, _, n in found if x == e)),
        para("Each scenario's page compares its runs (policies, seeds, levels) and links "
             "to each run's page.", "note")], db_path)
    write_atomically(out_dir / "index.html", index)
    return pages


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Write a self-contained HTML report (DIR/index.html) and a trace "
                    "(DIR/timeline.json) of one run of a results database; without --run, "
                    "a page comparing the runs of each scenario, and each run's page.")
    parser.add_argument("db", metavar="DB", help="results database (SQLite)")
    parser.add_argument("--run", type=int, metavar="N",
                        help="run id (runs.run_id); without it, the scenarios' comparisons")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="directory to write (made if needed)")
    parser.add_argument("--timeline-max-events", type=positive, default=TIMELINE_MAX_EVENTS,
                        metavar="N", help="write no timeline of more events, which bounds "
                        f"the memory needed (default {TIMELINE_MAX_EVENTS:,})")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    started = time.monotonic()
    out_dir = Path(args.out)
    what = f"run {args.run}" if args.run is not None else "the scenarios"
    try:
        # The output first, before the database is read: never one of the database's
        # files, and a directory that can be written (or made).
        check_distinct(output_dir("--out", args.out, OUTPUT_NAMES), input_database(args.db))
        check_output_dir("--out", args.out)
        db = ResultsDb(args.db)
        run = Run(db, args.run) if args.run is not None else None
    except PathError as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    except Refusal as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"run-report.py: {args.db}: cannot read {what}: {e}", file=sys.stderr)
        return 2
    try:
        if run is not None:
            text = write_run(db, args.db, run.run_id, out_dir, args.timeline_max_events)
            print(f"wrote {out_dir / 'index.html'} ({size_text(text)}) in "
                  f"{time.monotonic() - started:.2f} s")
            return 0
        pages = write_comparisons(db, args.db, out_dir, args.timeline_max_events)
    except (Refusal, PathError) as e:
        print(f"run-report.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"run-report.py: {args.db}: cannot read {what}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"run-report.py: --out {out_dir}: cannot write {e.filename or out_dir} "
              f"({e.strerror})", file=sys.stderr)
        return 2
    for path, runs, text in pages:
        print(f"wrote {path} ({size_text(text)}) and {runs} run page(s)")
    print(f"wrote {out_dir / 'index.html'} in {time.monotonic() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
