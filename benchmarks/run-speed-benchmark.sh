#!/usr/bin/env bash
# Speed benchmark: builds the project in Release, runs the two stock ns-3
# references, the module's fat-tree-permutation example at k=4, 8 and 16, a
# k=8 training run and figure 1 at full scale (two of its iterations, on its
# full-bisection fabric), in interleaved repetitions, and
# prints for each program the median and spread of data-frame and ACK
# packet-hops/s, link bytes/s, events, wall time and peak RSS, and the
# module-to-stock ratios of the same repetitions. See benchmarks/README.md.
#
# Usage: benchmarks/run-speed-benchmark.sh [--build-dir DIR] [--no-build] [--quick]
#                                          [--repeat N] [--timeout SECONDS]
#                                          [--no-figure] [--only LABELS]
#   --repeat N     repetitions; each runs every program once, in turn (default 3)
#   --no-figure    leave out figure 1 (minutes a repetition)
#   --only LABELS  run only these comma-separated labels (chain, inet-k4, inet-k8,
#                  module-k4, module-k8, module-k16, training-k8, figure1,
#                  module-k16-memory)
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$here")"
build_dir="$source_dir/build-release"
do_build=1
quick=0
run_timeout=900
repeat=3
figure=1
only=""

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
        --no-figure) figure=0; shift ;;
        --only) only="$2"; shift 2 ;;
        --only=*) only="${1#*=}"; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
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

jobs="$(nproc 2>/dev/null || echo 2)"
targets=(stock-p2p-chain stock-internet-fat-tree fat-tree-permutation multi-tenant-fat-tree
    paper-figures)

# ------------------------------------------------------------------- build
if [ "$do_build" -eq 1 ]; then
    echo "== configuring $build_dir (Release)"
    cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null || {
        echo "run-speed-benchmark.sh: cmake configure failed" >&2
        exit 1
    }
    echo "== building the benchmark targets (-j$jobs)"
    : >"$build_dir/speed-benchmark-build.log"
    for target in "${targets[@]}"; do
        cmake --build "$build_dir" -j"$jobs" --target "$target" \
            >>"$build_dir/speed-benchmark-build.log" 2>&1 ||
            echo "   target $target did not build (see $build_dir/speed-benchmark-build.log)"
    done
fi

mkdir -p "$build_dir"
log="$build_dir/speed-benchmark.log"
: >"$log"
results="$(mktemp)"
scratch="$(mktemp -d)"
trap 'rm -rf "$results" "$scratch"' EXIT

# ------------------------------------------------------------------- cases
# Full runs give every program several seconds of wall time, so start-up and
# timer noise stay small; --quick only checks that everything runs.
if [ "$quick" -eq 1 ]; then
    chain_args=(--packets=200000)
    inet_args=(--simTime=0.3)
    inet_k8_args=(--simTime=0.01)
    module_k4_args=(--bytes=1000000)
    module_k8_args=(--bytes=200000)
    module_k16_args=(--bytes=20000)
    training_args=(--iterations=1 --scale=0.01)
    figure_args=(--scale=0.01 --iterations=1 --fabric=fat-tree)
else
    chain_args=()
    inet_args=()
    inet_k8_args=(--simTime=0.05)
    module_k4_args=(--bytes=20000000)
    module_k8_args=(--bytes=4000000)
    module_k16_args=(--bytes=1000000)
    training_args=(--iterations=2 --scale=0.1)
    figure_args=(--scale=1 --iterations=2 --fabric=fat-tree)
fi
# Frames of 1082 B, the nearest RoCE path MTU to the 1000 B frames of the stock runs.
module_args=(--linkRate=100Gbps --mtu=1024)

