#!/usr/bin/env python3
"""Compare flow-level runs with packet-level runs of the same scenarios.

Reads a results database holding both (runs.params_json.backend 'packet' and
'flow', as utils/flow-validation.sh writes it) and prints, as Markdown, each
job's mean iteration and communication time at both levels side by side,
then per scenario the ranking of schedulers by mean training time at each
level. Runs are matched by run name, scheduler, the run tag of isolated runs
and job id. Isolated runs each job alone twice (tags "job N alone", under ECMP,
and "job N alone on best routes"): both are listed, and its training time in the
ranking is, per job and level, the lower of the two.

    utils/flow-validation.py validation.db [--out doc-table.md]

The database is only read (read-only, nothing left beside it); an --out that is the
database, or that cannot be written, is refused before it is read (exit status 2).
"""
import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

# The scripts' shared modules sit beside this one.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_paths import (PathError, check_distinct, check_output_file,  # noqa: E402
                       connect_readonly, input_database, output_file)


def load(con):
    runs = {}
    for run_id, example, scheduler, params, status in con.execute(
        "SELECT run_id, example, scheduler, params_json, status FROM runs"
    ):
        if status != "complete":
            sys.exit(f"run {run_id} ({example}, {scheduler}) is {status}: rerun it")
        p = json.loads(params)
        runs[run_id] = (example, scheduler, p.get("backend", "packet"), p.get("run", ""))
    jobs = defaultdict(dict)  # (example, scheduler, tag, job) -> backend -> numbers
    for run_id, job_id, arrival, end in con.execute(
        "SELECT run_id, job_id, arrival_ns, end_ns FROM jobs"
    ):
        example, scheduler, backend, tag = runs[run_id]
        its = con.execute(
            "SELECT AVG(comm_end_ns - compute_start_ns), AVG(comm_end_ns - comm_ready_ns)"
            " FROM iterations WHERE run_id=? AND job_id=?",
            (run_id, job_id),
        ).fetchone()
        jobs[(example, scheduler, tag, job_id)][backend] = {
            "iter": its[0] / 1e3,
            "comm": its[1] / 1e3,
            "train": (end - arrival) / 1e3,
        }
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--out")
    a = ap.parse_args()
    try:
        if a.out:
            check_distinct(output_file("--out", a.out), input_database(a.db))
            check_output_file("--out", a.out)
        con = connect_readonly(a.db)
        jobs = load(con)
        con.check_unchanged()
    except PathError as e:
        print(f"flow-validation.py: {e}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print(f"flow-validation.py: {a.db}: cannot read it ({e})", file=sys.stderr)
        return 2
    lines = [
        "| scenario | scheduler | job | iteration packet (us) | flow (us) | diff | "
        "communication packet (us) | flow (us) | diff |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    worst = defaultdict(float)
    train = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    # Isolated: per job, the faster of its runs alone (under ECMP, on its best routes).
    alone = defaultdict(lambda: defaultdict(dict))  # example -> backend -> job -> ns
    for key in sorted(jobs, key=lambda k: (k[0], k[1], k[2], k[3])):
        example, scheduler, tag, job = key
        both = jobs[key]
        if "packet" not in both or "flow" not in both:
            continue
        p, f = both["packet"], both["flow"]
        di = f["iter"] / p["iter"] - 1
        dc = f["comm"] / p["comm"] - 1
        kind = "uncontended" if scheduler == "isolated" or example.endswith("idle-ring") else "contended"
        worst[kind] = max(worst[kind], abs(di))
        for backend in ("packet", "flow"):
            if scheduler == "isolated":
                ns = both[backend]["train"]
                fastest = alone[example][backend]
                fastest[job] = min(fastest.get(job, ns), ns)
            else:
                train[example][backend][scheduler].append(both[backend]["train"])
        lines.append(
            f"| {example} | {scheduler} | {job} | {p['iter']:.1f} | {f['iter']:.1f} | {100 * di:+.1f}% "
            f"| {p['comm']:.1f} | {f['comm']:.1f} | {100 * dc:+.1f}% |"
        )
    lines.append("")
    lines.append("| scenario | schedulers by mean training time, packet level | flow level | same |")
    lines.append("|---|---|---|---|")
    for example, backends in alone.items():
        for backend, fastest in backends.items():
            train[example][backend]["isolated"] = list(fastest.values())
    for example in sorted(train):
        order = {}
        for backend in ("packet", "flow"):
            means = {s: sum(v) / len(v) for s, v in train[example][backend].items()}
            order[backend] = sorted(means, key=lambda s: (means[s], s))
        if len(order["packet"]) < 2:
            continue
        same = "yes" if order["packet"] == order["flow"] else "no"
        lines.append(
            f"| {example} | {' < '.join(order['packet'])} | {' < '.join(order['flow'])} | {same} |"
        )
    lines.append("")
    for kind in ("uncontended", "contended"):
        if kind in worst:
            lines.append(f"Largest iteration-time difference, {kind}: {100 * worst[kind]:.1f}%")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
