#!/usr/bin/env bash
# Speed benchmark: builds the project in Release, runs the two stock ns-3
# references and the module's fat-tree-permutation example, and prints
# packet-hops/s, events/s, simulated seconds per wall second, peak RSS and the
# module-to-stock speed ratios. See benchmarks/README.md.
#
# Usage: benchmarks/run-speed-benchmark.sh [--build-dir DIR] [--no-build] [--quick]
#                                          [--repeat N] [--timeout SECONDS]
#   --repeat N  run every program N times and keep the fastest run (default 1)
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$here")"
build_dir="$source_dir/build-release"
do_build=1
quick=0
run_timeout=900
repeat=1

while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build_dir="$2"; shift 2 ;;
        --build-dir=*) build_dir="${1#*=}"; shift ;;
        --no-build) do_build=0; shift ;;
        --quick) quick=1; shift ;;
        --timeout) run_timeout="$2"; shift 2 ;;
        --timeout=*) run_timeout="${1#*=}"; shift ;;
        --repeat) repeat="$2"; shift 2 ;;
        --repeat=*) repeat="${1#*=}"; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "run-speed-benchmark.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

case "$repeat" in
    ''|*[!0-9]*|0) echo "run-speed-benchmark.sh: --repeat needs a positive integer" >&2; exit 2 ;;
esac

