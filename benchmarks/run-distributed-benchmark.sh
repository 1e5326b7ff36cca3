#!/usr/bin/env bash
# Distributed-simulation benchmark: wall time of k=8 fat-tree scenarios on
# 1, 2 and 4 MPI ranks of ns-3's distributed simulator (granted time
# window), with the speed-up over the single process. See benchmarks/README.md.
#
# Usage: benchmarks/run-distributed-benchmark.sh [NS3_DIR] [--ranks "1 2 4"]
#   NS3_DIR  the ns-3.37 tree built by `utils/build-in-ns3-tree.sh --mpi`
#            (default: /tmp/ns3-mpi)
# The single-process run uses the same event order as the distributed ones
# (RoceCanonicalArrivals, NotificationDelay 1 us), so all do the same work.
set -euo pipefail

ns3_dir=""
ranks_list="1 2 4"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks_list="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) ns3_dir="$1"; shift ;;
    esac
done
# shellcheck source=utils/mpi-runs.sh
source "$(dirname "${BASH_SOURCE[0]}")/../utils/mpi-runs.sh"
examples_dir="$(mpi_examples_dir "${ns3_dir}")"
cases=("fat-tree-permutation --k=8 --bytes=2000000"
    "multi-tenant-fat-tree --k=8 --jobs=4 --workers=16 --iterations=3 --scheduler=harmonics")

echo "machine: $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-90s %6s %9s %9s %10s\n' "scenario" "ranks" "wall_s" "speed-up" "Mhops/s"
for c in "${cases[@]}"; do
    read -r -a words <<<"${c}"
    exe="$(mpi_example "${examples_dir}" "${words[0]}")" || exit 2
    base=""
    for ranks in ${ranks_list}; do
        start=$(date +%s.%N)
        perf="$(mpi_launch "${ranks}" "${exe}" "${words[@]:1}" "${mpi_common_flags[@]}" |
            grep '^PERF ')"
        wall=$(echo "$(date +%s.%N) - ${start}" | bc)
        hops=$(sed -E 's/.*packet_hops=([0-9]+).*/\1/' <<<"${perf}")
        [[ -z "${base}" ]] && base="${wall}"
        printf '%-90s %6d %9.2f %9.2f %10.3f\n' "${c}" "${ranks}" "${wall}" \
            "$(echo "${base} / ${wall}" | bc -l)" "$(echo "${hops} / ${wall} / 1000000" | bc -l)"
    done
done
