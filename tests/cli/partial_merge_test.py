#!/usr/bin/env python3
"""import --partial, merge and import -j against one import of every input:
the same report files byte for byte, whatever the grouping of the partials
(partials of partials too); and the refusals and reports of bad sets.

Runs on hand-made ranks (tests/fixtures/handmade/kineto_rank3.json with
its rank rewritten) and, when ../shared/fixtures is there, on every shared
multi-rank Kineto set (param-dlrm-8ranks.tar.gz, hta-ddp-*).

  partial_merge_test.py BINARY SOURCE_ROOT [shared]
(with `shared`: the shared fixtures only; exit 77 when they are absent)
"""
import filecmp
import glob
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

from checks import same_folders

BIN = sys.argv[1]
ROOT = pathlib.Path(sys.argv[2]).resolve()
FIXTURES = ROOT.parent / "shared" / "fixtures" / "kineto"


def run(*args, ok=True):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def check_identity(files, d, name, groups):
    """Whole import (--read-whole: every input kept until the reports) == merge of partials grouped as `groups` (merged right to
    left through a partial of partials) == import -j 2."""
    run("import", "--read-whole", *files, "--out", f"{d}/{name}-whole")
    parts = []
    for i, g in enumerate(groups):
        part = f"{d}/{name}-p{i}.json"
        run("import", "--partial", part, "-j", "2", *[files[k] for k in g])
        parts.append(part)
    rest = parts[-1]
    if len(parts) > 2:  # a partial of partials
        rest = f"{d}/{name}-rest.json"
        run("merge", *parts[1:], "--partial", rest)
    run("merge", parts[0], rest, "--out", f"{d}/{name}-merged")
    n = same_folders(f"{d}/{name}-whole", f"{d}/{name}-merged")
    run("import", "-j", "2", *files, "--out", f"{d}/{name}-pooled")
    same_folders(f"{d}/{name}-whole", f"{d}/{name}-pooled")
    # The shell-loop recipe: one partial per file, merged at once.
    singles = []
    for k, f in enumerate(files):
        singles.append(f"{d}/{name}-s{k}.json")
        run("import", "--partial", singles[-1], f)
    run("merge", *singles, "--out", f"{d}/{name}-loop")
    same_folders(f"{d}/{name}-whole", f"{d}/{name}-loop")
    print(f"ok: {name}: {len(files)} input(s), {n} report file(s) identical (whole, merge of {len(groups)} "
          f"partial(s), import -j 2, one partial per file)")


def handmade(d):
    text = (ROOT / "tests/fixtures/handmade/kineto_rank3.json").read_text()
    files = []
    for rank in range(4):
        p = f"{d}/rank{rank}.json"
        pathlib.Path(p).write_text(text.replace('"rank": 3', f'"rank": {rank}'))
        files.append(p)
    check_identity(files, d, "handmade", [[0], [1, 2], [3]])
    # Ten ranks without a graph launch: their kernels are reduced per step
    # in the partials (phases.digest), and with -j 2 more inputs than the
    # pool lets wait at once.
    plain = text.replace("cudaGraphLaunch", "cudaLaunchKernel").replace('"world_size": 4', '"world_size": 10')
    ten = []
    for rank in range(10):
        p = f"{d}/plain{rank}.json"
        pathlib.Path(p).write_text(plain.replace('"rank": 3', f'"rank": {rank}'))
        ten.append(p)
    check_identity(ten, d, "digested", [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]])
    phases = json.load(open(f"{d}/digested-p0.json"))["phases"]
    assert not phases["kernels"] and len(phases["digest"]["steps"]) == 3, phases
    return files


