#!/usr/bin/env python3
"""An archive of rank traces read member by member (docs/multirank.md, "Bounded memory"): each trace is an input of
its own, labelled ARCHIVE:MEMBER, and bad members or a failing archive lose nothing else.

Cases, on tars written here (hand-made, three ranks of a world of three):
- a member that is not JSON between two good ones: exit 0; three member sources, the bad one failed with a reason,
  the good ones' kernel times (recomputed here from the written durations) in kernels.json, and rank 1 reported
  missing (rank_missing) because its trace gave nothing;
- a .tar.gz whose second member inflates past the gzip limit (LLMPO_MAX_INFLATED_BYTES): exit 3 naming the limit,
  the first member's kernels kept, and the archive listed as a failed source of its own;
- an archive holding rank 0 in two traces (two profiling windows): read as one input, every trace's kernels
  added up, as before the members were inputs of their own, with a note saying why;
- a plain tar whose second member, a .json.gz, inflates past the gzip limit: exit 3, the first member kept and the
  third never read, as a read in turn stops at the refusal;
- an archive without any readable trace, or two rank files without an event: exit 3, the folder left as it was;
- a tar and a .tar.gz cut short inside their second member: the first whole, the second's kernels before the cut;
- an empty member and a hard link (read in place), and a .tar.gz member with megabytes after its JSON (the bytes
  the parse leaves count towards the archive's gzip limit).

Every case runs twice, `import -j 1` and `import -j 2` (members parsed by two threads while the archive is read,
docs/multirank.md): the two output folders must be byte for byte the same.

  archive_members_test.py BIN
"""
import filecmp
import gzip
import io
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def check_kept(doc, want_ms, what):
    """The kernel time of kernels.json's rows, against the durations written (ms)."""
    kept = sum(k["total_ms"] for k in doc["kernels"])
    check(abs(kept - want_ms) < 1e-9, f"{what}: {kept} == {want_ms} ms")


def trace(rank, durations_us):
    """A Kineto trace of one rank: a launch call and its kernel per duration."""
    events = []
    for i, dur in enumerate(durations_us):
        ts = 100 * i
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10 + rank, "tid": 1,
                       "ts": ts, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": f"k{i % 2}", "pid": 10 + rank, "tid": 7, "ts": ts + 3,
                       "dur": dur, "args": {"correlation": i + 1, "device": rank, "stream": 7}})
    info = {"backend": "nccl", "rank": rank, "world_size": 3}
    return json.dumps({"distributedInfo": info, "traceEvents": events}).encode()


def write_tar(path, members, mode="w"):
    with tarfile.open(path, mode) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def run(binary, args, env=None):
    r = subprocess.run([binary, *args[:1], "-j", str(JOBS), *args[1:]], capture_output=True, text=True, env=env)
    return r.returncode, r.stderr


JOBS = 1


def same_trees(a, b):
    """Paths under a and b whose bytes differ, or that only one has."""
    cmp = filecmp.dircmp(a, b)
    diffs = [str(a / n) for n in cmp.left_only + cmp.right_only]
    for name in cmp.common_files:
        if not filecmp.cmp(a / name, b / name, shallow=False):
            diffs.append(str(a / name))
    for name in cmp.common_dirs:
        diffs += same_trees(a / name, b / name)
    return diffs


def main():
    global JOBS
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for jobs in (1, 2):
            JOBS = jobs
            print(f"-- import -j {jobs}")
            cases(binary, tmp, tmp / f"j{jobs}")
        diffs = same_trees(tmp / "j1", tmp / "j2")
        check(not diffs, f"-j 1 and -j 2 write the same folders: {diffs}")
        print("ok: -j 1 and -j 2 write the same folders" if not diffs else "")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


