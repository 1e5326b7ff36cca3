#!/usr/bin/env bash
# Distributed-simulation benchmark: wall time of fat-tree scenarios on one
# process and on several MPI ranks of ns-3's two distributed engines
# (granted time window, "gtw"; null messages, "null"), the median of
# interleaved repetitions with its spread, and the speed-up over the single
# process. Then one more run of each multi-rank configuration with
# mpi-sync-profile.c preloaded: per rank, wall, user and system CPU time,
# context switches, synchronisation rounds and time blocked in MPI.
# See benchmarks/README.md and doc/distributed.md.
#
# Usage: benchmarks/run-distributed-benchmark.sh [NS3_DIR] [--ranks "1 2 4"]
#            [--engines "gtw null"] [--reps N] [--case SUBSTRING] [--no-profile]
#   NS3_DIR    the ns-3.37 tree built by `utils/build-in-ns3-tree.sh --mpi`
#              (default: /tmp/ns3-mpi)
#   --ranks    rank counts (1 is the single process; default "1 2 4")
#   --engines  distributed engines for rank counts above 1 (default both)
#   --reps     repetitions of each configuration, interleaved (default 3; 0:
#              only the profiled run)
#   --case     only the scenarios whose command line contains SUBSTRING
# The single-process run uses the same event order as the distributed ones
# (RoceCanonicalArrivals, NotificationDelay 1 us; 2 us on the null-message
# engine), so all do the same work.
# Run it on an otherwise idle machine: it prints the load average before and
# after, and the profile's involuntary context switches show a rank losing
# its core to another process.
set -euo pipefail

ns3_dir=""
ranks_list="1 2 4"
engines="gtw null"
reps=3
only=""
profile=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks_list="$2"; shift 2 ;;
        --engines) engines="$2"; shift 2 ;;
        --reps) reps="$2"; shift 2 ;;
        --case) only="$2"; shift 2 ;;
        --no-profile) profile=0; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) ns3_dir="$1"; shift ;;
    esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=utils/mpi-runs.sh
source "${here}/../utils/mpi-runs.sh"
examples_dir="$(mpi_examples_dir "${ns3_dir}")"
cases=("fat-tree-permutation --k=8 --bytes=2000000"
    "multi-tenant-fat-tree --k=8 --jobs=4 --workers=16 --iterations=3 --scheduler=harmonics"
    "multi-tenant-fat-tree --k=16 --jobs=16 --workers=64 --iterations=2")

out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
profiler=""
if ((profile)); then
    profiler="${out}/libmpi-sync-profile.so"
    mpicc -shared -fPIC -O2 -o "${profiler}" "${here}/mpi-sync-profile.c"
fi

# The null-message engine needs the notification delay above the lookahead
# (1 us links): its runs hand deliveries on after 2 us.
null_message_flags=(--SimulatorImplementationType=ns3::NullMessageSimulatorImpl
    --ns3::RoceFabric::NotificationDelay=2us)

# Configurations: "1" (one process) and "RANKS:ENGINE".
configs=()
for ranks in ${ranks_list}; do
    if ((ranks == 1)); then
        configs+=("1")
    else
        for e in ${engines}; do
            configs+=("${ranks}:${e}")
        done
    fi
done

# run_config CONFIG EXE ARGS...: run once, print "WALL HOPS" (hops from PERF).
run_config() {
    local config="$1" ranks engine_flags=()
    shift
    ranks="${config%%:*}"
    [[ "${config}" == *:null ]] &&
        engine_flags=("${null_message_flags[@]}")
    local start perf wall
    start=$(date +%s.%N)
    perf="$(mpi_launch "${ranks}" "$@" "${mpi_common_flags[@]}" "${engine_flags[@]}" |
        grep '^PERF ')"
    wall=$(echo "$(date +%s.%N) - ${start}" | bc)
    echo "${wall} $(sed -E 's/.*packet_hops=([0-9]+).*/\1/' <<<"${perf}")"
}

echo "machine: $(nproc) cores; load before $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-86s %-7s %8s %15s %9s %8s\n' "scenario" "ranks" "wall_s" "(min-max)" "speed-up" \
    "Mhops/s"
for c in "${cases[@]}"; do
    [[ -n "${only}" && "${c}" != *"${only}"* ]] && continue
    read -r -a words <<<"${c}"
    exe="$(mpi_example "${examples_dir}" "${words[0]}")" || exit 2
    declare -A walls=() hops=()
    for ((r = 0; r < reps; ++r)); do
        for config in "${configs[@]}"; do
            read -r w h < <(run_config "${config}" "${exe}" "${words[@]:1}")
            walls[${config}]+="${w} "
            hops[${config}]="${h}"
        done
    done
    base=""
    ((reps > 0)) && for config in "${configs[@]}"; do
        read -r med lo hi < <(tr ' ' '\n' <<<"${walls[${config}]}" | grep . | sort -g |
            awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }')
        [[ -z "${base}" ]] && base="${med}"
        label="${config/:/ }"
        printf '%-86s %-7s %8.2f %15s %9.2f %8.3f\n' "${c}" "${label}" "${med}" \
            "($(printf '%.2f-%.2f' "${lo}" "${hi}"))" "$(echo "${base} / ${med}" | bc -l)" \
            "$(echo "${hops[${config}]} / ${med} / 1000000" | bc -l)"
    done
    if ((profile)); then
        for config in "${configs[@]}"; do
            ranks="${config%%:*}"
            if ((ranks == 1)); then
                /usr/bin/time -f "PROFILE 1 wall_s=%e user_s=%U sys_s=%S involuntary_switches=%c" \
                    "${exe}" "${words[@]:1}" "${mpi_common_flags[@]}" 2>&1 >"${out}/log" |
                    grep '^PROFILE' || true
                grep -o 'events=[0-9]*' "${out}/log" | sed 's/^/          /'
                continue
            fi
            engine_flags=()
            [[ "${config}" == *:null ]] &&
                engine_flags=("${null_message_flags[@]}")
            echo "PROFILE ${config/:/ }"
            mpirun --oversubscribe -x LD_PRELOAD="${profiler}" -np "${ranks}" "${exe}" \
                "${words[@]:1}" "${mpi_common_flags[@]}" "${engine_flags[@]}" \
                >"${out}/log" 2>"${out}/err" || true
            grep -o 'events=[0-9]*' "${out}/log" | sed 's/^/          /'
            grep '^MPIPROF' "${out}/err" | sort | sed 's/^/          /'
        done
    fi
    unset walls hops
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
