#!/usr/bin/env python3
"""Checks the LLM phases of a tiny_llm trace (stdlib only):

    check_phases.py KERNELS_JSON eager|graphs

for tiny_llm --layers 2 --d-model 128 --heads 4 --vocab 1024 --d-ff 512
--prompt 8 --decode 4: one prefill step and four decode steps of 20 kernels
each; with --cuda-graphs, one graph launched four times, once per step_<i>.
Exits non-zero (an assertion) when a phase does not match.
"""
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
mode = sys.argv[2]
by = {s["phase"]: s for s in p["phases"]}
assert by["prefill"]["steps"] == 1, by
assert by["decode"]["steps"] + by["decode"]["warmup_steps"] == 4, by
for s in p["steps"]:
    assert s["gpu_kernel_ms"] > 0 and s["kernels"] == 2 * 8 + 4, s  # 8 launches per layer + 4 per forward pass
if mode == "graphs":
    assert len(p["graphs"]) == 1 and p["graphs"][0]["launches"] == 4, p["graphs"]
    ranges = {r["range"]: r["launches"] for r in p["graphs"][0]["ranges"]}
    assert ranges == {f"step_{i}": 1 for i in range(4)}, ranges
    assert all(s["graph_launches"] == 1 for s in p["steps"] if s["phase"] == "decode"), p["steps"]
else:
    assert not p["graphs"], p["graphs"]
print(mode, "phases: ok", {k: (v["steps"], v["gpu_kernel_ms"]) for k, v in by.items()})
