#!/usr/bin/env bash
# Installs what the benchmarks in bench/ compare against, beyond what
# scripts/setup.sh installs for the build and tests: GNU time (peak RSS),
# the sqlite3 shell, Python's ijson and simdjson's headers and library
# (bench/run_import_targets.py builds its simdjson peer from them), and
# Debian's nsys/ncu (scripts/setup_nsight.sh). Idempotent.
set -euo pipefail
here=$(dirname "$0")
bash "$here/setup.sh"

packages=(time sqlite3 python3-ijson libsimdjson-dev)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup_bench: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup_bench: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup_bench: done"
