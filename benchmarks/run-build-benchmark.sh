#!/usr/bin/env bash
# Build benchmark: how long setting up a k-ary fat-tree takes and how much
# memory it holds, one process per size (fabric-build.cc). Prints per size
# and level the topology and build times, the routes' own bytes and the
# process's peak RSS. See benchmarks/README.md ("Build benchmark").
#
# Usage: benchmarks/run-build-benchmark.sh [--build-dir DIR] [--no-build]
#            [--ks "16 32 64"] [--levels "packet"] [--keying prefix|host]
#   --build-dir  a Release build directory (default build-release; built here)
#   --ks         fat-tree radixes (default 16 32 64)
#   --levels     any of topology routes packet flow (default packet)
#   --keying     routes per prefix (default) or per host
# Run it on an otherwise idle machine: it prints the load average before and after.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="build-release"
ks="16 32 64"
levels="packet"
keying=prefix
do_build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) build="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --ks) ks="$2"; shift 2 ;;
        --levels) levels="$2"; shift 2 ;;
        --keying) keying="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "run-build-benchmark.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [[ "${do_build}" -eq 1 ]]; then
    cmake -S . -B "${build}" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "${build}" -j"$(nproc)" --target fabric-build >/dev/null
fi
[[ -x "${build}/fabric-build" ]] || { echo "no ${build}/fabric-build" >&2; exit 1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| k | level | keying | hosts | topology (s) | build (s) | total (s) | routes (MB) | peak RSS (MB) |"
echo "|---|---|---|---|---|---|---|---|---|"
for k in ${ks}; do
    for level in ${levels}; do
        line="$("${build}/fabric-build" --k="${k}" --level="${level}" --keying="${keying}" |
            grep '^BUILD ')"
        declare -A f=()
        # shellcheck disable=SC2086 # key=value words
        for kv in ${line#BUILD }; do
            f["${kv%%=*}"]="${kv#*=}"
        done
        routes="${f[routes_mb]}"
        [[ "${routes}" == "-1.0" ]] && routes="-"
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n' "${k}" "${level}" \
            "${keying}" "${f[hosts]}" "${f[topology_s]}" "${f[build_s]}" "${f[total_s]}" \
            "${routes}" "$(awk -v kb="${f[peak_rss_kb]}" 'BEGIN { print kb / 1024 }')"
        unset f
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
