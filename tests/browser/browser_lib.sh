# Shared by the page tests (report_page_test.sh, compare_page_test.sh):
# sourced after `set -euo pipefail` with the test's "BINARY SOURCE_DIR
# ARTIFACTS" arguments. Sets bin, src, here, art, chromium and a work
# folder (the current directory, removed at exit); skips (exit 77) without
# Chromium or python3-websocket; defines fail and page_check.
bin=$(realpath "$1"); src=$(realpath "$2"); art=$3
here="$src/tests/browser"
chromium=$(command -v chromium || true)
if [[ -z $chromium ]]; then echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"; exit 77; fi
if ! /usr/bin/python3 -c 'import websocket' 2>/dev/null; then
  echo "SKIP: python3-websocket is not installed (scripts/setup.sh installs it)"; exit 77
fi
mkdir -p "$art"; art=$(realpath "$art")
work=$(mktemp -d "$art/work.XXXXXX"); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

page_check() {  # name page [check_report args...]
  local name=$1 page=$2; shift 2
  /usr/bin/python3 "$here/check_report.py" --chromium "$chromium" --profile-dir "$work/profile-$name" \
    --screenshot "$art/$name.png" "$@" "$page" >"$art/$name.json" ||
    fail "$name: $(cat "$art/$name.json") $(tail -5 "$work/profile-$name/chromium.log" 2>/dev/null)"
  echo "$name: ok (screenshot $art/$name.png)"
}
