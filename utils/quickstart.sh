#!/usr/bin/env bash
# From a fresh Debian machine: install what is missing, build in release
# mode, and run the main scenario on its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."

utils/install-deps.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
cmake --build build-release -j"$(nproc)"
build-release/multi-tenant-fat-tree "$@"
