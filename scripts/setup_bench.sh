#!/usr/bin/env bash
# Installs what the benchmarks in bench/ compare against, beyond what
# scripts/setup.sh installs for the build and tests: GNU time (peak RSS),
# the sqlite3 shell, Python's ijson and simdjson's headers and library
# (bench/run_import_targets.py builds its simdjson peer from them), and
# Debian's nsys/ncu (setup.sh runs scripts/setup_nsight.sh). Idempotent.
set -euo pipefail
exec bash "$(dirname "$0")/setup.sh" time sqlite3 python3-ijson libsimdjson-dev
