#!/usr/bin/env bash
# Every exit code the binary lists in --help has a row in docs/exit-codes.md.
set -euo pipefail
bin=$1; doc=$2
"$bin" --help | sed -n '/^exit codes:/,$p' | tail -n +2 | while read -r code name _; do
  grep -Eq "^\| *$code *\| *\`$name\` *\|" "$doc" || { echo "FAIL: exit code $code ($name) is not in $doc" >&2; exit 1; }
done
echo ok
