#!/usr/bin/env bash
# Distributed simulation check: runs scenarios on one process and on 2 and 4
# MPI ranks of each of ns-3's two distributed engines (granted time window,
# ns3::DistributedSimulatorImpl; null messages, ns3::NullMessageSimulatorImpl)
# and requires identical results in the five runs' databases: per flow, per
# link, per job and per iteration, the gate changes, the scheduler's
# decisions and the packet-hop count.
#
# Usage: utils/test-distributed.sh [NS3_DIR] [-- EXAMPLE ARGS...]
#   NS3_DIR       the ns-3.37 tree built by `utils/build-in-ns3-tree.sh --mpi`
#                 (default: the one it builds in /tmp/ns3-mpi)
#   EXAMPLE ARGS  one case to run instead of the default ones: a k=4
#                 fat-tree permutation, and the two-job multi-tenant
#                 scenario under fair sharing, Harmonics, Crux, CASSINI and Symphony.
# Every run, the single-process one included, takes simultaneous arrivals in
# port order (RoceCanonicalArrivals) and hands deliveries to collectives 1 us
# after they happen (RoceFabric::NotificationDelay), as a distributed run must.
# Exit status 0 when every run agrees with the single-process run.
# ENGINES (environment): the engines to run, default "gtw null".
set -euo pipefail

ns3_dir=""
if [[ $# -gt 0 && "$1" != "--" ]]; then
    ns3_dir="$1"
    shift
fi
[[ "${1:-}" == "--" ]] && shift
cases=()
if [[ $# -gt 0 ]]; then
    cases=("$*")
else
    cases=("fat-tree-permutation --k=4 --bytes=200000"
        "multi-tenant-fat-tree --scheduler=fair"
        "multi-tenant-fat-tree --scheduler=harmonics"
        "multi-tenant-fat-tree --scheduler=crux"
        "multi-tenant-fat-tree --scheduler=cassini"
        "multi-tenant-fat-tree --scheduler=symphony")
fi
# shellcheck source=utils/mpi-runs.sh
source "$(dirname "${BASH_SOURCE[0]}")/mpi-runs.sh"
examples_dir="$(mpi_examples_dir "${ns3_dir}")"
# Configurations: one process, then RANKS-ENGINE. The null-message engine
# needs the notification delay above the lookahead (1 us links): its runs and
# their own single-process reference ("1-null") use 2 us.
configs=(1)
for engine in ${ENGINES:-gtw null}; do
    [[ "${engine}" == null ]] && configs+=("1-null")
    configs+=("2-${engine}" "4-${engine}")
done

out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
failed=0
for c in "${!cases[@]}"; do
    read -r -a words <<<"${cases[$c]}"
    exe="$(mpi_example "${examples_dir}" "${words[0]}")" || exit 2
    echo "== ${cases[$c]}"
    for config in "${configs[@]}"; do
        ranks="${config%%-*}"
        engine_flags=()
        [[ "${config}" == *-null ]] &&
            engine_flags=(--SimulatorImplementationType=ns3::NullMessageSimulatorImpl
                --ns3::RoceFabric::NotificationDelay=2us)
        db="${out}/case${c}-${config}.db"
        start=$(date +%s.%N)
        if ! mpi_launch "${ranks}" "${exe}" "${words[@]:1}" "${mpi_common_flags[@]}" \
            "${engine_flags[@]}" --db="${db}" >"${out}/case${c}-${config}.log" 2>&1; then
            echo "FAIL: ${config} exited with an error:"
            tail -n 5 "${out}/case${c}-${config}.log"
            failed=1
            continue
        fi
        printf '   %-7s %.2f s wall\n' "${config}" "$(echo "$(date +%s.%N) - ${start}" | bc)"
    done
    /usr/bin/python3 - "${out}" "${c}" "${configs[@]:1}" <<'PY' || failed=1
import json, sqlite3, sys

out, case, others = sys.argv[1], sys.argv[2], sys.argv[3:]
queries = {
    "runs": "SELECT status, sim_end_ns, packet_hops FROM runs",
    "flows": "SELECT flow_id, job_id, src_node, dst_node, bytes, start_ns, end_ns, ack_ns, "
             "retransmitted_bytes, priority, src_port FROM flows ORDER BY flow_id",
    "links": "SELECT link_id, node_a, node_b, tx_bytes_ab, tx_bytes_ba, drops, "
             "pfc_pauses_sent, ecn_marked, max_queue_bytes FROM links ORDER BY link_id",
    "jobs": "SELECT job_id, placement_json, start_ns, end_ns, iterations FROM jobs ORDER BY job_id",
    "iterations": "SELECT job_id, iter, compute_start_ns, comm_ready_ns, comm_start_ns, "
                  "comm_end_ns FROM iterations ORDER BY job_id, iter",
    "gates": "SELECT t_ns, job_id, open FROM gates ORDER BY t_ns, job_id, open",
    "scheduler_decisions": "SELECT t_ns, scheduler, kind, job_id, detail_json "
                           "FROM scheduler_decisions ORDER BY rowid",
}

def strip_host_times(value):
    """Decisions record the solver's wall-clock cost, which no two runs share."""
    if isinstance(value, dict):
        return {k: strip_host_times(v) for k, v in value.items()
                if "wall" not in k and k != "scheduling_us"}
    if isinstance(value, list):
        return [strip_host_times(v) for v in value]
    return value

def rows(config, sql):
    db = sqlite3.connect("%s/case%s-%s.db" % (out, case, config))
    table = sql.split(" FROM ")[1].split()[0]
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        return None
    result = db.execute(sql).fetchall()
    if table == "scheduler_decisions":
        result = [r[:-1] + (strip_host_times(json.loads(r[-1])),) for r in result]
    return result

failed = False
def reference(config):
    """The single-process run with the same flags."""
    return "1-null" if config.endswith("-null") else "1"

for name, sql in queries.items():
    base = rows("1", sql)
    if base is None:
        continue
    if name in ("runs", "flows", "links") and not base:
        print("FAIL: no %s rows in the single-process run" % name)
        failed = True
    for config in others:
        if config == "1-null":
            continue
        base = rows(reference(config), sql)
        other = rows(config, sql)
        if other != base:
            failed = True
            diff = [(a, b) for a, b in zip(base or [], other or []) if a != b]
            print("FAIL: %s differ between %s and %s (%d vs %d rows, %d differ); first: %s"
                  % (name, reference(config), config, len(base or []), len(other or []),
                     len(diff), diff[:2]))
    if not failed:
        print("   ok: %d %s rows identical in %s" % (len(base), name, ", ".join(["1"] + others)))
sys.exit(1 if failed else 0)
PY
done
exit "${failed}"
