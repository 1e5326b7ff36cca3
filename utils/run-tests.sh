#!/usr/bin/env bash
# Install what is missing, build with assertions on (optimized, with debug
# info), and run the whole GoogleTest suite under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

utils/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