# label|program|arguments (words) -- the order of one repetition.
cases=(
    "chain|stock-p2p-chain|${chain_args[*]}"
    "inet-k4|stock-internet-fat-tree|--k=4 ${inet_args[*]}"
    "inet-k8|stock-internet-fat-tree|--k=8 ${inet_k8_args[*]}"
    "module-k4|fat-tree-permutation|--k=4 ${module_args[*]} ${module_k4_args[*]}"
    "module-k8|fat-tree-permutation|--k=8 ${module_args[*]} ${module_k8_args[*]}"
    "module-k16|fat-tree-permutation|--k=16 ${module_args[*]} ${module_k16_args[*]}"
    "module-k16-memory|fat-tree-permutation|--k=16 --bytes=1000 ${module_args[*]}"
    "training-k8|multi-tenant-fat-tree|--k=8 --jobs=4 --workers=16 --scheduler=harmonics ${training_args[*]}"
)
if [ "$figure" -eq 1 ]; then
    cases+=("figure1|paper-figures|--figure=1 --progress=0 ${figure_args[*]}")
fi

selected() {
    [ -z "$only" ] && return 0
    case ",$only," in *",$1,"*) return 0 ;; esac
    return 1
}

# run_once REP LABEL PROGRAM ARGS... : one run; appends one line
# "REP LABEL key=value ..." to $results (the PERF fields, summed over the
# program's PERF lines, and the process's wall time and peak RSS), or
# "REP LABEL FAILED".
run_once() {
    local rep="$1" label="$2" program="$3"
    shift 3
    local exe="$build_dir/$program"
    if [ ! -x "$exe" ]; then
        echo "   $label: $exe not found (not built?); skipped" >&2
        echo "$rep $label MISSING" >>"$results"
        return
    fi
    local args=("$@")
    if [ "$program" = paper-figures ]; then
        rm -f "$scratch/figure.db"
        args+=(--db="$scratch/figure.db")
    fi
    local out rc
    out="$(cd "$scratch" && /usr/bin/time -f 'TIME wall=%e rss_kb=%M' \
        timeout "$run_timeout" "$exe" "${args[@]}" 2>&1)"
    rc=$?
    printf '### rep %s %s: %s %s (exit %d)\n%s\n' "$rep" "$label" "$program" "${args[*]}" \
        "$rc" "$out" >>"$log"
    if [ $rc -ne 0 ] || ! grep -q '^PERF ' <<<"$out"; then
        echo "   $label (rep $rep): failed (exit $rc, see $log)"
        echo "$rep $label FAILED" >>"$results"
        return
    fi
    # Sum the PERF lines (paper-figures prints one per simulation).
    awk -v rep="$rep" -v label="$label" '
        /^PERF / { n++; for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] != "name") sum[kv[1]] += kv[2] } }
        /^TIME / { for (i = 2; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] } }
        END {
            line = rep " " label " runs=" n
            for (k in sum)
                line = line " " k "=" (sum[k] == int(sum[k]) ? sprintf("%.0f", sum[k]) : sprintf("%.9g", sum[k]))
            line = line " process_wall_s=" t["wall"] " process_rss_kb=" t["rss_kb"]
            print line
        }' <<<"$out" >>"$results"
    echo "   rep $rep $label: $(tail -n 1 "$results" | cut -d' ' -f3-)"
}

load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    echo "   WARNING: load average is $load; other work on this machine skews wall times."
fi
echo "== running $repeat interleaved repetitions (output in $log)"
for ((rep = 1; rep <= repeat; rep++)); do
    for c in "${cases[@]}"; do
        IFS='|' read -r label program words <<<"$c"
        selected "$label" || continue
        # shellcheck disable=SC2086 # the arguments are words
        run_once "$rep" "$label" "$program" $words
    done
done

