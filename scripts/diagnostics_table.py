#!/usr/bin/env python3
"""Prints docs/diagnostics.md's table of data-quality checks from
src/model/diagnostic_codes.def, the one place they are declared.

  python3 scripts/diagnostics_table.py            # the table
  python3 scripts/diagnostics_table.py --check    # exit 1 when the docs' table differs
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEVERITY = {"kInfo": "info", "kWarning": "warning", "kDataLoss": "data_loss"}


def declared():
    text = (ROOT / "src/model/diagnostic_codes.def").read_text()
    rows = []
    for m in re.finditer(r'^LLMPO_DIAGNOSTIC\((\w+), (k\w+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)', text, re.M):
        meaning = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(3))).replace('\\"', '"')
        rows.append((m.group(1), SEVERITY[m.group(2)], meaning))
    return rows


def table(rows):
    lines = ["| code | severity | meaning |", "|---|---|---|"]
    lines += [f"| `{code}` | {severity} | {meaning} |" for code, severity, meaning in rows]
    return "\n".join(lines) + "\n"


def main():
    rows = declared()
    if len(rows) < 25:
        sys.exit(f"found only {len(rows)} checks in diagnostic_codes.def: the parser is broken")
    want = table(rows)
    if "--check" not in sys.argv:
        sys.stdout.write(want)
        return
    docs = (ROOT / "docs/diagnostics.md").read_text()
    if want not in docs:
        got = "\n".join(l for l in docs.splitlines() if l.startswith("|"))
        import difflib
        sys.stdout.writelines(difflib.unified_diff(got.splitlines(True), want.splitlines(True), "docs", "declared"))
        sys.exit("docs/diagnostics.md's table is not the declared one: regenerate it with "
                 "python3 scripts/diagnostics_table.py")
    print(f"{len(rows)} checks declared and documented")


main()
