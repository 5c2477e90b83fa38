#!/usr/bin/env bash
# Installs the Debian packages llm-perf-opt builds and tests with (and any
# named as arguments: scripts/setup_bench.sh adds the benchmarks' peers), then
# Debian's Nsight Systems and Nsight Compute (scripts/setup_nsight.sh;
# LLMPO_NSIGHT=0 skips them). Idempotent: prints nothing and installs nothing
# when every package is already present.
set -euo pipefail
here=$(dirname "$0")

packages=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libsqlite3-dev libre2-dev libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev protobuf-compiler
  zlib1g-dev libarchive-dev libboost-math1.74-dev
  python3 help2man
  chromium python3-websocket fonts-liberation
  openmpi-bin mpich python3-torch strace
  slurmctld slurmd slurm-client munge libpmix-dev
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  bash "$here/setup_nsight.sh"
  exit 0
fi

echo "setup: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
bash "$here/setup_nsight.sh"
