#!/usr/bin/env bash
# Installs the Debian packages the module needs, if any is missing.
# Used by quickstart.sh and run-tests.sh; safe to run again.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libns3-dev ns3          # ns-3.37; ns3 ships helper binaries its CMake config checks for
  libgsl-dev libsqlite3-dev libxml2-dev  # needed to link Debian's ns-3
  libboost-dev libgtest-dev nlohmann-json3-dev coinor-libcbc-dev
  protobuf-compiler libprotobuf-dev zlib1g-dev  # Chakra execution traces
  tshark                  # tests dissect the module's pcap output
  python3 python3-matplotlib
  chromium                # tests open the run report page headless
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
