#!/usr/bin/env bash
# report.html in a real browser (headless Chromium over the DevTools protocol,
# check_report.py): no uncaught exception, console error or failed load, the
# charts present, sorting, filtering and zooming work; hostile names neither
# break the page nor inject markup (checked in the browser and by parsing).
# Screenshots and the checker's reports are kept in ARTIFACTS (build tree).
#   report_page_test.sh BINARY SOURCE_DIR ARTIFACTS
set -euo pipefail
source "$(dirname "$0")/browser_lib.sh"

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
# 4. A real ncu raw page (shared fixture, when present): the roofline has one
# point per kernel and precision whose DRAM intensity kernels.json gives, the
# category shares add up to 100 %, and the ranked actions are drawn.
raw="$src/../shared/fixtures/ncu-csv/sglang-h200/raw.csv"
if [[ -f $raw ]]; then
  "$bin" import "$raw" --out raw >/dev/null 2>&1 || fail "import the sglang raw page"
  page_check sglang-raw raw/report.html --chart kernels --chart roofline --chart actions --section ncu-table --ncu-table
  /usr/bin/python3 - raw <<'PY' || fail "sglang raw page: roofline, categories, actions"
import json, re, sys
html = open(f"{sys.argv[1]}/report.html", encoding="utf-8").read()
kernels = json.load(open(f"{sys.argv[1]}/kernels.json"))["kernels"]
want = sum(1 for k in kernels for p in (k.get("roofline") or {}).get("precisions", [])
           for level in p["levels"] if level["level"] == "DRAM" and (level["intensity"] or 0) > 0
           and (p["achieved_per_s"] or 0) > 0)
points = html.count('class="point"')
assert want > 0 and points == want, (points, want)
shares = [float(x) for x in re.findall(r'<td class="num">([0-9.]+) %</td></tr>', html.split('class="categories"')[1].split("</table>")[0])]
assert abs(sum(shares) - 100) < 0.6, shares
assert html.count('<li data-kind="kernel"><b title=') >= 1, "no ranked kernel action"
PY
  echo "sglang-raw: roofline $(grep -c 'class="point"' raw/report.html) points"
else
  echo "sglang-raw: skipped (no ../shared/fixtures)"
fi
# 5. The per-kernel ncu table (sorted, filtered) and the ranked list from an
# .ncu-rep; the GPU breakdown per rank from the 8-rank DLRM archive (shared
# fixtures, when present).
rep="$src/../shared/fixtures/ncu-rep/cuda-mlp-inference-2024.2-full.ncu-rep"
if [[ -f $rep ]]; then
  "$bin" import "$rep" --out ncurep >/dev/null 2>&1 || fail "import the .ncu-rep"
  page_check ncu-rep ncurep/report.html --chart actions --section ncu-table --ncu-table
  # ncu's rule texts carry web addresses: links in the ranked list, opening a new tab.
  grep -q '<a href="https://[^"]*" target="_blank" rel="noopener noreferrer">' ncurep/report.html ||
    fail "ncu-rep: no link in the rule texts"
else
  echo "ncu-rep: skipped (no ../shared/fixtures)"
fi
dlrm="$src/../shared/fixtures/kineto/param-dlrm-8ranks.tar.gz"
if [[ -f $dlrm ]]; then
  "$bin" import "$dlrm" --out dlrm >/dev/null 2>&1 || fail "import the DLRM archive"
  page_check dlrm dlrm/report.html --chart actions --chart timeline --section gpu-breakdown --interact
else
  echo "dlrm: skipped (no ../shared/fixtures)"
fi
# 6. A timeline's per-device rules in the ranked list (the vLLM eager trace, when present).
vllm="$src/../shared/fixtures/kineto/tracelens-b200-vllm-eager-rank0.json.gz"
if [[ -f $vllm ]]; then
  "$bin" import "$vllm" --out vllm >/dev/null 2>&1 || fail "import the vLLM trace"
  page_check vllm vllm/report.html --chart actions --chart timeline --interact
  grep -q '<li data-kind="timeline"><b title="idle_host_wait">' vllm/report.html ||
    fail "vllm: idle_host_wait not in the ranked list"
else
  echo "vllm: skipped (no ../shared/fixtures)"
fi
echo "browser checks passed"
