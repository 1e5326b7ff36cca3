#!/usr/bin/env bash
# Build this module inside Debian's ns-3.37 source tree, as a contrib module,
# from scratch, and run one of its examples: proof that the in-tree branch of
# CMakeLists.txt (build_lib / build_lib_example) works.
#
# Usage: utils/build-in-ns3-tree.sh [--mpi] [WORK_DIR] [EXAMPLE_COMMAND_LINE]
#   --mpi                 also build ns-3's mpi module (Debian's Open MPI) and
#                         the module's distributed-simulation support; the
#                         example then runs on 2 MPI ranks. Default WORK_DIR
#                         /tmp/ns3-mpi. utils/test-distributed.sh uses it.
#   WORK_DIR              where the ns-3 source is extracted and built
#                         (default /tmp/ns3-intree; an existing extraction
#                         there is reused, so re-runs only rebuild)
#   EXAMPLE_COMMAND_LINE  what to pass to `./ns3 run` (default
#                         "fat-tree-permutation --k=4 --bytes=100000");
#                         "" or "none" only builds.
# Environment: JOBS (default: number of CPUs).
#
# Needs apt (Debian bookworm or similar) and root or sudo: it installs the
# build dependencies and, if no deb-src entry is configured, adds one.
set -euo pipefail

repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mpi=0
if [[ "${1:-}" == "--mpi" ]]; then
    mpi=1
    shift
fi
default_dir=/tmp/ns3-intree
((mpi)) && default_dir=/tmp/ns3-mpi
work_dir="${1:-${default_dir}}"
example="${2-fat-tree-permutation --k=4 --bytes=100000}"
[[ "${example}" == "none" ]] && example=""
jobs="${JOBS:-$(nproc)}"
module=collective-scheduling
start=${SECONDS}

log() { printf '\n== %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

sudo_cmd=()
if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || die "run as root or install sudo"
    sudo_cmd=(sudo)
fi

# ------------------------------------------------------------ dependencies
apt_updated=0
apt_update() {
    if [[ ${apt_updated} == 0 ]]; then
        "${sudo_cmd[@]}" apt-get update -q
        apt_updated=1
    fi
}

log "apt sources: deb-src"
if ! grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # shellcheck source=/dev/null
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME}")"
    [[ -n "${codename}" ]] || die "cannot tell the Debian release"
    printf '%s\n' \
        "Types: deb-src" \
        "URIs: http://deb.debian.org/debian" \
        "Suites: ${codename} ${codename}-updates" \
        "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
        "${sudo_cmd[@]}" tee /etc/apt/sources.list.d/debian-src.sources >/dev/null
    echo "added /etc/apt/sources.list.d/debian-src.sources"
    apt_update
else
    echo "already configured"
fi

log "build dependencies"
# dpkg-dev, bzip2 and xz-utils unpack the source package, rsync copies the
# module; the rest build ns-3 and this module (nlohmann-json for the examples'
# scenario files, CBC for the MILP schedulers, found with pkg-config).
packages=(cmake make g++ pkg-config python3 dpkg-dev bzip2 xz-utils rsync
    libsqlite3-dev libboost-dev nlohmann-json3-dev coinor-libcbc-dev
    protobuf-compiler libprotobuf-dev zlib1g-dev)
