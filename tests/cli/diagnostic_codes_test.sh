#!/usr/bin/env bash
# Every data-quality check is declared once, in src/model/diagnostic_codes.def
# (call sites name it as model::Diag::<code>, so an undeclared one does not
# compile); docs/diagnostics.md's table is the one generated from it; every
# warning code the tracer writes (X records) is declared as tracer_<code>.
#   diagnostic_codes_test.sh SOURCE_ROOT
set -euo pipefail
root=$1
python3 "$root/scripts/diagnostics_table.py" --check
python3 - "$root" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
declared = re.findall(r"^LLMPO_DIAGNOSTIC\((\w+),", (root / "src/model/diagnostic_codes.def").read_text(), re.M)
problems = []
if len(declared) != len(set(declared)):
    problems.append("a code is declared twice in diagnostic_codes.def")
tracer = set()
for path in (root / "tracer").rglob("*.cc"):
    tracer.update(re.findall(r"Line\((?:llmpo::)?trace_format::kWarning\)\.Add\(std::string_view\(\"([a-z_]+)\"\)", path.read_text()))
if not tracer:
    problems.append("found no X record in the tracer's sources: the scan is broken")
for code in sorted(tracer):
    if "tracer_" + code not in declared:
        problems.append(f"tracer_{code}: the tracer writes it, diagnostic_codes.def does not declare it")
for path in (root / "src").rglob("*.cc"):
    for line in path.read_text().splitlines():
        if re.search(r'\b(Add|AddLazy)\(\s*"[a-z_0-9]+"', line):
            problems.append(f"{path.relative_to(root)}: a check named by a string: {line.strip()}")
for p in problems:
    print("FAIL", p)
print(f"{len(declared)} declared, {len(tracer)} tracer codes")
sys.exit(1 if problems else 0)
PY
