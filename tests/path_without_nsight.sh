#!/usr/bin/env bash
# Prints a folder that holds links to every program of /usr/bin and /bin but
# Nsight Systems and Nsight Compute (nsys, ncu), made under $1 if missing:
# for tests of what happens where those tools are not installed, whether or
# not this machine has them (PATH="$(path_without_nsight.sh DIR)").
#   path_without_nsight.sh PARENT_DIR
set -euo pipefail
dir=$1/path-without-nsight
if [[ ! -d $dir ]]; then
  tmp=$(mktemp -d "$1/.path-without-nsight.XXXXXX")
  for bin in /bin /usr/bin; do
    [[ -L $bin ]] && continue  # /bin -> usr/bin on merged-/usr systems
    find "$bin" -maxdepth 1 \( -type f -o -type l \) ! -name nsys ! -name ncu ! -name 'nsight*' \
      -exec ln -sf -t "$tmp" {} +
  done
  mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"  # another test made it first
fi
echo "$dir"