def cases(binary, tmp, outs):
        outs.mkdir()
        good = {0: [10, 20, 30], 2: [5, 7]}
        archive = tmp / "ranks.tar"
        write_tar(archive, [("rank0.json", trace(0, good[0])), ("rank1.json", b"{not json at all"),
                            ("rank2.json", trace(2, good[2]))])
        out = outs / "out"
        rc, err = run(binary, ["import", str(archive), "--out", str(out)])
        check(rc == 0, f"a bad member: exit {rc} ({err})")
        doc = json.loads((out / "kernels.json").read_text())
        sources = {s["path"]: s for s in doc["sources"]}
        labels = [f"{archive}:rank{r}.json" for r in range(3)]
        check(sorted(sources) == labels, f"one source per member: {sorted(sources)}")
        bad = sources.get(labels[1], {})
        check(bad.get("status", "").startswith("failed") and "no event could be read" in bad.get("status", ""),
              f"the bad member is a failed source with its reason: {bad}")
        check(all(sources.get(l, {}).get("status") == "ok" for l in (labels[0], labels[2])), "the good members: ok")
        got = {}
        for k in doc["kernels"]:
            got[k["source"]] = got.get(k["source"], 0) + k["total_ms"]
        for rank, durations in good.items():
            want = sum(durations) / 1000  # us -> ms
            check(abs(got.get(labels[rank], -1) - want) < 1e-9, f"rank {rank}: {got.get(labels[rank])} == {want} ms")
        codes = [e["code"] for e in doc["diagnostics"]["entries"]]
        check("rank_missing" in codes and "kineto_json_error" in codes,
              f"rank 1 reported missing and its trace damaged: {codes}")
        print(f"ok: a bad member is a failed source; ranks 0 and 2 kept ({got})")

        bomb = tmp / "bomb.tar.gz"
        write_tar(bomb, [("rank0.json", trace(0, good[0])), ("rank1.json", b" " * (8 << 20))], "w:gz")
        out = outs / "out-bomb"
        env = dict(os.environ, LLMPO_MAX_INFLATED_BYTES=str(4 << 20))
        rc, err = run(binary, ["import", str(bomb), "--out", str(out)], env)
        check(rc == 3 and "LLMPO_MAX_INFLATED_BYTES" in err, f"a member past the gzip limit: exit {rc} ({err})")
        if (out / "kernels.json").is_file():
            doc = json.loads((out / "kernels.json").read_text())
            sources = {s["path"]: s["status"] for s in doc["sources"]}
            check(sources.get(f"{bomb}:rank0.json") == "ok", f"the member before the limit is kept: {sources}")
            check(sources.get(str(bomb), "").startswith("failed"), f"the archive is a failed source: {sources}")
            check_kept(doc, sum(good[0]) / 1000, "rank 0's kernels kept")
        else:
            check(False, "a member past the gzip limit: no kernels.json written for the members before it")
        print("ok: a member past the gzip limit fails the archive, and the member before it is kept")

        twice = tmp / "windows.tar"
        windows = {"rank0.step1.json": (0, [10, 20]), "rank0.step2.json": (0, [30]), "rank1.step1.json": (1, [5])}
        write_tar(twice, [(name, trace(rank, d)) for name, (rank, d) in windows.items()])
        out = outs / "out-twice"
        rc, err = run(binary, ["import", str(twice), "--out", str(out)])
        check(rc == 0, f"rank 0 in two traces: exit {rc} ({err})")
        if (out / "kernels.json").is_file():
            doc = json.loads((out / "kernels.json").read_text())
            check([s["path"] for s in doc["sources"]] == [str(twice)], f"read as one input: {doc['sources']}")
            kept = sum(k["total_ms"] for k in doc["kernels"])
            want = sum(sum(d) for _, d in windows.values()) / 1000
            check(abs(kept - want) < 1e-9, f"every window's kernels added up: {kept} == {want} ms")
            check(any("read as one input" in n for n in doc["diagnostics"]["notes"]), "a note says why")
        print("ok: an archive holding one rank in two traces is read as one input, every trace counted")

        empty = tmp / "nothing.tar"
        write_tar(empty, [("rank0.json", b'{"traceEvents": [{"ph": "X", "cat": "kern'), ("notes.txt", b"hello")])
        out = outs / "out-nothing"
        out.mkdir()
        (out / "kept.txt").write_text("an earlier import's\n")
        rc, err = run(binary, ["import", str(empty), "--out", str(out)])
        check(rc == 3 and "without a readable Kineto trace" in err, f"no readable trace: exit {rc} ({err})")
        check((out / "kept.txt").is_file() and not (out / "kernels.json").exists(),
              f"no readable trace: the folder is left as it was ({sorted(p.name for p in out.iterdir())})")
        print("ok: an archive without a readable trace: exit 3, the folder left as it was")
        # The same rule for rank files, which take the pooled path too: two damaged ranks, nothing read.
        bad = [tmp / "rank0.json", tmp / "rank1.json"]
        for path in bad:
            path.write_bytes(b'{"traceEvents": [{"ph": "X", "cat": "kern')
        out = outs / "out-bad-files"
        out.mkdir()
        (out / "kept.txt").write_text("an earlier import's\n")
        rc, err = run(binary, ["import", *map(str, bad), "--out", str(out)])
        check(rc == 3, f"two rank files without an event: exit {rc} ({err})")
        check((out / "kept.txt").is_file() and not (out / "kernels.json").exists(),
              f"two rank files without an event: the folder is left as it was "
              f"({sorted(p.name for p in out.iterdir())})")
        print("ok: rank files that all fail before their first row: exit 3, the folder left as it was")

        # A gzip member past the limit inside a plain tar: the member itself is refused; the one after it is never
        # read (with -j 2 it may have been parsed already, and is dropped).
        inner = tmp / "inner-bomb.tar"
        write_tar(inner, [("rank0.json.gz", gzip.compress(trace(0, good[0]))),
                          ("rank1.json.gz", gzip.compress(b" " * (8 << 20))),
                          ("rank2.json.gz", gzip.compress(trace(2, good[2]))),
                          ("notes.txt", b"not a trace: noted with -j 1 only if read")])
        out = outs / "out-inner-bomb"
        env = dict(os.environ, LLMPO_MAX_INFLATED_BYTES=str(4 << 20))
        rc, err = run(binary, ["import", str(inner), "--out", str(out)], env)
        check(rc == 3 and "rank1.json.gz" in err and "LLMPO_MAX_INFLATED_BYTES" in err,
              f"a gzip member past the limit: exit {rc} ({err})")
        if (out / "kernels.json").is_file():
            doc = json.loads((out / "kernels.json").read_text())
            sources = {s["path"]: s["status"] for s in doc["sources"]}
            check(sources.get(f"{inner}:rank0.json.gz") == "ok", f"the member before it is kept: {sources}")
            check(f"{inner}:rank2.json.gz" not in sources, f"the member after it is not read: {sources}")
            check(not any("notes.txt" in n for n in doc["diagnostics"]["notes"]),
                  f"no note about a member after it: {doc['diagnostics']['notes']}")
            check_kept(doc, sum(good[0]) / 1000, "only rank 0's kernels")
        else:
            check(False, "a gzip member past the limit: no kernels.json for the member before it")
        print("ok: a gzip member past the limit stops the archive there")

        # An empty member and a hard link (stored size 0) before a good one: read in place, never handed over.
        odd = tmp / "odd.tar"
        with tarfile.open(odd, "w") as tar:
            tar.addfile(tarfile.TarInfo("rank1.json"), io.BytesIO(b""))
            link = tarfile.TarInfo("again.json")
            link.type, link.linkname = tarfile.LNKTYPE, "rank1.json"
            tar.addfile(link)
            data = trace(0, good[0])
            info = tarfile.TarInfo("rank0.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        out = outs / "out-odd"
        rc, err = run(binary, ["import", str(odd), "--out", str(out)])
        check(rc == 0, f"an empty member and a hard link: exit {rc} ({err})")
        if (out / "kernels.json").is_file():
            check_kept(json.loads((out / "kernels.json").read_text()), sum(good[0]) / 1000,
                       "an empty member and a hard link: rank 0 kept")
        print("ok: an empty member and a hard link are read in place; the good member is kept")

        # A .tar.gz member whose JSON ends early, followed by megabytes of other bytes: what the parse leaves is
        # read too, so the archive's gzip limit stops it there whether it is parsed in place or later.
        tail = tmp / "tail.tar.gz"
        write_tar(tail, [("rank0.json", trace(0, good[0])), ("rank1.json", trace(1, [3]) + b"x" * (8 << 20)),
                         ("rank2.json", trace(2, good[2]))], "w:gz")
        out = outs / "out-tail"
        rc, err = run(binary, ["import", str(tail), "--out", str(out)], env)
        check(rc == 3 and "LLMPO_MAX_INFLATED_BYTES" in err, f"bytes after a member's JSON past the limit: exit {rc} "
                                                               f"({err})")
        print("ok: bytes after a member's JSON count towards the archive's gzip limit")

        # An archive cut short inside its second member, plain and gzipped: the first member whole, the second's
        # events before the cut (read in the same 64 KiB pieces whether parsed in place or later), the third gone.
        many = {rank: [1 + i % 50 for i in range(3000)] for rank in range(3)}
        members = [(f"rank{r}.json", trace(r, d)) for r, d in many.items()]
        whole = tmp / "whole.tar"
        write_tar(whole, members)
        cut_at = 512 + len(members[0][1]) + 1024 + len(members[1][1]) // 2  # headers are 512 bytes, data padded
        for name, mode in (("cut.tar", None), ("cut.tar.gz", "gz")):
            cut = tmp / name
            data = whole.read_bytes()[:cut_at]
            cut.write_bytes(gzip.compress(data) if mode else data)
            out = outs / f"out-{name}"
            rc, err = run(binary, ["import", str(cut), "--out", str(out)])
            check(rc == 0, f"{name}: exit {rc} ({err})")
            if not (out / "kernels.json").is_file():
                check(False, f"{name}: no kernels.json")
                continue
            doc = json.loads((out / "kernels.json").read_text())
            calls = {}
            for k in doc["kernels"]:
                calls[k["source"]] = calls.get(k["source"], 0) + k["calls"]
            check(calls.get(f"{cut}:rank0.json") == 3000, f"{name}: the first member whole: {calls}")
            second = calls.get(f"{cut}:rank1.json", 0)
            check(0 < second < 3000, f"{name}: the cut member's kernels before the cut: {calls}")
            check(f"{cut}:rank2.json" not in calls, f"{name}: nothing of the member past the cut: {calls}")
            print(f"ok: {name}, cut in its second member: rank 0 whole, {second} of rank 1's 3000 kernels")


if __name__ == "__main__":
    sys.exit(main())
