#!/usr/bin/env bash
# sweep.html in a real browser (headless Chromium, check_report.py
# --no-script): a two-key profile sweep with the fake ncu (tests/cli/
# fake_tools) loads without an exception, console error or failed load;
# it has a line chart per charted quantity and key and a heatmap per
# quantity, as many as sweep.json's quantities with values say, and one
# table row per point; a swept value holding markup stays text.
#   sweep_page_test.sh BINARY SOURCE_DIR ARTIFACTS
set -euo pipefail
source "$(dirname "$0")/browser_lib.sh"

fakes="$src/tests/cli/fake_tools"
nosight=$(bash "$src/tests/path_without_nsight.sh" "$work")
hostile='<img src=x onerror="window.__llmpo_injected=1">'
PATH="$fakes:$nosight" "$bin" profile -m hydra.sweep.dir=sw pipeline.ncu.enable=true \
  'pipeline.step_timeout_s=60,120' "++tag=choice('$hostile',plain)" -- /bin/true >sweep.out 2>sweep.err ||
  fail "the sweep: $(cat sweep.out sweep.err)"
page_check sweep sw/sweep.html --no-script --chart sweep-line --chart sweep-heatmap
/usr/bin/python3 - "$art/sweep.json" sw/sweep.json <<'PY' || fail "sweep page: charts or rows"
import json, sys
seen = json.load(open(sys.argv[1]))
sweep = json.load(open(sys.argv[2]))
charted = [q["id"] for q in sweep["quantities"]
           if any(p["quantities"][q["id"]] is not None for p in sweep["points"])]
charts = seen["structure"]["charts"]
assert charted, sweep["quantities"]
assert charts.count("sweep-line") == 2 * len(charted), (charts, charted)
assert charts.count("sweep-heatmap") == len(charted), (charts, charted)
assert len(sweep["points"]) == 4 and all(p["status"] == "ok" for p in sweep["points"]), sweep["points"]
PY
grep -qF '&lt;img src=x onerror=&quot;window.__llmpo_injected=1&quot;&gt;' sw/sweep.html ||
  fail "the hostile swept value is not on the page, escaped"
echo "sweep page checks passed"
