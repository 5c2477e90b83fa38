#!/usr/bin/env python3
"""Communication kernels in kernels.md and gpu_breakdown.md tell one story:
the breakdown keeps HTA's name rule, and names (with why) every kernel whose
kernels.md category stands for another class. The differences are recomputed
here from the traces' kernel names with both rules written out:

- vLLM eager (one rank): multimem_all_reduce is communication by kernels.md's
  pattern, computation by HTA's rule: listed;
- the 8-rank DLRM archive: its NCCL kernels are communication by both rules:
  no section.
Skips (exit 77) when the fixtures are absent.
"""
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

from checks import hta_class

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures", "kineto")
COMM = re.compile(r"nccl|all_?reduce|allgather|reduce_scatter|all2all|alltoall|cross_device_reduce")
COPY = re.compile(r"^\[CUDA mem(cpy|set)|^Memcpy |^Memset ")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)



def category_class(n):  # the default category rules' communication and copy patterns
    return "communication" if COMM.search(n) else "memory" if COPY.search(n) else "computation"


def kernel_names(events):
    return {e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"}


def breakdown_md(tmp, name, path):
    out = os.path.join(tmp, name)
    subprocess.run([BIN, "import", path, "--out", out], capture_output=True, check=True)
    with open(os.path.join(out, "gpu_breakdown.md")) as f, open(os.path.join(out, "report.html")) as g:
        return f.read(), g.read()


def expect(name, outputs, names):
    md, page = outputs
    differ = sorted(n for n in names if hta_class(n) != category_class(n))
    has_section = "## Kernels classed differently from kernels.md" in md
    check(has_section == bool(differ), f"{name}: section present exactly when {len(differ)} name(s) differ")
    if differ:
        check(f"{len(differ)} kernel name(s) fall in a different class" in md, f"{name}: the count {len(differ)}")
        lines = [l for l in md.splitlines() if l.startswith("- `")]
        for n in differ[:10]:
            want = f"kernels.md {category_class(n)}, here {hta_class(n)}: HTA"
            # Names are cut at 100 characters in the line.
            hit = [l for l in lines if n[:90] in l]
            check(len(hit) == 1 and want in hit[0], f"{name}: one line for {n[:60]} saying '{want}'")
    items = re.search(r'<ul id="class-differences">(.*?)</ul>', page, re.S)
    count = items.group(1).count("<li>") if items else 0
    check(count == min(len(differ), 10) + (len(differ) > 10), f"{name}: the page lists {count} of {len(differ)}")
    print(f"{name}: {len(names)} kernel names, {len(differ)} classed differently")


def main():
    vllm = os.path.join(SHARED, "tracelens-b200-vllm-eager-rank0.json.gz")
    dlrm = os.path.join(SHARED, "param-dlrm-8ranks.tar.gz")
    if not (os.path.exists(vllm) or os.path.exists(dlrm)):
        print("skip: no Kineto fixtures under", SHARED)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        if os.path.exists(vllm):
            with gzip.open(vllm, "rt") as f:
                names = kernel_names(json.load(f)["traceEvents"])
            check(any("multimem_all_reduce" in n for n in names), "vLLM: the trace has multimem_all_reduce")
            expect("vLLM", breakdown_md(tmp, "vllm", vllm), names)
        if os.path.exists(dlrm):
            names = set()
            with tarfile.open(dlrm) as tar:
                for m in tar.getmembers():
                    if m.name.endswith(".json"):
                        names |= kernel_names(json.load(io.TextIOWrapper(tar.extractfile(m)))["traceEvents"])
            check(any(n.startswith("ncclKernel") for n in names), "DLRM: the archive has NCCL kernels")
            expect("DLRM", breakdown_md(tmp, "dlrm", dlrm), names)
    return 1 if failures else 0


sys.exit(main())
