#!/usr/bin/env bash
# A tar.gz of rank traces, plain and gzip members, one import: every rank is
# a scope of its own, and a member cut short is reported with the ranks
# before it kept. Built from the hand-made rank (tests/fixtures/handmade).
#   kineto_archive_test.sh BINARY SOURCE_ROOT
set -euo pipefail
bin=$1
root=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$root/tests/fixtures/handmade/kineto_rank3.json" "$dir" <<'PY'
import gzip, io, sys, tarfile
text = open(sys.argv[1]).read()
def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
with tarfile.open(f"{sys.argv[2]}/ranks.tar.gz", "w:gz") as tar:
    for rank in (1, 0, 2):  # a gzip member first: detected by its name
        body = text.replace('"rank": 3', f'"rank": {rank}').encode()
        add(tar, f"job/rank{rank}.json.gz" if rank % 2 else f"job/rank{rank}.json", gzip.compress(body) if rank % 2 else body)
    add(tar, "job/README.txt", b"not a trace")
with tarfile.open(f"{sys.argv[2]}/cut.tar.gz", "w:gz") as tar:
    add(tar, "rank0.json", text.encode())
    add(tar, "rank1.json.gz", gzip.compress(text.replace('"rank": 3', '"rank": 1').encode())[:300])
PY
"$bin" import "$dir/ranks.tar.gz" --out "$dir/o" >/dev/null
"$bin" import "$dir/cut.tar.gz" --out "$dir/c" >/dev/null
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
devices = json.load(open(f"{d}/o/gpu_breakdown.json"))["devices"]
assert [x["process"] for x in devices] == ["rank 0", "rank 1", "rank 2"], devices
assert all(x["kernels"] == 4 and x["busy_ms"] == 0.0205 for x in devices), devices
notes = json.load(open(f"{d}/o/kernels.json"))["diagnostics"]["notes"]
assert any("README.txt" in n for n in notes), notes
cut = json.load(open(f"{d}/c/kernels.json"))["diagnostics"]
entry = [e for e in cut["entries"] if e["code"] == "kineto_json_error"]
assert entry and "cut short" in entry[0]["first_example"], cut
assert "rank 3" in [x["process"] for x in json.load(open(f"{d}/c/gpu_breakdown.json"))["devices"]]
print("ok")
PY
