#!/usr/bin/env bash
# GPU tier: ranks of a real torchrun job on one GPU (docs/multirank.md), two
# ranks of tests/gpu/torch_gpu_ranks.py (gloo; rank 1 does 400 products
# instead of 4 in step 3's forward):
#   1. `trace -- torchrun`: one tracer trace per rank with CUPTI kernels, the
#      straggler table names rank 1 in `step 3 > forward`;
#   2. the same job under torch.profiler (each rank writes a Kineto trace),
#      then `import` of the two traces: ProfilerStep#3's GPU time is longest
#      on rank 1;
#   3. `profile -- torchrun` with ncu on both ranks (no straggler: the same
#      kernels on each), in ncu's lockstep communicator (pipeline.ncu.lockstep,
#      on by default for two ranks, where ncu --help lists --communicator):
#      a report per rank, every step ok.
#   torchrun_ranks_test.sh LLM_PERF_OPT
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 1 ]] || fail "usage: torchrun_ranks_test.sh LLM_PERF_OPT"
tool=$(realpath "$1")
[[ -x $tool ]] || fail "$tool is not built"
[[ -f $(dirname "$tool")/libllmpo_tracer.so ]] || skip "no libllmpo_tracer.so next to $tool (tracer not built)"
require_gpu
torchrun=$(command -v torchrun) || skip "no torchrun on PATH (PyTorch is not installed)"
# torchrun runs its own python (its #! line): that one must see the GPU.
py=$(head -n 1 "$torchrun" | sed -n 's/^#! *//p' | cut -d' ' -f1)
[[ -x $py ]] || py=python3
"$py" -c 'import torch, torch.distributed as d; assert torch.cuda.is_available() and d.is_gloo_available()' 2>/dev/null ||
  skip "$py has no PyTorch that sees a GPU (with gloo)"
echo "torch: $("$py" -c 'import torch; print(torch.__version__)') ($py)"
program=$here/torch_gpu_ranks.py
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
job=("$torchrun" --standalone --nproc_per_node=2 "$program")
steps="pipeline.regions.instance_suffix=''"  # each "step N" its own region: the straggler table is per region

# 1. the tracer inside torchrun
echo "+ $(basename "$tool") trace $steps -- ${job[*]}"
(cd "$tmp" && "$tool" -q trace "hydra.run.dir=$tmp/trace" "$steps" -- "${job[@]}") >"$tmp/trace.out" 2>&1 ||
  fail "trace -- torchrun exited $?: $(tail -n 20 "$tmp/trace.out")"
python3 - "$tmp/trace" <<'PY' || fail "trace -- torchrun: outputs do not match the job"
import glob, json, sys
run = sys.argv[1]
recs = {json.load(open(f))["rank"]: json.load(open(f)) for f in glob.glob(f"{run}/ranks/trace.rank*.json")}
assert sorted(recs) == [0, 1], recs
for r in recs.values():
    assert r["rank_from"] == "RANK" and r["world_size"] == 2 and r["exit_code"] == 0, r
kernels = {}
for t in glob.glob(f"{run}/trace/trace.rank*.tsv"):
    lines = open(t).read().splitlines()
    assert ["G", "cupti"] in [l.split("\t")[:2] for l in lines], f"{t}: CUPTI was not loaded"
    kernels[int(t.split("/trace.rank")[1].split(".")[0])] = sum(1 for l in lines if l.startswith("K\t"))
assert sorted(kernels) == [0, 1], kernels
# rank 1 ran 396 more products (a GEMM and a scaling kernel each) than rank 0
assert kernels[0] >= 20 and kernels[1] - kernels[0] >= 396, kernels
s = json.load(open(f"{run}/stragglers.json"))
rows = [r for r in s["steps"] + s.get("regions", []) if r["region"] == "step 3 > forward"]
assert rows, [r["region"] for r in s["steps"] + s.get("regions", [])]
assert rows[0]["slowest_rank"] == 1 and rows[0]["excess_ms"] > 5, rows[0]
print(f"ok: trace -- torchrun: kernels per rank {kernels}; 'step 3 > forward' slowest rank 1, "
      f"{rows[0]['excess_ms']:.1f} ms over the median")
