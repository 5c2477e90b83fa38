#!/usr/bin/env python3
"""Our import of the shared Kineto fixture traces against an independent
computation: bench/reference_kineto.py (json module with exact decimals,
plain Python loops) over the same files. Compares kernel count and time, busy time,
span and computation union per file, each top-level region's GPU kernel time
(regions/report.json) and each CPU op's GPU self time (gpu_breakdown.json).
Exit 77 (skipped) when the fixtures are absent.

    kineto_reference_test.py BINARY SOURCE_ROOT
"""

import json
import pathlib
import subprocess
import sys
import tempfile

FIXTURES = pathlib.Path("/work/shared/fixtures/kineto")
FILES = ["tracelens-b300-moe01.json.gz", "tracelens-b200-vllm-eager-rank0.json.gz",
         "hta-ddp-a100-rank0-2024.json.gz", "hta-resnet-v100-fractional-us.json.gz", "hta-alexnet-sync.json.gz",
         "hta-cudagraphs-rank0.json.gz", "hta-triton.json.gz", "hta-rocm-mi250.json.gz"]


def close(ours_us, ref_us, what, problems, name):
    # Both sides are exact; the reference's sums are printed as floats.
    if abs(ours_us - ref_us) > 1e-9 * abs(ref_us) + 0.001:
        problems.append(f"{name}: {what}: ours {ours_us:.3f} us, reference {ref_us:.3f} us")


def main():
    binary, root = sys.argv[1], pathlib.Path(sys.argv[2])
    if not FIXTURES.exists():
        print(f"skipped: no fixtures at {FIXTURES}")
        return 77
    problems = []
    checked = 0
    for name in FILES:
        trace = FIXTURES / name
        ref = json.loads(subprocess.run([sys.executable, str(root / "bench/reference_kineto.py"), str(trace), "--exact"],
                                        check=True, capture_output=True, text=True).stdout)
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([binary, "import", str(trace), "--out", out], check=True, capture_output=True)
            g = json.loads((pathlib.Path(out) / "gpu_breakdown.json").read_text())
            regions_file = pathlib.Path(out) / "regions/report.json"
            regions = json.loads(regions_file.read_text())["regions"] if regions_file.exists() else []
        devices = g["devices"]
        if sum(d["kernels"] for d in devices) != ref["kernels"]:
            problems.append(f"{name}: kernels {sum(d['kernels'] for d in devices)} vs {ref['kernels']}")
        close(sum(d["kernel_ms"] for d in devices) * 1e3, ref["total_us"], "kernel time", problems, name)
        close(sum(d["busy_ms"] for d in devices) * 1e3, ref["busy_us"], "busy", problems, name)
        close(sum(d["span_ms"] for d in devices) * 1e3, ref["span_us"], "span", problems, name)
        close(sum(d["computation_ms"] for d in devices) * 1e3, ref["computation_us"], "computation", problems, name)
        ours_top = {r["name"]: r["total_ms"] * 1e3 for r in regions if r["depth"] == 0 and r["total_ms"] is not None}
        for region, us in ref["top_regions_us"].items():
            close(ours_top.get(region, 0.0), us, f"region '{region}' GPU kernel time", problems, name)
        ours_ops = {op["name"]: op["gpu_self_ms"] * 1e3 for op in g["cpu_ops"]}
        for op, us in ref["cpu_ops_self_us"].items():
            close(ours_ops.get(op, 0.0), us, f"CPU op '{op}' GPU self time", problems, name)
        checked += 1
    for p in problems:
        print("FAIL:", p)
    print(f"{checked} traces compared, {len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
