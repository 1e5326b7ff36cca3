#!/usr/bin/env bash
# Runs a fixed set of examples, one SQLite database each, so that a change
# meant to leave the model's results alone (a faster packet path, say) can
# be checked to do so: run the set before and after, then compare.
#
# Usage: utils/results-regression.sh run BUILD_DIR OUT_DIR
#        utils/results-regression.sh compare BEFORE_DIR AFTER_DIR
# "compare" runs utils/compare-results.py on every database of the set and
# exits 1 if any simulated result (run end time, packet-hops, flows, links,
# jobs, iterations, gates, decisions) differs.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# name|program|arguments: the set (same seeds, the examples' defaults).
cases=(
    "permutation-k4|fat-tree-permutation|--k=4"
    "permutation-k8|fat-tree-permutation|--k=8"
    "permutation-k4-queued|fat-tree-permutation|--k=4 --linkRate=100Gbps --mtu=1024 --bytes=4000000"
    "permutation-k8-queued|fat-tree-permutation|--k=8 --linkRate=100Gbps --mtu=1024 --bytes=1000000"
    "multi-tenant|multi-tenant-fat-tree|"
    "multi-tenant-harmonics|multi-tenant-fat-tree|--scheduler=harmonics"
    "multi-tenant-crux|multi-tenant-fat-tree|--scheduler=crux"
    "training-k8|multi-tenant-fat-tree|--k=8 --jobs=4 --workers=16 --scheduler=harmonics --iterations=1 --scale=0.01"
    "roce-incast|roce-incast|"
)

usage() {
    sed -n '2,10p' "$0" >&2
    exit 2
}

[ $# -eq 3 ] || usage
mode="$1"

case "$mode" in
    run)
        build="$2"
        out="$3"
        mkdir -p "$out"
        status=0
        for c in "${cases[@]}"; do
            IFS='|' read -r name program args <<<"$c"
            rm -f "$out/$name.db"
            # shellcheck disable=SC2086 # the arguments are words
            if ! "$build/$program" $args --db="$out/$name.db" >"$out/$name.log" 2>&1; then
                echo "$name: $program failed (see $out/$name.log)" >&2
                status=1
            else
                echo "$name: $(grep '^PERF ' "$out/$name.log" | tail -n 1)"
            fi
        done
        exit $status
        ;;
    compare)
        status=0
        for c in "${cases[@]}"; do
            IFS='|' read -r name _ _ <<<"$c"
            echo "== $name"
            if [ ! -f "$2/$name.db" ] || [ ! -f "$3/$name.db" ]; then
                echo "missing $name.db in $2 or $3" >&2
                status=1
                continue
            fi
            "$here/compare-results.py" "$2/$name.db" "$3/$name.db" || status=1
        done
        [ $status -eq 0 ] && echo "all databases identical" || echo "DIFFERENCES FOUND"
        exit $status
        ;;
    *) usage ;;
esac
