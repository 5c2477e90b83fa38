#!/usr/bin/env bash
# Slurm, for real: a private single-host cluster of two emulated nodes
# (tests/cli/slurm_local.sh; root and Debian's Slurm and munge, else 77),
# then (docs/multirank.md):
#   1. trace -- srun -N 2 -n 4: ranks from SLURM_PROCID, nodes n1 n1 n2 n2,
#      local ranks 0 1 0 1, rank 2 the straggler of step 3;
#   2. trace -- srun --mpi=pmix -n 4 on one node: ranks from PMIX_RANK;
#   3. the job-array recipe: two array tasks each write a partial of two rank
#      files (--job the array's id), a merge job waits for them (afterok);
#      its report is byte for byte the one import of the four files;
#   3b. trace -- srun -N 2 -n 2 torchrun --nnodes=2 --nproc_per_node=2 (nested,
#      Debian's CPU torch, gloo): four ranks from RANK, two a node, although
#      each node's two workers share one SLURM_PROCID; rank 2's forward the
#      straggler;
#   4. sbatch --wrap "trace -- mpirun -np 2": ranks from OMPI_COMM_WORLD_RANK
#      although both ranks inherit the batch step's SLURM_PROCID=0;
#   5. import --mpi on 3 ranks of srun --mpi=pmix: the one import, byte for byte.
#   slurm_test.sh BINARY RANK_PROGRAM SOURCE_DIR NVTX_SHIM
set -euo pipefail
bin=$1
program=$2
src=$3
shim=$4
if [[ $(id -u) != 0 ]]; then
  echo "skip: the private Slurm cluster needs root (slurmd runs the jobs)"
  exit 77
fi
# shellcheck source=slurm_local.sh
source "$src/tests/cli/slurm_local.sh"
if missing=$(slurm_local_missing); then
  echo "skip: $missing is not installed (Debian's slurmctld, slurmd, slurm-client, munge: scripts/setup.sh)"
  exit 77
fi
dir=$(mktemp -d)
trap 'slurm_local_stop "$dir/cluster"; rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -n 20 "$dir"/cluster/log/*.log >&2 2>/dev/null || true
  exit 1
}
slurm_local_start "$dir/cluster" || fail "the private Slurm cluster did not start"
echo "ok: a private Slurm cluster answers: $(sinfo -h -o '%P %D %t %N')"
steps="pipeline.regions.instance_suffix=''"  # each "step N" its own region: the straggler table is per region

# shellcheck source=rank_checks.sh
source "$src/tests/cli/rank_checks.sh"

# 1. srun over two nodes
"$bin" -q trace hydra.run.dir="$dir/srun" "$steps" pipeline.step_timeout_s=120 -- srun -N 2 -n 4 -O "$program" \
  --slow-ms 400 --steps 5 >"$dir/srun.out" 2>&1 || fail "trace -- srun exited $?: $(tail -5 "$dir/srun.out")"
check_ranks "$dir/srun" trace 4 SLURM_PROCID n1 n1 n2 n2
check_straggler "$dir/srun" "step 3" 2 200
check_late_start "$dir/srun" "step 4" 2 200  # the two emulated nodes are one host (one clock) here
python3 - "$dir/srun" <<'PY'
import glob, json, sys
recs = sorted((json.load(open(f)) for f in glob.glob(f"{sys.argv[1]}/ranks/trace.rank*.json")), key=lambda r: r["rank"])
assert [r["local_rank"] for r in recs] == [0, 1, 0, 1], recs
print("ok: srun -N 2 -n 4: local ranks 0 1 0 1")
PY

# 2. srun --mpi=pmix (one node: the two emulated nodes share the PMIx folder, reference §9.4)
if srun -N 1 -n 1 --mpi=pmix true >/dev/null 2>&1; then
  "$bin" -q trace hydra.run.dir="$dir/pmix" "$steps" pipeline.step_timeout_s=120 -- srun -N 1 -n 4 --mpi=pmix -O \
    "$program" --slow-ms 400 >"$dir/pmix.out" 2>&1 || fail "trace -- srun --mpi=pmix exited $?: $(tail -5 "$dir/pmix.out")"
  check_ranks "$dir/pmix" trace 4 PMIX_RANK
else
  echo "skip 2 and 5: srun --mpi=pmix does not start here (Debian's libpmix-dev: scripts/setup.sh)"
fi

# 3. the job-array recipe of docs/multirank.md, groups of 2 instead of 64
mkdir "$dir/partials"
cat >"$dir/partial.sbatch" <<EOF
#!/bin/bash
#SBATCH --array=0-1
#SBATCH --output=$dir/array-%A_%a.out
files=($dir/srun/trace/trace.rank*.tsv)
group=("\${files[@]:\$((SLURM_ARRAY_TASK_ID * 2)):2}")
"$bin" -q import --partial "$dir/partials/\$(printf %04d "\$SLURM_ARRAY_TASK_ID").json" --job "\$SLURM_ARRAY_JOB_ID" \
  "\${group[@]}" --set "$steps"
