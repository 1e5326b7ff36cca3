#!/usr/bin/env bash
# The failure studies of doc/faults.md in one command: installs what is
# missing, builds in release mode, runs `paper-figures --figure=faults` (a
# link flap shorter and one longer than the detection delay, and a switch
# failure, on figure 1's fat-tree, under every policy and, for fair
# sharing, every detection delay and retransmission setting) into
# OUT_DIR/faults.db, and draws OUT_DIR/faults.md and OUT_DIR/faults.png.
#
#   utils/failure-study.sh [OUT_DIR [PAPER_FIGURES_FLAGS...]]   (default: faults)
#
# Flags after OUT_DIR go to paper-figures; the default is --scale=0.1 (figure
# 1's jobs at a tenth of their size, 6 iterations: about 3 minutes here).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-faults}"
shift || true
build="${BUILD_DIR:-build-release}"
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--scale=0.1)

utils/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target paper-figures

mkdir -p "$out"
rm -f "$out/faults.db" "$out/faults.db-wal" "$out/faults.db-shm"
"$build/paper-figures" --figure=faults --db="$out/faults.db" --progress=0 "${flags[@]}"
/usr/bin/python3 utils/plot-faults.py "$out/faults.db" --out "$out"
