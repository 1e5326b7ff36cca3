#!/usr/bin/env bash
# Install what is missing, build with assertions on (optimized, with debug
# info), and run the whole GoogleTest suite under ctest.
#
#   utils/run-tests.sh             in build/
#   utils/run-tests.sh --sanitize  in build-sanitize/, everything compiled
#                                  with gcc's -fsanitize=address,undefined;
#                                  any report fails the test that caused it
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
options=()
case "${1:-}" in
"") ;;
--sanitize)
    build=build-sanitize
    options=(-DCS_SANITIZE=ON)
    # A report aborts the process, so the test fails. Leak checking is off:
    # ns-3 keeps its singletons (type registry, global values) to the end.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    ;;
*)
    echo "usage: $0 [--sanitize]" >&2
    exit 2
    ;;
esac

utils/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${options[@]}"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