case "$build_dir" in
    /*) ;;
    *) build_dir="$PWD/$build_dir" ;;
esac

module_example=fat-tree-permutation
jobs="$(nproc 2>/dev/null || echo 2)"

# ------------------------------------------------------------------- build
if [ "$do_build" -eq 1 ]; then
    echo "== configuring $build_dir (Release)"
    cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null || {
        echo "run-speed-benchmark.sh: cmake configure failed" >&2
        exit 1
    }
    echo "== building (-j$jobs)"
    if ! cmake --build "$build_dir" -j"$jobs" >"$build_dir/speed-benchmark-build.log" 2>&1; then
        # A broken unrelated target should not hide the references: build
        # what is needed one by one.
        echo "   full build failed (see $build_dir/speed-benchmark-build.log);" \
             "building the benchmark targets alone"
        for target in stock-p2p-chain stock-internet-fat-tree "$module_example"; do
            cmake --build "$build_dir" -j"$jobs" --target "$target" \
                >>"$build_dir/speed-benchmark-build.log" 2>&1 ||
                echo "   target $target did not build"
        done
    fi
fi

mkdir -p "$build_dir"
log="$build_dir/speed-benchmark.log"
: >"$log"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# run LABEL PROGRAM ARGS... : runs one program $repeat times, appends
# "LABEL <PERF fields of the fastest run>" to $results, or a note when the
# program is missing or fails.
run() {
    local label="$1" program="$2"
    shift 2
    local exe="$build_dir/$program"
    if [ ! -x "$exe" ]; then
        echo "   $label: $exe not found (not built yet?); skipped" >&2
        echo "$label MISSING" >>"$results"
        return
    fi
    echo "   $label: $program $*"
    local best="" attempt out rc perf
    for ((attempt = 1; attempt <= repeat; attempt++)); do
        out="$(timeout "$run_timeout" "$exe" "$@" 2>&1)"
        rc=$?
        printf '### %s: %s %s (exit %d)\n%s\n' "$label" "$program" "$*" "$rc" "$out" >>"$log"
        perf="$(printf '%s\n' "$out" | grep '^PERF ' | tail -n 1)"
        if [ $rc -ne 0 ] || [ -z "$perf" ]; then
            echo "   $label: failed (exit $rc, see $log)"
            echo "$label FAILED" >>"$results"
            return
        fi
        best="$(printf '%s\n%s\n' "$best" "$perf" | awk '
            /^PERF / { for (i = 2; i <= NF; i++) if ($i ~ /^wall_s=/) w = substr($i, 8) + 0
                       if (line == "" || w < bestWall) { bestWall = w; line = $0 } }
            END { print line }')"
    done
    echo "$label $best" >>"$results"
}

# ------------------------------------------------------------------- runs
# Full runs give every program several seconds of wall time, so start-up and
# timer noise stay small; --quick only checks that everything runs.
if [ "$quick" -eq 1 ]; then
    chain_args=(--packets=200000)
    inet_args=(--simTime=0.3)
    inet_k8_args=(--simTime=0.01)
    module_k4_args=()
    module_k8_args=()
else
    chain_args=()
    inet_args=()
    inet_k8_args=(--simTime=0.05)
    module_k4_args=(--bytes=20000000)
    module_k8_args=(--bytes=4000000)
fi
module_args=(--linkRate=100Gbps --mtu=1024) # frames of 1082 B, the nearest RoCE path MTU to the 1000 B frames of the stock runs

load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    echo "   WARNING: load average is $load; other work on this machine skews wall times."
fi
echo "== running (output in $log)"
run chain stock-p2p-chain "${chain_args[@]}"
run inet-k4 stock-internet-fat-tree --k=4 "${inet_args[@]}"
run inet-k8 stock-internet-fat-tree --k=8 "${inet_k8_args[@]}"
if [ ! -x "$build_dir/$module_example" ]; then
    echo "   NOTE: $module_example is not built; the module rows and ratios are left out."
fi
run module-k4 "$module_example" --k=4 "${module_args[@]}" "${module_k4_args[@]}"
run module-k8 "$module_example" --k=8 "${module_args[@]}" "${module_k8_args[@]}"
run module-k16-memory "$module_example" --k=16 --bytes=1000 "${module_args[@]}"

# ------------------------------------------------------------------- report
awk '
function field(line, key,    n, parts, i, kv) {
    n = split(line, parts, " ")
    for (i = 1; i <= n; i++) {
        split(parts[i], kv, "=")
        if (kv[1] == key) return substr(parts[i], length(key) + 2)
    }
    return ""
}
{
    label = $1
    order[++count] = label
    if ($2 != "PERF") { status[label] = $2; next }
    line = substr($0, length(label) + 2)
    name[label] = field(line, "name")
    wall = field(line, "wall_s") + 0
    hops[label] = field(line, "packet_hops") + 0
    events[label] = field(line, "events") + 0
    sim[label] = field(line, "sim_s") + 0
    rss[label] = field(line, "peak_rss_kb") / 1024.0
    hps[label] = wall > 0 ? hops[label] / wall : 0
    eps[label] = wall > 0 ? events[label] / wall : 0
    spw[label] = wall > 0 ? sim[label] / wall : 0
    wallOf[label] = wall
    ok[label] = 1
}
END {
    printf "\n%-34s %10s %10s %7s %12s %12s %8s\n", "program", "Mhops/s", "Mevents/s",
           "ev/hop", "sim_s/wall_s", "peak_RSS_MB", "wall_s"
    for (i = 1; i <= count; i++) {
        l = order[i]
        if (!ok[l]) { printf "%-34s %s\n", l, status[l]; continue }
        printf "%-34s %10.3f %10.3f %7.2f %12.4g %12.1f %8.2f\n", name[l], hps[l] / 1e6,
               eps[l] / 1e6, (hops[l] > 0 ? events[l] / hops[l] : 0), spw[l], rss[l], wallOf[l]
    }
    print ""
    print "module packet-hops/s relative to the stock references (target):"
    split("module-k4 module-k8", mods, " ")
    printed = 0
    for (m = 1; m <= 2; m++) {
        mod = mods[m]
        if (!ok[mod]) continue
        if (ok["chain"] && hps["chain"] > 0) {
            r = hps[mod] / hps["chain"]
            printf "  %-30s / stock-p2p-chain          = %7.2fx  (>= 2x: %s)\n", name[mod], r,
                   (r >= 2 ? "met" : "NOT met")
            printed = 1
        }
        # The Internet-stack reference runs the same fat-tree (same k).
        inet = "inet-" substr(mod, length("module-") + 1)
        if (ok[inet] && hps[inet] > 0) {
            r = hps[mod] / hps[inet]
            printf "  %-30s / %-24s = %7.2fx  (>= 10x: %s)\n", name[mod], name[inet] "-" \
                   substr(inet, 6), r, (r >= 10 ? "met" : "NOT met")
            printed = 1
        }
    }
    if (!printed) print "  (no ratios: the module example or a reference did not run)"
    if (ok["module-k16-memory"])
        printf "k=16 fat-tree (1024 hosts), tiny workload: peak RSS %.1f MB\n",
               rss["module-k16-memory"]
    else
        print "k=16 fat-tree memory check: " status["module-k16-memory"]
}' "$results"