EOF
array=$(sbatch --parsable "$dir/partial.sbatch") || fail "sbatch of the array"
# --kill-on-invalid-dep: a failed array task cancels the merge, so --wait returns at once.
timeout 120 sbatch --wait --output="$dir/merge.out" --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  --wrap "\"$bin\" -q merge $dir/partials/*.json --out $dir/report" >/dev/null ||
  fail "the merge job failed: $(cat "$dir"/merge.out "$dir"/array-*.out 2>/dev/null | tail -5)"
[[ -f $dir/partials/0000.json && -f $dir/partials/0001.json ]] || fail "the array tasks wrote no partials"
"$bin" -q import "$dir"/srun/trace/trace.rank*.tsv --out "$dir/one" --set "$steps" || fail "one import"
diff -r "$dir/one" "$dir/report" >&2 || fail "the job array's merged report differs from one import"
echo "ok: job array $array (2 partials) + afterok merge: the one import's reports, byte for byte"

# 3b. torchrun inside srun: the workers of a node share its SLURM_PROCID; RANK tells them apart
if [[ -x /usr/bin/torchrun ]] && /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
  rdzv=$((30000 + RANDOM % 20000))
  "$bin" -q trace hydra.run.dir="$dir/torch" "$steps" pipeline.step_timeout_s=180 -- srun -N 2 -n 2 -O \
    /usr/bin/torchrun --nnodes=2 --nproc_per_node=2 --rdzv_backend=c10d --rdzv_endpoint=127.0.0.1:$rdzv \
    --rdzv_id=llmpo --redirects 1 --tee 1 --log_dir "$dir/torch_logs" "$src/tests/tracer/torch_straggler.py" "$shim" \
    --slow-ms 300 >"$dir/torch.out" 2>&1 || fail "trace -- srun torchrun exited $?: $(tail -5 "$dir/torch.out")"
  check_ranks "$dir/torch" trace 4 RANK
  python3 - "$dir/torch" <<'PY'
import glob, json, sys
run = sys.argv[1]
recs = sorted((json.load(open(f)) for f in glob.glob(f"{run}/ranks/trace.rank*.json")), key=lambda r: r["rank"])
# torchrun's rendezvous numbers the nodes in the order they join: ranks 0-1
# share one node and one SLURM_PROCID, ranks 2-3 the other.
pairs = [(r["node"], r["variables"]["SLURM_PROCID"]) for r in recs]
assert pairs[0] == pairs[1] and pairs[2] == pairs[3] and pairs[0] != pairs[2], pairs
assert {pairs[0][0], pairs[2][0]} == {"n1", "n2"} and {pairs[0][1], pairs[2][1]} == {"0", "1"}, pairs
print(f"ok: srun + torchrun: two ranks a node sharing its SLURM_PROCID ({pairs})")
PY
  check_straggler "$dir/torch" "step 3 > forward" 2 150
else
  echo "skip 3b: torchrun of python3-torch (scripts/setup.sh) is not installed"
fi

# 4. mpirun inside sbatch: every rank inherits SLURM_PROCID=0
if command -v mpirun >/dev/null; then
  timeout 120 sbatch --wait -n 2 --output="$dir/sbatch_mpi.out" --wrap "\"$bin\" -q trace hydra.run.dir=$dir/sbm -- \
mpirun --allow-run-as-root -np 2 \"$program\"" >/dev/null || fail "sbatch of trace -- mpirun: $(tail -5 "$dir/sbatch_mpi.out")"
  check_ranks "$dir/sbm" trace 2 OMPI_COMM_WORLD_RANK
  python3 - "$dir/sbm" <<'PY'
import glob, json, sys
recs = [json.load(open(f)) for f in glob.glob(f"{sys.argv[1]}/ranks/trace.rank*.json")]
assert len(recs) == 2 and all(r["variables"].get("SLURM_PROCID") == "0" for r in recs), recs
print("ok: sbatch + mpirun: both ranks inherited SLURM_PROCID=0 and were told apart by OMPI_COMM_WORLD_RANK")
PY
else
  echo "skip 4: mpirun (Debian's openmpi-bin) is not installed"
fi

# 5. import --mpi under srun --mpi=pmix
if [[ -d $dir/pmix ]]; then
  srun -N 1 -n 3 -O --mpi=pmix "$bin" -q import --mpi "$dir"/srun/trace/trace.rank*.tsv --out "$dir/mpi" \
    --set "$steps" >"$dir/mpi.out" 2>&1 || fail "import --mpi under srun --mpi=pmix exited $?: $(tail -5 "$dir/mpi.out")"
  diff -r "$dir/one" "$dir/mpi" >&2 || fail "import --mpi under srun differs from one import"
  echo "ok: import --mpi on 3 srun --mpi=pmix ranks: the one import's reports, byte for byte"
fi
echo "ok: Slurm"