def bad_sets(d, files):
    def refused(args, *words):
        r = run(*args, ok=False)
        assert r.returncode == 3, f"{args}: exit {r.returncode}, want 3 (input error): {r.stderr}"
        for w in words:
            assert w in r.stderr, f"{args}: '{w}' not in: {r.stderr}"

    run("import", "--partial", f"{d}/a.json", files[0], files[1])
    run("import", "--partial", f"{d}/b.json", files[2])
    # The same partial twice: its inputs twice.
    refused(["merge", f"{d}/a.json", f"{d}/a.json", "--out", f"{d}/x"], "in both", f"{d}/a.json")
    # One rank in two files (a copy of rank 0 under another name).
    dup = f"{d}/again-rank0.json"
    pathlib.Path(dup).write_text(pathlib.Path(files[0]).read_text())
    run("import", "--partial", f"{d}/dup.json", dup)
    refused(["merge", f"{d}/a.json", f"{d}/dup.json", "--out", f"{d}/x"], "rank 0 is claimed twice", files[0], dup)
    # Ranks of another world size.
    other = f"{d}/world8-rank5.json"
    pathlib.Path(other).write_text(pathlib.Path(files[0]).read_text().replace('"rank": 0', '"rank": 5')
                                   .replace('"world_size": 4', '"world_size": 8'))
    run("import", "--partial", f"{d}/w8.json", other)
    refused(["merge", f"{d}/a.json", f"{d}/w8.json", "--out", f"{d}/x"], "world size is 4", "says 8", other)
    # Another job.
    run("import", "--partial", f"{d}/job1.json", "--job", "one", files[2])
    run("import", "--partial", f"{d}/job2.json", "--job", "two", files[3])
    refused(["merge", f"{d}/job1.json", f"{d}/job2.json", "--out", f"{d}/x"], 'job "one"', 'job "two"',
            f"{d}/job2.json")
    # Another schema: a report set, and a partial of another major version.
    run("import", files[0], "--out", f"{d}/rs")
    refused(["merge", f"{d}/a.json", f"{d}/rs/report_set.json", "--out", f"{d}/x"], "not a partial result",
            "report_set.json")
    v2 = json.load(open(f"{d}/b.json"))
    v2["schema_version"] = "2.0.0"
    json.dump(v2, open(f"{d}/v2.json", "w"))
    refused(["merge", f"{d}/a.json", f"{d}/v2.json", "--out", f"{d}/x"], "2.0.0", f"{d}/v2.json")
    assert not os.path.exists(f"{d}/x"), "a refused merge wrote its output folder"
    # A missing rank is reported: on stderr, and in the reports' diagnostics.
    r = run("merge", f"{d}/a.json", f"{d}/b.json", "--out", f"{d}/gap")
    assert "rank_missing" in r.stderr and "rank(s) 3" in r.stderr, r.stderr
    entries = json.load(open(f"{d}/gap/kernels.json"))["diagnostics"]["entries"]
    assert any(e["code"] == "rank_missing" and "rank(s) 3" in e["first_example"] for e in entries), entries
    # A rank file that does not parse is listed; the others are kept.
    broken = f"{d}/rank3-broken.json"
    pathlib.Path(broken).write_text('{"traceEvents": [ {"ph": "X", "name": ')
    r = run("import", "--partial", f"{d}/withbad.json", files[0], broken, files[2], ok=False)
    assert r.returncode == 3 and "rank3-broken.json" in r.stderr, (r.returncode, r.stderr)
    part = json.load(open(f"{d}/withbad.json"))
    status = {s["path"]: s["failure"] for s in part["sources"]}
    assert status[files[0]] is None and status[files[2]] is None and status[broken], status
    r = run("merge", f"{d}/withbad.json", "--out", f"{d}/withbad")
    assert "rank3-broken.json" in r.stderr and "rank(s) 1, 3" in r.stderr, r.stderr
    ranks = [x["process"] for x in json.load(open(f"{d}/withbad/gpu_breakdown.json"))["devices"]]
    assert ranks == ["rank 0", "rank 2"], ranks
    print("ok: refusals (same input, same rank, world size, job, schema, version), missing and broken ranks")


