#!/usr/bin/env bash
# Distributed simulation check: runs one scenario on 1, 2 and 4 MPI ranks of
# ns-3's distributed simulator and requires identical per-flow and per-link
# results (and the same packet-hop count) in the three runs' databases.
#
# Usage: utils/test-distributed.sh [NS3_DIR] [-- EXAMPLE ARGS...]
#   NS3_DIR  the ns-3.37 tree built by `utils/build-in-ns3-tree.sh --mpi`
#            (default: the one it builds in /tmp/ns3-mpi)
#   EXAMPLE ARGS  default: fat-tree-permutation --k=4 --bytes=200000
# Exit status 0 when every run agrees with the single-process run.
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ns3_dir=""
if [[ $# -gt 0 && "$1" != "--" ]]; then
    ns3_dir="$1"
    shift
fi
[[ "${1:-}" == "--" ]] && shift
if [[ $# -gt 0 ]]; then
    example=("$@")
else
    example=(fat-tree-permutation --k=4 --bytes=200000)
fi
if [[ -z "${ns3_dir}" ]]; then
    for d in /tmp/ns3-mpi/ns3-3.37*/ns-3.37; do
        [[ -d "${d}" ]] && ns3_dir="${d}"
    done
fi
exe="${ns3_dir}/build/contrib/collective-scheduling/examples/ns3.37-${example[0]}-optimized"
[[ -x "${exe}" ]] || {
    echo "error: ${exe} not found; build it with: utils/build-in-ns3-tree.sh --mpi" >&2
    exit 2
}

out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
# Open MPI refuses root unless told; more ranks than cores need --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for ranks in 1 2 4; do
    echo "== ${ranks} rank(s): ${example[*]}"
    if [[ ${ranks} == 1 ]]; then
        # The order distributed runs use for frames arriving together.
        "${exe}" "${example[@]:1}" --RoceCanonicalArrivals=true --db="${out}/r${ranks}.db" |
            tail -n 4
    else
        mpirun --oversubscribe -np "${ranks}" "${exe}" "${example[@]:1}" \
            --db="${out}/r${ranks}.db" | tail -n 4
    fi
done

/usr/bin/python3 - "${out}" <<'PY'
import sqlite3, sys

out = sys.argv[1]
def rows(ranks, sql):
    db = sqlite3.connect("%s/r%d.db" % (out, ranks))
    return db.execute(sql).fetchall()

queries = {
    "runs": "SELECT status, sim_end_ns, packet_hops FROM runs",
    "flows": "SELECT flow_id, job_id, src_node, dst_node, bytes, start_ns, end_ns, "
             "ack_ns, retransmitted_bytes, priority, src_port FROM flows ORDER BY flow_id",
    "links": "SELECT link_id, node_a, node_b, tx_bytes_ab, tx_bytes_ba, drops, "
             "pfc_pauses_sent, ecn_marked, max_queue_bytes FROM links ORDER BY link_id",
}
failed = False
for name, sql in queries.items():
    base = rows(1, sql)
    if not base:
        print("FAIL: no %s rows in the single-process run" % name)
        failed = True
    for ranks in (2, 4):
        other = rows(ranks, sql)
        if other != base:
            failed = True
            diff = [(a, b) for a, b in zip(base, other) if a != b]
            print("FAIL: %s differ between 1 and %d ranks (%d vs %d rows, %d differ); first: %s"
                  % (name, ranks, len(base), len(other), len(diff), diff[:2]))
        else:
            print("ok: %d %s rows identical with %d ranks" % (len(base), name, ranks))
sys.exit(1 if failed else 0)
PY
