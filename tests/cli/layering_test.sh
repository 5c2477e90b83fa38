#!/usr/bin/env bash
# Layers depend downward only. Each layer lists the src/ folders it may
# include; an include that points anywhere else fails the test.
set -euo pipefail
root=$1
declare -A allowed=(
  [core]="core"
  [config]="core config"
  [model]="core model"
  [ingest]="core model ingest"
  [analysis]="core model analysis"
  [report]="core model analysis report"
  [pipeline]="core config model ingest analysis report pipeline"
  [cli]="core config model ingest analysis report pipeline cli"
)
status=0
for layer in "${!allowed[@]}"; do
  [[ -d "$root/src/$layer" ]] || continue
  while IFS=: read -r file line include; do
    target=$(sed -E 's|.*"src/([^/]+)/.*|\1|' <<<"$include")
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      echo "FAIL: ${file#$root/}:$line: layer '$layer' includes src/$target (allowed: ${allowed[$layer]})" >&2
      status=1
    fi
  done < <(grep -n -H -E '^#include "src/' -r "$root/src/$layer" || true)
done
for dir in "$root"/src/*/; do
  name=$(basename "$dir")
  [[ -n "${allowed[$name]:-}" ]] || { echo "FAIL: src/$name has no entry in $0" >&2; status=1; }
done
[[ $status -eq 0 ]] && echo ok
exit $status
