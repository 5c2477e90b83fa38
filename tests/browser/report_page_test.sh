#!/usr/bin/env bash
# report.html in a real browser (headless Chromium over the DevTools protocol,
# check_report.py): no uncaught exception, console error or failed load, the
# charts present, sorting, filtering and zooming work; hostile names neither
# break the page nor inject markup (checked in the browser and by parsing).
# Screenshots and the checker's reports are kept in ARTIFACTS (build tree).
#   report_page_test.sh BINARY SOURCE_DIR ARTIFACTS
set -euo pipefail
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

# 1. An ncu import with a region tree: every chart, tables sorted, filtered, icicle zoomed.
"$bin" import "$src/tests/fixtures/handmade/ncu_regions_kernel_replay.csv" --out regions >/dev/null ||
  fail "import regions"
page_check import-regions regions/report.html --chart regions --chart kernels --chart roofline --chart actions \
  --interact

# 2. Hostile names through an ncu import.
"$bin" import "$src/tests/fixtures/handmade/ncu_names_html.csv" --out hostile >/dev/null || fail "import hostile"
page_check import-hostile hostile/report.html --chart regions --chart kernels --chart roofline --chart actions \
  --interact
/usr/bin/python3 "$here/check_html_markup.py" hostile/report.html \
  "</script><script>window.__llmpo_injected=1</script>" '<img src=x onerror="window.__llmpo_injected=1">' \
  'bad\ufffd\ufffdutf8' || fail "hostile page markup"

# 3. A trace run: the timeline overview and the trace.json link; `report` rebuilds the same bytes.
FAKE_TRACE="$src/tests/fixtures/handmade/llmpo_trace_html_names.tsv" LLMPO_TRACER_LIBRARY=/bin/true \
  "$bin" trace hydra.run.dir=traced -- "$here/fake_traced_app.sh" >/dev/null 2>trace.err ||
  fail "trace run: $(cat trace.err)"
page_check trace-run traced/report.html --chart regions --chart kernels --chart roofline --chart actions \
  --chart timeline --interact
grep -q 'href="trace/trace.json"' traced/report.html || fail "no link to trace/trace.json"
cp traced/report.html first.html
"$bin" report traced >/dev/null 2>report.err || fail "report RUN_DIR: $(cat report.err)"
cmp -s first.html traced/report.html || fail "report RUN_DIR wrote different bytes"
echo "browser checks passed"
