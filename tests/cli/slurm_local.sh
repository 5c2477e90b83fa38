# A private single-host Slurm cluster for the tests (multirank reference
# §9.4: two emulated nodes n1 and n2 on this host), with everything in one
# folder: its own munge daemon and key, slurm.conf (SLURM_CONF points at
# it), state, spool, logs, pid files and the steps' temporary files. Nothing
# outside the folder is written; /etc/slurm and /etc/munge are not read.
# Needs root (slurmd runs the jobs as their users) and Debian's slurmctld,
# slurmd, slurm-client and munge (libpmix-dev for srun --mpi=pmix).
#
#   source tests/cli/slurm_local.sh
#   slurm_local_start DIR || exit 77   # 0 once sinfo shows both nodes idle
#   ... srun / sbatch ...
#   slurm_local_stop DIR               # every daemon it started
#
# Ports are drawn at random in 20000-59999 (three in a row), so that two
# runs on one machine, or a Slurm already there, do not collide.

slurm_local_missing() {
  local tool
  for tool in munged slurmctld slurmd srun sbatch sinfo; do
    command -v "$tool" >/dev/null || { echo "$tool"; return 0; }
  done
  return 1
}

slurm_local_start() {
  local dir=$1 port=$((20000 + RANDOM % 40000)) host
  host=$(hostname)
  mkdir -p "$dir"
  chmod 700 "$dir"
  mkdir -m 700 -p "$dir/munge"
  mkdir -p "$dir/state" "$dir/spool-n1" "$dir/spool-n2" "$dir/log" "$dir/tmp"
  head -c 1024 /dev/urandom >"$dir/munge/key"
  chmod 600 "$dir/munge/key"
  # --force: munged refuses root and a socket folder that others cannot enter without it.
  munged --force -S "$dir/munge/sock" --key-file="$dir/munge/key" --log-file="$dir/munge/log" \
    --pid-file="$dir/munge/pid" --seed-file="$dir/munge/seed" || return 1
  cat >"$dir/slurm.conf" <<EOF
ClusterName=llmpotest
SlurmctldHost=$host
SlurmctldPort=$port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=n[1-2] NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1))-$((port + 2)) CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld || return 1
  slurmd -N n1 || return 1
  slurmd -N n2 || return 1
  local i
  for i in $(seq 1 60); do
    [[ $(sinfo -h -o '%D %t' 2>/dev/null) == "2 idle" ]] && return 0
    sleep 0.5
  done
  echo "slurm_local: the nodes did not come up in 30 s; logs in $dir/log" >&2
  sinfo >&2 || true
  return 1
}

slurm_local_stop() {
  local dir=$1 f pids=() i
  for f in "$dir"/slurmd-n1.pid "$dir"/slurmd-n2.pid "$dir"/slurmctld.pid "$dir"/munge/pid; do
    [[ -f $f ]] && pids+=("$(cat "$f")")
  done
  [[ ${#pids[@]} -gt 0 ]] || return 0
  kill "${pids[@]}" 2>/dev/null
  # Give them a moment to go, so the folder can be removed after.
  local alive
  for i in $(seq 1 40); do
    alive=0
    for f in "${pids[@]}"; do kill -0 "$f" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && return 0
    sleep 0.25
  done
  kill -9 "${pids[@]}" 2>/dev/null
  return 0
}
