#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The failure studies of `paper-figures --figure=faults` (doc/faults.md), from its database.

Runs are named faults/FAULT/detect-DELAY/RETRANSMISSION; FAULT "none" is the fault-free run
each faulted one is compared with (same policy and retransmission setting). Per job:

- slowdown: the iteration the fault hit (the first to end after it), over the same
  iteration without the fault;
- recovery: from the fault to the end of the last iteration more than 5% slower than
  without the fault (0 if none was);
- delay: how much later the job finished;
- retransmitted: payload bytes its flows sent again, beyond what they resent without the
  fault (adaptive timeouts can fire without a fault, behind a starved queue).

Writes OUT/faults.md (a table per study) and OUT/faults.png. An --out that is the
database, would write over it or cannot be used is refused before it is read (exit
status 2).

  utils/plot-faults.py faults.db --out doc/images
"""

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import (PathError, check_distinct, check_output_dir,  # noqa: E402
                       input_database, output_dir)
from plot_common import POLICY_ORDER, MATPLOTLIB_MISSING, Refusal, ResultsDb  # noqa: E402

SLOWER = 1.05  # an iteration this much slower than without the fault is not recovered
DETECT_ORDER = ["0us", "100us", "1ms", "10ms"]
RETX_ORDER = ["adaptive", "local-ack", "selective-repeat"]


def parse_name(example):
    """faults/FAULT/detect-DELAY/RETRANSMISSION -> (fault, delay, retransmission), or None."""
    parts = example.split("/")
    if len(parts) != 4 or parts[0] != "faults" or not parts[2].startswith("detect-"):
        return None
    return parts[1], parts[2][len("detect-"):], parts[3]


def load_runs(db):
    """The latest complete run of each (name, policy): {(fault, delay, retx, policy): run_id}."""
    for table, columns in (("iterations", {"run_id", "job_id", "iter", "comm_end_ns"}),
                           ("jobs", {"run_id", "job_id", "start_ns", "end_ns"}),
                           ("flows", {"run_id", "job_id", "retransmitted_bytes"}),
                           ("faults", {"run_id", "time_ns", "event"})):
        if table not in db.tables or columns - db.columns(table):
            raise Refusal(f"{db.path}: table {table} with {', '.join(sorted(columns))} is needed")
    runs = {}
    for run_id, example, policy in db.query(
            "SELECT run_id, example, scheduler FROM runs WHERE example LIKE 'faults/%'"
            " AND status = 'complete' AND scheduler != 'isolated' ORDER BY run_id"):
        name = parse_name(example)
        if name is None:
            raise Refusal(f"{db.path}: run {run_id} '{example}' is not "
                          "faults/FAULT/detect-DELAY/RETRANSMISSION")
        runs[name + (policy,)] = run_id
    if not runs:
        raise Refusal(f"{db.path}: no complete faults/... run (paper-figures --figure=faults)")
    return runs


def job_timeline(db, run_id):
    """{job: (start_ns, end_ns, [iteration end ns...])} of a run."""
    ends = defaultdict(list)
    for job, end in db.query("SELECT job_id, comm_end_ns FROM iterations WHERE run_id = ?"
                             " AND comm_end_ns IS NOT NULL ORDER BY job_id, iter", (run_id,)):
        ends[job].append(end)
    return {job: (start, end, ends[job]) for job, start, end in db.query(
        "SELECT job_id, start_ns, end_ns FROM jobs WHERE run_id = ?", (run_id,))}


def durations(start, ends):
    return [b - a for a, b in zip([start] + ends[:-1], ends)]


def job_effects(faulted, base, fault_ns, retransmitted, base_retransmitted):
    """Per job of a faulted run against its fault-free one: the four measures above."""
    out = {}
    for job, (start, end, ends) in sorted(faulted.items()):
        if job not in base:
            raise Refusal(f"job {job} is missing from the fault-free run")
        b_start, b_end, b_ends = base[job]
        d, bd = durations(start, ends), durations(b_start, b_ends)
        hit = next((k for k, e in enumerate(ends) if e > fault_ns), None)
        slowdown = d[hit] / bd[hit] if hit is not None and hit < len(bd) and bd[hit] > 0 else 1.0
        slow = [k for k in range(min(len(d), len(bd))) if ends[k] > fault_ns and d[k] > SLOWER * bd[k]]
        recovery = (ends[slow[-1]] - fault_ns) if slow else 0
        delay = (end - b_end) if end is not None and b_end is not None else None
        out[job] = {"slowdown": slowdown, "recovery_ns": recovery, "delay_ns": delay,
                    "retransmitted": max(0, retransmitted.get(job, 0) - base_retransmitted.get(job, 0)),
                    "finished": end is not None}
    return out


def resent(db, run_id):
    """{job: payload bytes its flows sent again} of a run."""
    return dict(db.query("SELECT job_id, SUM(retransmitted_bytes) FROM flows WHERE run_id = ?"
                         " GROUP BY job_id", (run_id,)))


def effects(db, runs):
    """{(fault, delay, retx, policy): {job: measures}} for every faulted run with a baseline."""
    result = {}
    for key, run_id in runs.items():
        fault, delay, retx, policy = key
        if fault == "none":
            continue
        base_id = runs.get(("none", "100us", retx, policy))
        if base_id is None:
            raise Refusal(f"{db.path}: '{'/'.join(key[:3])}' under {policy} has no fault-free run"
                          f" faults/none/detect-100us/{retx}")
        downs = db.query("SELECT MIN(time_ns) FROM faults WHERE run_id = ? AND event = 'down'",
                         (run_id,))[0][0]
        if downs is None:
            raise Refusal(f"{db.path}: run {run_id} names fault {fault} but records none")
        result[key] = job_effects(job_timeline(db, run_id), job_timeline(db, base_id), downs,
                                  resent(db, run_id), resent(db, base_id))
    return result


def summary(jobs):
    """The run's worst slowdown and recovery, its total retransmission, its mean delay."""
    delays = [j["delay_ns"] for j in jobs.values() if j["delay_ns"] is not None]
    return {"slowdown": max(j["slowdown"] for j in jobs.values()),
            "recovery_ns": max(j["recovery_ns"] for j in jobs.values()),
            "retransmitted": sum(j["retransmitted"] for j in jobs.values()),
            "mean_delay_ns": sum(delays) / len(delays) if delays else None,
            "affected": sum(1 for j in jobs.values() if j["slowdown"] > 1.01 or j["retransmitted"] > 0),
            "unfinished": sum(1 for j in jobs.values() if not j["finished"])}