def archive_as_its_members(d):
    """The archive's traces are inputs of their own: importing it gives the reports of its members imported as files
    in the archive's order, but for the labels ("ARCHIVE:MEMBER" against the file's path); the JSON reports, which
    hold every number and message whole, are compared. --read-whole (every member kept) gives the same folder."""
    archive = FIXTURES / "param-dlrm-8ranks.tar.gz"
    with tarfile.open(archive) as tar:
        members = [m.name for m in tar.getmembers() if m.isfile()]
    run("import", str(archive), "--out", f"{d}/archive")
    run("import", "--read-whole", str(archive), "--out", f"{d}/archive-whole")
    same_folders(f"{d}/archive", f"{d}/archive-whole")
    run("import", *[f"{d}/{m}" for m in members], "--out", f"{d}/members")
    compared = 0
    for a in sorted(pathlib.Path(f"{d}/archive").rglob("*.json")):
        rel = a.relative_to(f"{d}/archive")
        b = pathlib.Path(f"{d}/members") / rel
        assert b.is_file(), f"archive: {rel} has no counterpart among the members' reports"
        text = a.read_text().replace(f"{archive}:", f"{d}/")
        assert text == b.read_text(), f"archive: {rel} differs from the members' (labels aside)"
        compared += 1
    wanted = sorted(str(p.relative_to(f"{d}/members")) for p in pathlib.Path(f"{d}/members").rglob("*.json"))
    got = sorted(str(p.relative_to(f"{d}/archive")) for p in pathlib.Path(f"{d}/archive").rglob("*.json"))
    assert got == wanted, "archive and members: different JSON reports"
    print(f"ok: the archive gives its {len(members)} members' reports ({compared} JSON files, labels aside); "
          f"--read-whole the same")


def shared(d):
    if not FIXTURES.is_dir():
        print(f"skip: {FIXTURES} is absent (shared multi-rank fixtures)")
        return False
    with tarfile.open(FIXTURES / "param-dlrm-8ranks.tar.gz") as tar:
        try:
            tar.extractall(d, filter="data")
        except TypeError:  # Debian 12's Python 3.11.2 predates extraction filters; the archive is a shared fixture
            tar.extractall(d)
    dlrm = sorted(glob.glob(f"{d}/dlrm_kineto/*.json"))
    assert len(dlrm) == 8, dlrm
    check_identity(dlrm, d, "dlrm", [[0, 1, 2], [3, 4, 5], [6, 7]])
    archive_as_its_members(d)
    for f in sorted(FIXTURES.glob("hta-ddp-*")):
        run("import", str(f), "--out", f"{d}/ddp-whole")
        run("import", "--partial", f"{d}/ddp.json", str(f))
        r = run("merge", f"{d}/ddp.json", "--out", f"{d}/ddp-merged")
        # Rank 0 of 2: rank 1 is reported missing, and that note is the only difference.
        assert "rank_missing" in r.stderr and "rank(s) 1" in r.stderr, r.stderr
        names = lambda p: sorted(str(x.relative_to(p)) for x in pathlib.Path(p).rglob("*") if x.is_file())
        assert names(f"{d}/ddp-whole") == names(f"{d}/ddp-merged")
        for name in ("gpu_breakdown.json", "gpu_breakdown.md"):
            assert filecmp.cmp(f"{d}/ddp-whole/{name}", f"{d}/ddp-merged/{name}", shallow=False), name
        whole = json.load(open(f"{d}/ddp-whole/kernels.json"))
        merged = json.load(open(f"{d}/ddp-merged/kernels.json"))
        merged["diagnostics"]["entries"] = [e for e in merged["diagnostics"]["entries"] if e["code"] != "rank_missing"]
        merged["diagnostics"]["rows_skipped"] = whole["diagnostics"]["rows_skipped"]
        assert whole == merged, "hta-ddp: kernels.json differs beyond the rank_missing entry"
        print(f"ok: {f.name}: merged equals the import but for rank 1 reported missing")
    return True


with tempfile.TemporaryDirectory() as d:
    if sys.argv[3:] == ["shared"]:
        sys.exit(0 if shared(d) else 77)
    bad_sets(d, handmade(d))