((mpi)) && packages+=(openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "${p}" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("${p}")
done
if ((${#missing[@]})); then
    apt_update
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
else
    echo "all installed"
fi

# ------------------------------------------------------------ ns-3 source
find_ns3_dir() {
    local d
    for d in "${work_dir}"/ns3-3.37*/ns-3.37; do
        if [[ -x "${d}/ns3" && -d "${d}/build-support" ]]; then
            echo "${d}"
            return
        fi
    done
}

log "ns-3.37 source in ${work_dir}"
mkdir -p "${work_dir}"
ns3_dir="$(find_ns3_dir)"
if [[ -z "${ns3_dir}" ]]; then
    apt_update
    (cd "${work_dir}" && apt-get source ns3)
    ns3_dir="$(find_ns3_dir)"
    [[ -n "${ns3_dir}" ]] || die "apt-get source ns3 did not give an ns-3.37 tree"
else
    echo "reusing ${ns3_dir}"
fi
[[ "$(cat "${ns3_dir}/VERSION")" == "3.37" ]] || die "${ns3_dir} is not ns-3.37"

log "copy module to contrib/${module}"
dest="${ns3_dir}/contrib/${module}"
# By content, and a changed file gets the time of the copy: with the source's
# own time, a file edited while an earlier build ran can look older than the
# object built from its previous content, and would not be rebuilt.
rsync -a --checksum --no-times --delete --exclude=.git --exclude=/build --exclude='/build-*' \
    --exclude='/cmake-build-*' --exclude=/results --exclude='*.db' --exclude='*.pcap' \
    --exclude=__pycache__ "${repo_dir}/" "${dest}/"

# ------------------------------------------------------------ configure
# ns3 refuses to run when USER is root (to keep sudo out of builds); building
# as root in a throw-away tree is harmless, so present another name.
ns3() {
    (cd "${ns3_dir}" && USER="${ns3_user}" ./ns3 "$@")
}
ns3_user="${USER:-}"
[[ "${ns3_user}" == root || "$(id -u)" == 0 ]] && ns3_user=ns3-build

mpi_flags=()
((mpi)) && mpi_flags=(--enable-mpi)
log "configure (optimized, examples, ${mpi_flags[*]:-no MPI}, only ${module} and its dependencies)"
ns3 configure -d optimized --enable-examples --disable-tests \
    --disable-python-bindings "${mpi_flags[@]}" --enable-modules="${module}"

log "check the optimized flags"
ns3 show config | tee "${work_dir}/ns3-config.txt"
grep -Eiq 'build profile[^a-z]*optimized' "${work_dir}/ns3-config.txt" ||
    die "ns3 show config does not report the optimized profile"
python3 - "${ns3_dir}/cmake-cache/compile_commands.json" "${module}" <<'EOF'
import json, shlex, sys

path, module = sys.argv[1], sys.argv[2]
entries = json.load(open(path))
ours = [e for e in entries if "/contrib/%s/" % module in e["file"]]
core = [e for e in entries if "/src/core/" in e["file"]]
if not ours or not core:
    sys.exit("compile_commands.json has no entries for %s or core" % module)
problems = []
for e in ours + core:
    args = shlex.split(e["command"]) if "command" in e else e["arguments"]
    opt = [a for a in args if a.startswith("-O")]
    if opt[-1:] not in (["-O2"], ["-O3"]):
        problems.append("%s: optimization %s" % (e["file"], opt))
    if "-DNS3_BUILD_PROFILE_OPTIMIZED" not in args:
        problems.append("%s: not the optimized profile" % e["file"])
    for bad in ("-DNS3_ASSERT_ENABLE", "-DNS3_LOG_ENABLE"):
        if bad in args:
            problems.append("%s: %s" % (e["file"], bad))
if problems:
    sys.exit("\n".join(problems))
example = shlex.split(ours[0]["command"]) if "command" in ours[0] else ours[0]["arguments"]
print("%d module and %d core translation units: %s, -DNS3_BUILD_PROFILE_OPTIMIZED,"
      " no NS3_ASSERT_ENABLE/NS3_LOG_ENABLE; e.g. %s" % (
          len(ours), len(core),
          " ".join(sorted({a for a in example if a.startswith(("-O", "-march"))})),
          ours[0]["file"]))
EOF

# ------------------------------------------------------------ build and run
log "build (-j ${jobs})"
# ns-3.37's `./ns3 build -j N` caps N at (CPUs - 1), so drive its CMake build
# directory directly; this is the command ns3 runs itself.
cmake --build "${ns3_dir}/cmake-cache" -j "${jobs}"
ls "${ns3_dir}"/build/lib/libns3-"${module}"*.so* >/dev/null ||
    die "library libns3-${module} was not built"

if [[ -n "${example}" ]] && ((mpi)); then
    # Open MPI refuses root unless told; 2 ranks fit any machine.
    log "run on 2 MPI ranks: ${example}"
    read -r -a words <<<"${example}"
    exe="${ns3_dir}/build/contrib/${module}/examples/ns3.37-${words[0]}-optimized"
    [[ -x "${exe}" ]] || die "no such example binary: ${exe}"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun --oversubscribe -np 2 "${exe}" "${words[@]:1}"
elif [[ -n "${example}" ]]; then
    log "run: ${example}"
    ns3 run --no-build "${example}"
else
    log "no example to run"
fi

log "done in $((SECONDS - start)) s (ns-3 tree: ${ns3_dir})"