def ms(ns):
    return "n/a" if ns is None else f"{ns / 1e6:.3f}"


def order(values, known):
    return sorted(values, key=lambda v: (known.index(v) if v in known else len(known), v))


def table(results):
    lines = []
    faults = order({k[0] for k in results}, ["link-flap-50us", "link-flap-5ms", "switch-down"])
    policies = order({k[3] for k in results if k[1] == "100us" and k[2] == "adaptive"},
                     POLICY_ORDER)
    lines += ["## Every policy (adaptive retransmission, go-back-N, 100 us detection)", "",
              "| fault | policy | jobs affected | worst slowdown | worst recovery (ms) "
              "| mean delay (ms) | extra retransmitted (MB) |", "|---|---|---|---|---|---|---|"]
    for fault in faults:
        for policy in policies:
            r = results.get((fault, "100us", "adaptive", policy))
            if r is None:
                continue
            s = summary(r)
            lines.append(f"| {fault} | {policy} | {s['affected']} | {s['slowdown']:.2f} "
                         f"| {ms(s['recovery_ns'])} | {ms(s['mean_delay_ns'])} "
                         f"| {s['retransmitted'] / 1e6:.2f} |")
    lines += ["", "## Fair sharing: detection delay and retransmission", "",
              "| fault | retransmission | detection | worst slowdown | worst recovery (ms) "
              "| mean delay (ms) | extra retransmitted (MB) | unfinished jobs |",
              "|---|---|---|---|---|---|---|---|"]
    for fault in faults:
        for retx in order({k[2] for k in results}, RETX_ORDER):
            for delay in order({k[1] for k in results}, DETECT_ORDER):
                r = results.get((fault, delay, retx, "fair"))
                if r is None:
                    continue
                s = summary(r)
                lines.append(f"| {fault} | {retx} | {delay} | {s['slowdown']:.2f} "
                             f"| {ms(s['recovery_ns'])} | {ms(s['mean_delay_ns'])} "
                             f"| {s['retransmitted'] / 1e6:.2f} | {s['unfinished']} |")
    return "\n".join(lines) + "\n"


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(MATPLOTLIB_MISSING)
    faults = order({k[0] for k in results}, ["link-flap-50us", "link-flap-5ms", "switch-down"])
    delays = order({k[1] for k in results}, DETECT_ORDER)
    fig, axes = plt.subplots(2, len(faults), figsize=(4.2 * len(faults), 6.4), squeeze=False)
    for col, fault in enumerate(faults):
        for retx in order({k[2] for k in results}, RETX_ORDER):
            xs, rec, rtx = [], [], []
            for i, delay in enumerate(delays):
                r = results.get((fault, delay, retx, "fair"))
                if r is not None:
                    s = summary(r)
                    xs.append(i)
                    rec.append(s["recovery_ns"] / 1e6)
                    rtx.append(s["retransmitted"] / 1e6)
            if xs:
                axes[0][col].plot(xs, rec, marker="o", label=retx)
                axes[1][col].plot(xs, rtx, marker="o", label=retx)
        axes[0][col].set_title(fault)
        for row, label in ((0, "worst recovery (ms)"), (1, "extra retransmitted (MB)")):
            ax = axes[row][col]
            ax.set_xticks(range(len(delays)), delays)
            ax.set_xlabel("detection delay")
            ax.set_ylabel(label)
            ax.set_yscale("symlog", linthresh=0.1)
            ax.set_ylim(0, max(1.0, ax.get_ylim()[1]))
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Failures during training on figure 1's fat-tree (fair sharing)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("db")
    parser.add_argument("--out", default=".", help="directory for faults.md and faults.png")
    args = parser.parse_args()
    try:
        # The output first: none of the database's files, a directory that can be written.
        check_distinct(output_dir("--out", args.out, ("faults.md", "faults.png")),
                       input_database(args.db))
        check_output_dir("--out", args.out)
        db = ResultsDb(args.db)
        results = effects(db, load_runs(db))
        db.check_unchanged()
    except (Refusal, PathError) as e:
        print(f"plot-faults.py: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "faults.md").write_text(table(results))
    plot(results, out / "faults.png")
    print(f"wrote {out / 'faults.md'} and {out / 'faults.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
