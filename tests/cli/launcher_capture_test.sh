#!/usr/bin/env bash
# `trace`/`profile` with a launcher in the command, no GPU (docs/multirank.md):
#   1. trace -- torchrun (Debian's python3-torch, gloo, CPU; NVTX through the
#      ctypes shim) of tests/tracer/torch_straggler.py given as a script
#      (so --no_python is added): 4 ranks, rank 2 slow in step 3's forward;
#   2. trace -- mpirun -np 4 of nvtx_rank_steps (rank 2 slow in step 3);
#   3. trace -- mpirun with a failing rank, then with a hanging one;
#   4. profile -- mpirun with the fake nsys and ncu: per-rank nsys reports,
#      ncu on pipeline.ncu.ranks only, each report row named by its rank; then
#      ncu on two ranks: both in ncu's lockstep communicator with 2 peers;
#   5. MPICH's hydra (mpiexec.hydra): trace -n 4 (ranks from PMI_RANK, rank 2
#      the straggler), a failing rank, profile with the fake tools and ncu on
#      rank 1 only, and import --mpi on 3 ranks against one import;
#   6. trace -- srun -n 4, only where a Slurm cluster answers.
# Each part skips (says so) when its launcher is not installed; all absent: 77.
#   launcher_capture_test.sh BINARY RANK_PROGRAM NVTX_SHIM SOURCE_DIR
set -euo pipefail
bin=$1
program=$2
shim=$3
src=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ran=0
steps="pipeline.regions.instance_suffix=''"  # each "step N" its own region: the straggler table is per region

# shellcheck source=rank_checks.sh
source "$src/tests/cli/rank_checks.sh"

# Rank 1 of four exits with 3 a second after the others: the run exits 5
# (tool-failed) and names it, and the other ranks' traces are kept.
#   failing_rank NAME RANK_VARIABLE LAUNCHER...
failing_rank() {
  local name=$1 var=$2 rc=0
  shift 2
  "$bin" -q trace hydra.run.dir="$dir/$name" -- "$@" sh -c \
    "if [ \"\$$var\" = 1 ]; then sleep 1; exit 3; fi; exec \"\$0\"" "$program" >"$dir/$name.out" 2>&1 || rc=$?
  [[ $rc == 5 ]] || fail "$name: a failing rank: want exit 5 (tool-failed), got $rc: $(tail -5 "$dir/$name.out")"
  grep -q "rank 1 exited with 3 (first)" "$dir/$name.out" || fail "$name: the failing rank is not named: $(cat "$dir/$name.out")"
  ls "$dir/$name"/trace/trace.rank{0,2,3}.*.tsv >/dev/null || fail "$name: the other ranks' traces are missing"
  check_identities "$dir/$name" 4 "1=exit 3"
  echo "ok: $name: a failing rank ($var 1, exit 3) is named and the other three ranks' traces are kept"
}

# 1. torchrun# 1. torchrun
if [[ -x /usr/bin/torchrun ]] && /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
  ran=1
  # --redirects/--tee: Debian's torch 1.13 torchrun on Python 3.11 needs them (multirank reference §9.6)
  "$bin" -q trace hydra.run.dir="$dir/torch" "$steps" -- /usr/bin/torchrun --standalone --nproc_per_node=4 \
    --redirects 1 --tee 1 --log_dir "$dir/tl" "$src/tests/tracer/torch_straggler.py" "$shim" --slow-ms 300 \
    >"$dir/torch.out" 2>&1 || fail "trace -- torchrun exited $?: $(tail -5 "$dir/torch.out")"
  grep -q -- "--no_python" "$dir/torch/run.json" || fail "torchrun was not given --no_python"
  check_ranks "$dir/torch" trace 4 RANK
  # The all-reduce evens out the steps; the slow rank shows in its forward.
  check_straggler "$dir/torch" "step 3 > forward" 2 150
else
  echo "skip 1: torchrun of python3-torch (scripts/setup.sh) is not installed"
