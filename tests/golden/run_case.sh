#!/usr/bin/env bash
# Runs one golden case of the real CLI and diffs what it printed and its exit
# code against the case's `expected` file.
#   run_case.sh BINARY CASE_DIR          compare
#   UPDATE_GOLDEN=1 run_case.sh ...      rewrite `expected` (review the diff!)
# A case folder holds `args` (one argument per line) and `expected`. In args,
# @CASE@ is the case folder (for a case's own conf/) and @SRC@ the source
# tree. An optional `outputs` file lists files (relative to the working
# folder) whose contents are appended to what is compared.
set -euo pipefail
bin=$(realpath "$1"); case_dir=$(realpath "$2")
src_root=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d); tools=$(mktemp -d); trap 'rm -rf "$work" "$tools"' EXIT

mapfile -t args < <(sed -e "s|@CASE@|$case_dir|g" -e "s|@SRC@|$src_root|g" "$case_dir/args")
set +e
# The system's programs without nsys and ncu: a golden case never depends on
# whether Debian's Nsight tools are installed.
nosight=$(bash "$(dirname "$0")/../path_without_nsight.sh" "$tools")
(cd "$work" && env -i PATH="$nosight" HOME="$work" TZ=UTC SOURCE_DATE_EPOCH=1700000000 \
   "$bin" "${args[@]}" >"$work/.stdout" 2>"$work/.stderr")
rc=$?
set -e
{
  echo "exit: $rc"
  echo "--- stdout"; cat "$work/.stdout"
  echo "--- stderr"; cat "$work/.stderr"
  if [[ -f "$case_dir/outputs" ]]; then
    while read -r out; do
      echo "--- file $out"
      if [[ -f "$work/$out" ]]; then cat "$work/$out"; else echo "(missing)"; fi
    done <"$case_dir/outputs"
  fi
} | sed -e "s|$case_dir|@CASE@|g" -e "s|$src_root|@SRC@|g" >"$work/.actual"

if [[ "${UPDATE_GOLDEN:-}" == 1 ]]; then
  cp "$work/.actual" "$case_dir/expected"; exit 0
fi
diff -u "$case_dir/expected" "$work/.actual" || {
  echo "golden case $(basename "$case_dir") differs (UPDATE_GOLDEN=1 rewrites it; review before committing)" >&2
  exit 1
}