PY

# 2. Kineto traces of the same job, imported
(cd "$tmp" && "${job[@]}" --kineto "$tmp/kineto") >"$tmp/kineto.out" 2>&1 ||
  fail "torchrun with --kineto exited $?: $(tail -n 20 "$tmp/kineto.out")"
"$tool" -q import "$tmp/kineto/rank0.json" "$tmp/kineto/rank1.json" --out "$tmp/kineto_report" >"$tmp/import.out" 2>&1 ||
  fail "import of the Kineto ranks exited $?: $(tail -n 20 "$tmp/import.out")"
python3 - "$tmp/kineto" "$tmp/kineto_report" <<'PY' || fail "import of the Kineto ranks: outputs do not match the job"
import json, sys
traces, report = sys.argv[1], sys.argv[2]
for r in (0, 1):
    t = json.load(open(f"{traces}/rank{r}.json"))
    assert t["distributedInfo"]["rank"] == r, t.get("distributedInfo")
    assert any(e.get("cat") == "kernel" for e in t["traceEvents"]), f"rank {r}: no GPU kernels in the trace"
s = json.load(open(f"{report}/stragglers.json"))
rows = [r for r in s["steps"] if r["region"] == "ProfilerStep#3"]
assert rows, [r["region"] for r in s["steps"]]
assert rows[0]["slowest_rank"] == 1 and rows[0]["excess_ms"] > 5, rows[0]
print(f"ok: Kineto ranks: ProfilerStep#3 slowest rank 1, {rows[0]['excess_ms']:.1f} ms over the median")
PY

# 3. ncu on both ranks, in lockstep
require_ncu
args=(profile "hydra.run.dir=$tmp/prof" pipeline.ncu.enable=true 'pipeline.ncu.ranks=[0,1]'
      'pipeline.ncu.ncu_cli.sections=[SpeedOfLight]' pipeline.ncu.ncu_cli.metrics=null pipeline.ncu.ncu_cli.set=null
      pipeline.ncu.ncu_cli.launch_count=8 pipeline.step_timeout_s=100
      -- "${job[@]}" --steps 2 --slow-matmuls 4)  # no straggler: the ranks launch the same kernels
echo "+ $(basename "$tool") ${args[*]}"
(cd "$tmp" && "$tool" "${args[@]}") >"$tmp/prof.out" 2>&1
rc=$?
cat "$tmp/prof.out"
[[ $rc -eq 0 ]] || skip_or_fail_profile "$tmp/prof" "$rc"
communicator=no
ncu --help 2>/dev/null | grep -q -- '--communicator' && communicator=yes
python3 - "$tmp/prof" "$tmp/prof.out" "$communicator" <<'PY' || fail "profile -- torchrun with ncu on both ranks: outputs do not match"
import json, os, sys
run, out, communicator = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
steps = {s["name"]: s["status"] for s in json.load(open(f"{run}/run.json"))["steps"]}
for name in ("ncu", "ncu-export-details.rank0", "ncu-export-details.rank1", "report"):
    assert steps.get(name) == "ok", (name, steps)
for r in (0, 1):
    assert os.path.exists(f"{run}/ncu/profile.rank{r}.ncu-rep"), r
# Lockstep where this ncu lists --communicator (ncu --help), else the documented note.
cmd = open(f"{run}/ncu/cmd.txt").read()
if communicator == "yes":
    assert "--communicator tcp" in cmd and "--lockstep-kernel-launch" in cmd, cmd
else:
    assert "--lockstep" not in cmd and "lockstep left out" in out, (cmd, out)
print(f"ok: ncu on both ranks, lockstep {'on' if communicator == 'yes' else 'left out (no --communicator)'}; {steps}")
PY
echo "PASS: torchrun ranks on the GPU (tracer, Kineto, ncu lockstep)"