# ------------------------------------------------------------------- report
awk -v reps="$repeat" '
function field(s, key,    n, parts, i, kv) {
    n = split(s, parts, " ")
    for (i = 1; i <= n; i++) { split(parts[i], kv, "="); if (kv[1] == key) return kv[2] }
    return ""
}
# median and spread of the values v[1..n]
function sortn(v, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
}
function median(v, n) { sortn(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
function stat(label, key, scale,    r, n, v, lo, hi, m) {
    n = 0
    for (r = 1; r <= reps; r++) if ((r, label) in ok) v[++n] = val[r, label, key] * scale
    if (n == 0) return "-"
    m = median(v, n); lo = v[1]; hi = v[n]
    return n == 1 ? sprintf("%.3f", m) : sprintf("%.3f [%.3f-%.3f]", m, lo, hi)
}
{
    rep = $1; label = $2
    if (!(label in seen)) { seen[label] = 1; order[++count] = label }
    if ($3 == "FAILED" || $3 == "MISSING") { bad[label] = $3; next }
    ok[rep, label] = 1
    line = substr($0, length($1) + length($2) + 3)
    wall = field(line, "wall_s") + 0
    hops = field(line, "packet_hops") + 0
    data = field(line, "data_hops"); data = (data == "" ? hops : data + 0)
    ack = field(line, "ack_hops") + 0
    bytes = field(line, "link_bytes") + 0
    ev = field(line, "events") + 0
    val[rep, label, "hops"] = wall > 0 ? hops / wall : 0
    val[rep, label, "data"] = wall > 0 ? data / wall : 0
    val[rep, label, "ack"] = wall > 0 ? ack / wall : 0
    val[rep, label, "bytes"] = wall > 0 ? bytes / wall : 0
    val[rep, label, "evhop"] = hops > 0 ? ev / hops : 0
    val[rep, label, "events"] = ev
    val[rep, label, "hopsn"] = hops
    val[rep, label, "wall"] = wall
    val[rep, label, "pwall"] = field(line, "process_wall_s") + 0
    val[rep, label, "rss"] = field(line, "process_rss_kb") / 1024.0
}
END {
    print ""
    print "median [min-max] over " reps " interleaved repetitions; rates per second of simulation wall time"
    printf "%-18s %-22s %-22s %-20s %-22s %6s %8s %8s %-22s %-22s %s\n", "label", "Mhops/s",
           "data Mhops/s", "ACK Mhops/s", "link GB/s", "ev/hop", "Mhops", "Mevents",
           "run wall_s", "process wall_s", "peak RSS MB"
    for (i = 1; i <= count; i++) {
        l = order[i]
        if (l in bad) { printf "%-18s %s\n", l, bad[l]; continue }
        # hops, events and events/hop are the same in every repetition: one value.
        printf "%-18s %-22s %-22s %-20s %-22s %6.2f %8.3f %8.3f %-22s %-22s %.1f\n", l,
               stat(l, "hops", 1e-6), stat(l, "data", 1e-6), stat(l, "ack", 1e-6),
               stat(l, "bytes", 1e-9), stat(l, "evhop", 1) + 0, stat(l, "hopsn", 1e-6) + 0,
               stat(l, "events", 1e-6) + 0, stat(l, "wall", 1), stat(l, "pwall", 1),
               stat(l, "rss", 1) + 0
    }
    print ""
    print "module / stock-p2p-chain, ratio of the same repetition (median [min-max]):"
    print "  link bytes/s is the issue-level measure (frames of 1082 B against 1000 B);"
    print "  data-frame hops/s leaves the ACKs out."
    n = split("module-k4 module-k8 module-k16", mods, " ")
    for (m = 1; m <= n; m++) {
        mod = mods[m]
        split("bytes data hops", keys, " ")
        text = ""
        for (k = 1; k <= 3; k++) {
            c = 0
            delete v
            for (r = 1; r <= reps; r++)
                if ((r, mod) in ok && (r, "chain") in ok && val[r, "chain", keys[k]] > 0)
                    v[++c] = val[r, mod, keys[k]] / val[r, "chain", keys[k]]
            if (c == 0) continue
            med = median(v, c)
            text = text sprintf("  %s %.2fx [%.2f-%.2f]", keys[k], med, v[1], v[c])
        }
        if (text != "") printf "  %-11s%s\n", mod, text
    }
    print "module / stock-internet-fat-tree of the same k, packet-hops/s:"
    split("4 8", ks, " ")
    for (m = 1; m <= 2; m++) {
        mod = "module-k" ks[m]; inet = "inet-k" ks[m]
        c = 0
        delete v
        for (r = 1; r <= reps; r++)
            if ((r, mod) in ok && (r, inet) in ok && val[r, inet, "hops"] > 0)
                v[++c] = val[r, mod, "hops"] / val[r, inet, "hops"]
        if (c > 0) printf "  %-11s %.1fx [%.1f-%.1f]\n", mod, median(v, c), v[1], v[c]
    }
}' "$results"
