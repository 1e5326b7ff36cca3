#!/usr/bin/env bash
# Reproduce the papers' figures at packet level: installs what is missing,
# builds in release mode, runs every figure's simulations into one SQLite
# file and draws the PNGs and a table of our numbers beside the papers'.
#
#   utils/make-figures.sh [OUT_DIR [PAPER_FIGURES_FLAGS...]]   (default: figures)
#
# The packet-level figures run at full scale by default, which takes hours
# on a small machine (doc/figures.md gives each figure's cost); flags after
# OUT_DIR go to paper-figures, e.g. `utils/make-figures.sh figures --scale=0.05`.
#
# Figure 5 (large scale) runs at the flow level, at full scale whatever the flags:
# the Lingjun cluster under every policy but the central MILPs (about 30 minutes
# here, two at a time) and the scaling scenarios under the planners; so does
# figure 6's second part, the LLM mix on the Lingjun cluster under every policy.
#
# Writes OUT_DIR/figures.db, OUT_DIR/figure{1,2,3,4,5,6}.png, OUT_DIR/figures.md,
# and OUT_DIR/reports/figureN/index.html, a report page per figure's representative run.
# See doc/figures.md for what each figure runs and what it costs.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-figures}"
shift || true
build="${BUILD_DIR:-build-release}"

utils/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target paper-figures scheduling-time multi-tenant-fat-tree

mkdir -p "$out"
db="$out/figures.db"
# A fresh file each time: the plots refuse a database with unfinished runs.
rm -f "$db" "$db-wal" "$db-shm"
"$build/paper-figures" --figure=all --db="$db" "$@"
echo "=== figure 2"
"$build/scheduling-time" --maxRacks=64 --timeLimit=20 --seeds=5 --db="$db"
# Symphony's and optimal's central MILPs take seconds a plan on this placement
# (hours a run; doc/figures.md, figure 5): they are left out here.
echo "=== figure 5 (flow level): the Lingjun cluster under every policy but the central MILPs"
"$build/multi-tenant-fat-tree" --scenario=examples/scenarios/lingjun-200-jobs-mixed.json \
    --compare=cassini,crux,mltcp,harmonics --db="$db" >/dev/null
echo "=== figure 5 (flow level): scheduling time against cluster size"
for scenario in examples/scenarios/scaling/*.json; do
    for planner in harmonics symphony; do
        "$build/multi-tenant-fat-tree" --scenario="$scenario" --scheduler=$planner \
            --db="$db" >/dev/null
    done
    "$build/multi-tenant-fat-tree" --scenario="$scenario" --scheduler=symphony \
        --ns3::SymphonyScheduler::SolveByParts=true --db="$db" >/dev/null
done
echo "=== figure 6 (flow level): the LLM mix on the Lingjun cluster under every policy"
"$build/multi-tenant-fat-tree" --scenario=examples/scenarios/llm/lingjun-llm-jobs.json \
    --compare=all --db="$db" >/dev/null
utils/plot-figures.py "$db" --out "$out"
# One report page per figure: its representative run, Symphony's (else
# Harmonics'), with the run's timeline beside it.
for example in figure1 figure3 figure4 figure6; do
    run=$(/usr/bin/python3 - "$db" "$example" <<'PY'
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT run_id FROM runs WHERE example = ? AND status = 'complete' "
    "AND scheduler IN ('symphony', 'harmonics') "
    "ORDER BY scheduler = 'symphony' DESC, run_id LIMIT 1", (sys.argv[2],)).fetchone()
print(row[0] if row else "")
PY
)
    if [ -n "$run" ]; then
        utils/run-report.py "$db" --run "$run" --out "$out/reports/$example"
    fi
done
echo "figures and table in $out/, a report page per figure in $out/reports/"