fi

if command -v mpirun >/dev/null; then
  ran=1
  mpi=(mpirun --allow-run-as-root --oversubscribe -np 4)
  export OMPI_MCA_rmaps_base_oversubscribe=1
  # 2. mpirun, through the CLI
  # (a fifth step: rank 2, slow in step 3, begins step 4 late)
  "$bin" -q trace hydra.run.dir="$dir/mpi" "$steps" -- "${mpi[@]}" "$program" --slow-ms 400 --steps 5 >"$dir/mpi.out" 2>&1 ||
    fail "trace -- mpirun exited $?: $(tail -5 "$dir/mpi.out")"
  check_ranks "$dir/mpi" trace 4 OMPI_COMM_WORLD_RANK
  check_straggler "$dir/mpi" "step 3" 2 200
  check_late_start "$dir/mpi" "step 4" 2 200 one_host
  check_identities "$dir/mpi" 4
  # the same traces imported with the steps folded into "step N" (the default): the starts kept per number
  "$bin" -q import "$dir"/mpi/trace/trace.rank*.tsv --out "$dir/folded" >"$dir/folded.out" 2>&1 ||
    fail "import of the mpirun traces exited $?: $(tail -5 "$dir/folded.out")"
  grep -q '"step N"' "$dir/folded/regions/report.json" || fail "the folded import has no region 'step N'"
  ln -s "$dir/mpi/trace" "$dir/folded/trace"
  check_late_start "$dir/folded" "step 4" 2 200 one_host

  # 3a. rank 1 fails (after the others have finished): named, the others' traces kept and reported
  failing_rank fail OMPI_COMM_WORLD_RANK "${mpi[@]}"
  [[ -f "$dir/fail/kernels.md" ]] || fail "no report from the other ranks"

  # 3b. rank 2 hangs: the step timeout stops the job and names it
  rc=0
  "$bin" -q trace hydra.run.dir="$dir/hang" pipeline.step_timeout_s=4 -- "${mpi[@]}" sh -c \
    'if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then sleep 60; fi; exec "$0"' "$program" >"$dir/hang.out" 2>&1 || rc=$?
  [[ $rc == 5 ]] || fail "a hanging rank: want exit 5, got $rc: $(tail -5 "$dir/hang.out")"
  grep -q "rank(s) 2 still running at the step timeout" "$dir/hang.out" ||
    fail "the hanging rank is not named: $(cat "$dir/hang.out")"
  ls "$dir"/hang/trace/trace.rank{0,1,3}.*.tsv >/dev/null || fail "the other ranks' traces are missing"
  echo "ok: a hanging rank is named (rank 2, still running at the 4 s timeout); the others' traces kept"

  # 4. profile with the fake nsys and ncu inside mpirun: nsys on every rank, ncu on rank 1 only
  export FAKE_TOOLS_LOG="$dir/tools.log"
  PATH="$src/tests/cli/fake_tools:$PATH" "$bin" -q profile hydra.run.dir="$dir/prof" pipeline.nsys.enable=true \
    pipeline.ncu.enable=true 'pipeline.ncu.ranks=[1]' -- mpirun --allow-run-as-root -np 2 "$program" \
    >"$dir/prof.out" 2>&1 || fail "profile -- mpirun exited $?: $(tail -5 "$dir/prof.out")"
  python3 - "$dir/prof" "$dir/tools.log" <<'PY'
import json, os, sys
run, log = sys.argv[1], open(sys.argv[2]).read().splitlines()
for r in (0, 1):
    assert os.path.exists(f"{run}/nsys/run.rank{r}.nsys-rep"), r
    assert os.path.exists(f"{run}/nsys/run.rank{r}.sqlite"), r
assert os.path.exists(f"{run}/ncu/profile.rank1.ncu-rep") and not os.path.exists(f"{run}/ncu/profile.rank0.ncu-rep")
steps = {s["name"]: s["status"] for s in json.load(open(f"{run}/run.json"))["steps"]}
for name in ("nsys", "nsys-export.rank0", "nsys-export.rank1", "ncu", "ncu-export-details.rank1", "report"):
    assert steps.get(name) == "ok", (name, steps)
