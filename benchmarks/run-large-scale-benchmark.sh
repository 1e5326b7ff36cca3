#!/usr/bin/env bash
# Large-scale benchmark at the flow level: a scenario (default the Lingjun
# cluster with 200 contending jobs, examples/scenarios/lingjun-200-jobs-mixed.json)
# run once under each scheduler, one process each; per scheduler the wall
# time, events, simulated time, peak memory and mean training time, and the
# total wall time. See doc/flow-backend.md ("Speed at scale").
#
# Usage: benchmarks/run-large-scale-benchmark.sh [--build DIR] [--scenario FILE]
#            [--schedulers "fair isolated ..."] [--db FILE]
#   --build       a Release build directory (default build-release; built here)
#   --scenario    the scenario file (default the mixed Lingjun cluster)
#   --schedulers  default: fair isolated cassini crux mltcp harmonics (symphony and
#                 optimal take hours on the default scenario)
#   --db          append the runs to this results database too (e.g. for
#                 utils/plot-figures.py's figure 5); default: a temporary one
# Run it on an otherwise idle machine: it prints the load average before and after.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build-release
scenario=examples/scenarios/lingjun-200-jobs-mixed.json
schedulers="fair isolated cassini crux mltcp harmonics"
db=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build) build="$2"; shift 2 ;;
        --scenario) scenario="$2"; shift 2 ;;
        --schedulers) schedulers="$2"; shift 2 ;;
        --db) db="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
[[ -f "${scenario}" ]] || { echo "no scenario file ${scenario}" >&2; exit 2; }
cmake -S . -B "${build}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "${build}" -j"$(nproc)" --target multi-tenant-fat-tree >/dev/null

out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
db="${db:-${out}/runs.db}"
echo "scenario ${scenario}; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in ${schedulers}; do
    # The runs each process adds: those after the largest run id before it.
    /usr/bin/python3 -c 'import sqlite3, sys
try:
    conn = sqlite3.connect(sys.argv[1])
    print(conn.execute("SELECT COALESCE(MAX(run_id), 0) FROM runs").fetchone()[0])
except sqlite3.OperationalError:  # a new file: no runs yet
    print(0)' "${db}" >"${out}/${s}.first"
    /usr/bin/time -f "%e %M" -o "${out}/${s}.time" \
        "${build}/multi-tenant-fat-tree" --scenario="${scenario}" --scheduler="${s}" \
        --db="${db}" >"${out}/${s}.log"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "${out}" "${db}" ${schedulers} <<'EOF'
import re
import sqlite3
import sys
from pathlib import Path

out, db, schedulers = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
conn = sqlite3.connect(db)
print(f"| scheduler | wall (s) | events | simulated (s) | peak memory (MB) | runs "
      f"| mean training time (s) |")
print("|---|---|---|---|---|---|---|")
total = 0.0
firsts = [int((out / f"{s}.first").read_text()) for s in schedulers]
# A scheduler's runs: after the largest run id before it, up to the next one's.
bounds = dict(zip(schedulers, zip(firsts, firsts[1:] + [2**62])))
for s in schedulers:
    wall, rss_kb = (float(x) for x in (out / f"{s}.time").read_text().split()[-2:])
    total += wall
    perf = [dict(kv.split("=") for kv in line.split()[1:])
            for line in (out / f"{s}.log").read_text().splitlines() if line.startswith("PERF ")]
    events = sum(int(p["events"]) for p in perf)
    sim = max(float(p["sim_s"]) for p in perf)
    low, high = bounds[s]
    (runs,), = conn.execute("SELECT COUNT(*) FROM runs WHERE status = 'complete'"
                            " AND run_id > ? AND run_id <= ?", (low, high))
    (train,), = conn.execute("SELECT AVG(end_ns - arrival_ns) / 1e9 FROM jobs"
                             " WHERE run_id > ? AND run_id <= ?", (low, high))
    print(f"| {s} | {wall:.1f} | {events / 1e6:.2f} M | {sim:.2f} | {rss_kb / 1024:.0f} "
          f"| {runs} | {train:.4f} |")
print(f"\ntotal wall time: {total:.0f} s ({total / 60:.1f} min)")
EOF
