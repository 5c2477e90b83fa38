#!/usr/bin/env bash
# report.html's Phases section in a real browser (headless Chromium,
# check_report.py): hand-made traces (tests/fixtures/handmade/phases) give a
# page with the phase split bar and the per-step series, loaded without an
# exception, console error or failed load; the warm-up step is drawn apart
# (class "warmup") and the split bar's widths are the shares kernels.json
# gives; a trace with CUDA graph launches gets the graph table.
#   phases_page_test.sh BINARY SOURCE_DIR ARTIFACTS
set -euo pipefail
source "$(dirname "$0")/browser_lib.sh"
hand="$src/tests/fixtures/handmade/phases"

"$bin" import "$hand/workload_steps.json" --out steps >/dev/null 2>steps.err || fail "import: $(cat steps.err)"
page_check phases-steps steps/report.html --chart phase-split --chart phase-steps
/usr/bin/python3 - steps/report.html steps/kernels.json <<'PY' || fail "phases-steps: markup against kernels.json"
import json, re, sys
page = open(sys.argv[1]).read()
phases = json.load(open(sys.argv[2]))["phases"]
warm = [s for s in phases["steps"] if s["warmup"]]
drawn = re.findall(r'<rect class="step warmup"', page)
assert len(warm) == 1 and len(drawn) == 1, (warm, drawn)
widths = {m.group(1): float(m.group(2)) for m in re.finditer(
    r'<rect class="phase" data-phase="(\w+)" x="[0-9.]+" y="0" width="([0-9.]+)"', page)}
for p in phases["phases"]:
    assert abs(widths[p["phase"]] - 800 * p["share_pct"] / 100) < 0.01, (p, widths)
print("phases-steps: warm-up step drawn apart, split widths match kernels.json")
PY

"$bin" import "$hand/config_steps.json" --out graphs --set 'analysis.phases.prefill=[ctx_.*]' \
  --set 'analysis.phases.decode=[gen_.*]' >/dev/null 2>graphs.err || fail "import graphs: $(cat graphs.err)"
page_check phases-graphs graphs/report.html --chart phase-split --chart phase-steps
grep -q 'id="phase-graphs"' graphs/report.html || fail "phases-graphs: no graph table"
echo "phases page: ok"