profiled = [l for l in log if l.startswith("ncu ") and "--export" in l]
assert len(profiled) == 1 and "ncu/profile.rank1 " in profiled[0] + " ", profiled
recs = {json.load(open(f"{run}/ranks/ncu.rank{r}.json"))["profiled"] for r in (0, 1)}
assert recs == {True, False}, recs
# Each rank's export carries its launcher rank into the reports (the fake
# export makes rank N's sgemm N ms longer): per-rank scopes, not one process.
kernels = json.load(open(f"{run}/kernels.json"))["kernels"]
sgemm = {k["source"]: (k["process"], k["total_ms"]) for k in kernels if k["name"] == "volta_sgemm_128x64_nn"}
assert sgemm == {"nsys/run.rank0.sqlite": ("rank 0", 1.0), "nsys/run.rank1.sqlite": ("rank 1", 2.0)}, sgemm
assert {k["process"] for k in kernels if k["source"] == "ncu/details.rank1.csv"} == {"rank 1"}, kernels
print("ok: profile -- mpirun: nsys/run.rank{0,1}, each exported; ncu on rank 1 only (rank 0 unprofiled); "
      "every report row names its rank")
PY
  # 4b. ncu on both ranks: each rank's ncu joins the lockstep communicator with the number of profiled ranks
  : >"$dir/tools2.log"
  FAKE_TOOLS_LOG="$dir/tools2.log" PATH="$src/tests/cli/fake_tools:$PATH" "$bin" -q profile \
    hydra.run.dir="$dir/prof2" pipeline.ncu.enable=true 'pipeline.ncu.ranks=[0,1]' \
    -- mpirun --allow-run-as-root -np 2 "$program" >"$dir/prof2.out" 2>&1 ||
    fail "profile -- mpirun with ncu on two ranks exited $?: $(tail -5 "$dir/prof2.out")"
  python3 - "$dir/prof2" "$dir/tools2.log" <<'PY'
import os, sys
run, log = sys.argv[1], open(sys.argv[2]).read().splitlines()
profiled = [l.split() for l in log if l.startswith("ncu ") and "--export" in l]
assert len(profiled) == 2, profiled
for argv in profiled:
    i = argv.index("--communicator-tcp-num-peers")
    assert argv[i - 2:i] == ["--communicator", "tcp"] and argv[i + 1] == "2", argv
    assert "--lockstep-kernel-launch" in argv, argv
for r in (0, 1):
    assert os.path.exists(f"{run}/ncu/profile.rank{r}.ncu-rep"), r
print("ok: ncu on ranks 0 and 1: each ran with --communicator tcp --communicator-tcp-num-peers 2 "
      "--lockstep-kernel-launch")
PY
else
  echo "skip 2-4: mpirun (Debian's openmpi-bin, in scripts/setup.sh) is not installed"
fi
# 5. MPICH's hydra launcher (Debian's mpich, in scripts/setup.sh; Open MPI keeps
# /usr/bin/mpirun through the alternatives system): its ranks carry PMI_RANK,
# PMI_SIZE and MPI_LOCALRANKID, and no OMPI_* variable.
if command -v mpiexec.hydra >/dev/null; then
  ran=1
  hydra=(mpiexec.hydra -n 4)
  "$bin" -q trace hydra.run.dir="$dir/hydra" "$steps" -- "${hydra[@]}" "$program" --slow-ms 400 >"$dir/hydra.out" 2>&1 ||
    fail "trace -- mpiexec.hydra exited $?: $(tail -5 "$dir/hydra.out")"
  check_ranks "$dir/hydra" trace 4 PMI_RANK
  check_straggler "$dir/hydra" "step 3" 2 200
  python3 - "$dir/hydra" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(f"{sys.argv[1]}/ranks/trace.rank*.json")):
    r = json.load(open(f))
    assert r["local_rank_from"] == "MPI_LOCALRANKID" and r["world_size_from"] == "PMI_SIZE", r
    assert r["local_rank"] == r["rank"] and not any(k.startswith("OMPI_") for k in r["variables"]), r
