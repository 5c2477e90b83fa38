#!/usr/bin/env bash
# Every data-quality code the sources use is declared once in
# src/model/diagnostic_codes.cc, and every declared code is listed in
# docs/diagnostics.md with the same severity.
#   diagnostic_codes_test.sh SOURCE_ROOT
set -euo pipefail
root=$1
python3 - "$root" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
table = (root / "src/model/diagnostic_codes.cc").read_text()
declared = dict(re.findall(r'\{"([a-z_]+)", k(Info|Warning|DataLoss),', table))
severity = {"Info": "info", "Warning": "warning", "DataLoss": "data_loss"}
problems = []
if len(re.findall(r'\{"([a-z_]+)", k(?:Info|Warning|DataLoss),', table)) != len(declared):
    problems.append("a code is declared twice in diagnostic_codes.cc")
used = set()
call = re.compile(r'(?:\bAdd|\bAddLazy|\bLoss)\(\s*(?:[^;()]*\?\s*)?"([a-z_]+)"(?:\s*:\s*"([a-z_]+)")?')
for path in (root / "src").rglob("*.cc"):
    if path.name == "diagnostic_codes.cc":
        continue
    for m in call.finditer(path.read_text()):
        used.update(c for c in m.groups() if c and not c.endswith("_"))  # "tracer_" + code: a prefix
for path in (root / "tracer").rglob("*.cc"):  # the tracer's X records arrive as tracer_<code>
    used.update("tracer_" + c for c in re.findall(r"Line\('X'\)\.Add\(std::string_view\(\"([a-z_]+)\"\)", path.read_text()))
if len(used) < 25:
    problems.append(f"found only {len(used)} codes in the sources: the scan is broken")
for code in sorted(used - set(declared)):
    problems.append(f"{code}: used in the sources, not declared in src/model/diagnostic_codes.cc")
docs = dict(re.findall(r"^\| `([a-z_]+)` \| (\w+) \|", (root / "docs/diagnostics.md").read_text(), re.M))
for code, sev in declared.items():
    if docs.get(code) != severity[sev]:
        problems.append(f"{code}: docs/diagnostics.md says {docs.get(code)}, diagnostic_codes.cc says {severity[sev]}")
for code in sorted(set(docs) - set(declared)):
    problems.append(f"{code}: listed in docs/diagnostics.md, not declared")
for p in problems:
    print("FAIL", p)
print(f"{len(used)} codes used, {len(declared)} declared, {len(docs)} documented")
sys.exit(1 if problems else 0)
PY
