#!/usr/bin/env bash
# `import` given something that is not a readable regular file says what it
# is and how to fix it, with exit 3, and never blocks or reads forever
# (docs/import.md, "Inputs that are not profiler outputs"):
# - a named pipe (FIFO) with no writer: refused at once, not read;
# - a loop of symbolic links, and a link to a missing file;
# - a regular file whose read fails (/proc/self/mem: open works, read EIO);
# - an unreadable file (chmod 000): as root, run as nobody through setpriv,
#   or skipped with the reason when that is not possible;
# - a damaged SQLite file (valid header, garbage after it);
# - UTF-16 with characters outside ASCII (an accent, an emoji as a surrogate
#   pair): read and written as UTF-8, the temporary copy removed.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs `import FILE --out out` with a time limit; sets rc and err.txt.
run() { set +e; timeout 20 "$bin" import "$1" --out out >out.txt 2>err.txt; rc=$?; set -e; }
# expect NAME TEXT...: exit 3 and each TEXT (a fixed string) in stderr.
expect() {
  local name=$1; shift
  [[ $rc -ne 124 ]] || fail "$name: import blocked (timed out)"
  [[ $rc -eq 3 ]] || fail "$name: expected exit 3, got $rc: $(cat err.txt)"
  for text in "$@"; do grep -qF -- "$text" err.txt || fail "$name: no '$text' in: $(cat err.txt)"; done
}

# --- a FIFO nobody writes to: opening it for reading would block forever
mkfifo pipe.csv
run pipe.csv
expect fifo "pipe.csv: a named pipe (FIFO), not a regular file" "save the profiler output to a regular file"

# --- symbolic links
ln -s loop_b.csv loop_a.csv
ln -s loop_a.csv loop_b.csv
run loop_a.csv
expect loop "loop_a.csv: a loop of symbolic links" "point the link at the profiler output"
ln -s gone.csv dangling.csv
run dangling.csv
expect dangling "dangling.csv: a symbolic link to a file that does not exist"

# --- a regular file that cannot be read
run /proc/self/mem
expect read-error "/proc/self/mem: cannot be read: Input/output error" "copy or export the file again"

# --- an unreadable file
cp "$src/tests/fixtures/handmade/ncu_details_2022.csv" secret.csv
chmod 000 secret.csv
if [[ $(id -u) -ne 0 ]]; then
  run secret.csv
  expect unreadable "secret.csv: cannot be read: permission denied" "chmod a+r"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$bin" 2>/dev/null; then
  mkdir -m 777 nobody_out
  chmod 755 "$work"
  set +e
  timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" import "$work/secret.csv" \
    --out "$work/nobody_out" >out.txt 2>err.txt
  rc=$?
  set -e
  expect unreadable "secret.csv: cannot be read: permission denied" "chmod a+r"
else
  echo "SKIP unreadable file: running as root and cannot run the binary as nobody (setpriv), so chmod 000 is no test"
fi

# --- SQLite: a valid header, then bytes that are not a database
{ printf 'SQLite format 3\0'; head -c 4000 /dev/urandom | tr '\0' x; } >garbage.sqlite
run garbage.sqlite
expect garbage-sqlite "garbage.sqlite: the SQLite file is damaged or truncated" "nsys export --type sqlite"

# --- UTF-16 with an accent and a character outside the BMP
python3 - <<'EOF'
rows = [
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"',
    '"0","7","app","h","caf\u00e9_\U0001F680_kernel","1","7","(128, 1, 1)","(64, 1, 1)","0","9.0",'
    '"Command line profiler metrics","gpu__time_duration.sum","nsecond","1500"',
]
text = "\r\n".join(rows) + "\r\n"
open("utf16.csv", "wb").write(b"\xff\xfe" + text.encode("utf-16-le"))
EOF
set +e; timeout 20 "$bin" import utf16.csv --out u16 >out.txt 2>err.txt; rc=$?; set -e
[[ $rc -eq 0 ]] || fail "utf16: expected exit 0, got $rc: $(cat err.txt)"
grep -qF 'café_🚀_kernel' u16/kernels.json || fail "utf16: kernel name not decoded: $(cat u16/kernels.json)"
[[ -z $(find u16 -name '.llmpo-utf8-*') ]] || fail "utf16: the temporary UTF-8 copy was left in the output folder"
echo "ok"