print("ok: hydra ranks: local rank from MPI_LOCALRANKID, world size from PMI_SIZE, no OMPI_* variable")
PY

  failing_rank hydra_fail PMI_RANK "${hydra[@]}"

  : >"$dir/tools3.log"
  FAKE_TOOLS_LOG="$dir/tools3.log" PATH="$src/tests/cli/fake_tools:$PATH" "$bin" -q profile \
    hydra.run.dir="$dir/hydra_prof" pipeline.nsys.enable=true pipeline.ncu.enable=true 'pipeline.ncu.ranks=[1]' \
    -- mpiexec.hydra -n 2 "$program" >"$dir/hydra_prof.out" 2>&1 ||
    fail "profile -- mpiexec.hydra exited $?: $(tail -5 "$dir/hydra_prof.out")"
  python3 - "$dir/hydra_prof" "$dir/tools3.log" <<'PY'
import json, os, sys
run, log = sys.argv[1], open(sys.argv[2]).read().splitlines()
for r in (0, 1):
    assert os.path.exists(f"{run}/nsys/run.rank{r}.sqlite"), r
assert os.path.exists(f"{run}/ncu/profile.rank1.ncu-rep") and not os.path.exists(f"{run}/ncu/profile.rank0.ncu-rep")
profiled = [l for l in log if l.startswith("ncu ") and "--export" in l]
assert len(profiled) == 1 and "ncu/profile.rank1 " in profiled[0] + " ", profiled
recs = {r: json.load(open(f"{run}/ranks/ncu.rank{r}.json")) for r in (0, 1)}
assert recs[0]["profiled"] is False and recs[1]["profiled"] is True, recs
assert all(x["rank_from"] == "PMI_RANK" for x in recs.values()), recs
print("ok: profile -- mpiexec.hydra: nsys on both ranks, ncu on rank 1 only, ranks from PMI_RANK")
PY

  "$bin" -q import "$dir"/hydra/trace/*.tsv --out "$dir/hydra_one" --set "$steps" || fail "import of the hydra traces"
  mpiexec.hydra -n 3 "$bin" -q import --mpi "$dir"/hydra/trace/*.tsv --out "$dir/hydra_mpi" --set "$steps" \
    >"$dir/hydra_mpi.out" 2>&1 || fail "import --mpi under mpiexec.hydra exited $?: $(tail -5 "$dir/hydra_mpi.out")"
  diff -r "$dir/hydra_one" "$dir/hydra_mpi" >&2 || fail "import --mpi under mpiexec.hydra differs from one import"
  echo "ok: import --mpi on 3 hydra ranks gives the one import's reports, byte for byte"
else
  echo "skip 5: mpiexec.hydra (Debian's mpich, in scripts/setup.sh) is not installed"
fi

# 6. srun, where a Slurm cluster answers (the single-host set-up of the
# multirank reference §9.4; not started by the tests: it needs root)
if command -v srun >/dev/null && timeout 5 sinfo -h >/dev/null 2>&1; then
  ran=1
  "$bin" -q trace hydra.run.dir="$dir/srun" "$steps" pipeline.step_timeout_s=120 -- srun -n 4 -O "$program" \
    --slow-ms 400 >"$dir/srun.out" 2>&1 || fail "trace -- srun exited $?: $(tail -5 "$dir/srun.out")"
  check_ranks "$dir/srun" trace 4 SLURM_PROCID
  check_straggler "$dir/srun" "step 3" 2 200
else
  echo "skip 6: no Slurm cluster answers (sinfo); docs/multirank.md \"Slurm\" says what was run by hand"
fi
[[ $ran == 1 ]] || exit 77
echo "ok: capture under launchers"
