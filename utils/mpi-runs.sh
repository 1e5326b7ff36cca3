# Shared by utils/test-distributed.sh and benchmarks/run-distributed-benchmark.sh
# (sourced): where the MPI build's examples are and how to launch them.

# Open MPI refuses root unless told; more ranks than cores need --oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The event order of distributed runs, given to every run (the single-process
# one included) so that all do the same work and give the same results.
mpi_common_flags=(--RoceCanonicalArrivals=true --ns3::RoceFabric::NotificationDelay=1us)

# mpi_examples_dir [NS3_DIR]: the examples of the tree built by
# `utils/build-in-ns3-tree.sh --mpi` (default: the one in /tmp/ns3-mpi).
mpi_examples_dir() {
    local dir="${1:-}" d
    if [[ -z "${dir}" ]]; then
        for d in /tmp/ns3-mpi/ns3-3.37*/ns-3.37; do
            [[ -d "${d}" ]] && dir="${d}"
        done
    fi
    echo "${dir}/build/contrib/collective-scheduling/examples"
}

# mpi_example EXAMPLES_DIR NAME: the example's binary; exits 2 if it is not built.
mpi_example() {
    local exe="$1/ns3.37-$2-optimized"
    if [[ ! -x "${exe}" ]]; then
        echo "error: ${exe} not found; build it with: utils/build-in-ns3-tree.sh --mpi" >&2
        exit 2
    fi
    echo "${exe}"
}

# mpi_launch RANKS PROGRAM ARGS...: run on RANKS ranks (1: without mpirun).
mpi_launch() {
    local ranks="$1"
    shift
    if ((ranks > 1)); then
        mpirun --oversubscribe -np "${ranks}" "$@"
    else
        "$@"
    fi
}
