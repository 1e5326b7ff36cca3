#!/usr/bin/env bash
# Run the flow backend's validation scenarios at both levels into one
# database and print the comparison table (doc/flow-backend.md): the
# scenarios of examples/scenarios/flow-validation/ at full scale (the scale
# the flow level is for), figure 1 on both its fabrics at 10% scale (its
# collectives then contend for milliseconds, past DCQCN's transients; full
# scale takes half an hour at the packet level) and figure 4 at full scale.
#
#   utils/flow-validation.sh [OUT_DIR]      (default: flow-validation)
#
# Needs the release build of multi-tenant-fat-tree and paper-figures
# (BUILD_DIR, default build-release).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-flow-validation}"
build="${BUILD_DIR:-build-release}"
mkdir -p "$out"
db="$out/validation.db"
rm -f "$db" "$db-wal" "$db-shm"
policies="${POLICIES:-cassini,crux,mltcp,harmonics}"
for backend in packet flow; do
  for scenario in examples/scenarios/flow-validation/*.json; do
    echo "=== $(basename "$scenario" .json), $backend level"
    "$build/multi-tenant-fat-tree" --scenario="$scenario" --backend="$backend" --db="$db" \
      --compare="$policies"
  done
  echo "=== paper figure 1 (both fabrics, 10% scale), $backend level"
  "$build/paper-figures" --figure=1 --fabric=both --scale=0.1 --policies="$policies" \
    --backend="$backend" --db="$db" --progress=0
  echo "=== paper figure 4, $backend level"
  "$build/paper-figures" --figure=4 --backend="$backend" --db="$db" --progress=0
done
utils/flow-validation.py "$db" --out "$out/table.md"
