#!/usr/bin/env bash
# One GPU session's work, as one command (a lent GPU machine is short of
# time, so everything runs in one go; docs/workloads.md, "Capturing on a GPU"):
#
#   bash scripts/gpu_capture.sh BUNDLE.tgz OUT_DIR [BUDGET_S]
#
# BUNDLE.tgz is scripts/gpu_bundle.sh's folder, tarred. The script
#  1. records the machine (nvidia-smi, ncu --version, doctor);
#  2. runs the main job for real: `profile pipeline.ncu.enable=true` on the
#     default workload (dummy_shallow_resnet, ncu's roofline set);
#  3. captures ncu app-range replay of nvtx_regions (the tier covers kernel
#     and range replay);
#  4. captures a small full-set report with its CSV pages (FULL_FIXTURE=0 skips it)
#     and a larger detailed-set details page that the two-thread CSV reader
#     must import as one thread does (PARTS_CHECK=0 skips it);
#     then runs the GPU tier, keeping every test's run folder (LLMPO_GPU_KEEP);
#  5. packs OUT_DIR/capture.tgz (run folders, without files over 4 MiB) and
#     OUT_DIR/summary.txt.
# Every step has its own time limit and the tier stops starting tests once
# BUDGET_S (default 420) seconds have passed; TIER_FILTER (a regex) picks
# tier tests, MAIN_JOB=0 skips steps 2 and 3. ncu runs with
# --clock-control none: the lender asks that the GPU clocks stay as found.
set -uo pipefail
bundle_tgz=$(realpath "$1") out=$(realpath "$2") budget=${3:-420}
start=$SECONDS
work=$(mktemp -d)
cap=$work/capture
mkdir -p "$cap" "$out"
summary=$out/summary.txt
note() { echo "[$((SECONDS - start)) s] $*" | tee -a "$summary"; }

tar -C "$work" -xzf "$bundle_tgz"
b=$work/gpu-bundle
for f in "$b"/conf/profiling/ncu/*.yaml; do sed -i 's/^  clock_control: null/  clock_control: none/' "$f"; done
if ! command -v ncu >/dev/null; then
  for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*; do [[ -x $d/ncu ]] && PATH=$PATH:$d && break; done
fi
export PATH

{
  nvidia-smi 2>&1
  echo "--- ncu: $(command -v ncu)"
  ncu --version 2>&1
  echo "--- ncu --help"; ncu --help 2>&1
  echo "--- uname"; uname -a
} >"$cap/machine.txt"
"$b/llm-perf-opt" doctor >"$cap/doctor.txt" 2>&1
note "machine: $(nvidia-smi -L 2>&1 | head -n 1); ncu $(ncu --version 2>&1 | tail -n 1)"

# A profile or trace run with a time limit; its log beside its folder.
run_tool() {
  local name=$1 limit=$2 subcommand=$3
  shift 3
  (cd "$work" && timeout -k 10 "$limit" "$b/llm-perf-opt" "$subcommand" "hydra.run.dir=$cap/$name" "$@") >"$cap/$name.log" 2>&1
  note "$name: exit $?"
}
if [[ ${MAIN_JOB:-1} == 1 ]]; then
  run_tool main_job 150 profile pipeline.ncu.enable=true pipeline.step_timeout_s=130
  run_tool nvtx_regions_app_range 90 profile pipeline.ncu.enable=true pipeline.ncu.ncu_cli.replay_mode=app-range \
    'pipeline.ncu.ncu_cli.nvtx.include=[A,B]' 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight]' \
    pipeline.ncu.ncu_cli.metrics=null pipeline.ncu.ncu_cli.set=null -- "$b/workloads/nvtx_regions" --size 65536
  # ncu's own CSV export of the main job's report, to see which NVTX columns it prints on import.
  if [[ -f $cap/main_job/ncu/profile.ncu-rep ]]; then
    ncu --import "$cap/main_job/ncu/profile.ncu-rep" --csv --page raw --print-units base >"$cap/main_job_ncu_raw.csv" 2>&1
    note "ncu --import --page raw: exit $?, NVTX columns: $(head -n 1 "$cap/main_job_ncu_raw.csv" | tr ',' '\n' | grep -ci nvtx)"
  fi
fi

# A small full-set report with its raw page in base and in display units and
# its details page: the fixture for the native reader (tests/fixtures/h200/).
if [[ ${FULL_FIXTURE:-1} == 1 ]]; then
  mkdir -p "$cap/fixture" && (
    cd "$cap/fixture" || exit 1
    rep=nvtx_regions_full_c3
    timeout -k 10 120 ncu --set full --nvtx --launch-count 3 --clock-control none --export $rep --force-overwrite \
      "$b/workloads/nvtx_regions" --size 65536 >$rep.ncu.log 2>&1 &&
      ncu --import $rep.ncu-rep --csv --page raw --print-units base >${rep}_raw_base.csv &&
      ncu --import $rep.ncu-rep --csv --page raw >${rep}_raw_display.csv &&
      ncu --import $rep.ncu-rep --csv --page details --print-units base >${rep}_details_base.csv
  )
  note "full-set fixture: exit $?, $(du -sh "$cap/fixture" | cut -f1)"
fi

# A larger real details page for the two-thread ncu CSV reader (issue 29):
# every launch of tiny_llm (2 decode steps) with the basic set (PARTS_SET; the detailed set took over 120 s), exported
# by ncu itself, then imported on one thread and in forced parts of 64 KiB and
# 1 MiB; the three output folders must be identical. The report and the
# gzipped page go to OUT_DIR (they are over capture.tgz's 4 MiB). PARTS_CHECK=0 skips it.
if [[ ${PARTS_CHECK:-1} == 1 ]]; then
  mkdir -p "$cap/parts" && (
    cd "$cap/parts" || exit 1
    rep=tiny_llm_${PARTS_SET:-basic}
    timeout -k 10 150 ncu --set ${PARTS_SET:-basic} --nvtx --clock-control none --export $rep --force-overwrite \
      "$b/workloads/tiny_llm" --decode 2 >$rep.ncu.log 2>&1 || exit 2
    ncu --import $rep.ncu-rep --csv --page details --print-units base >${rep}_details_base.csv || exit 3
    for p in 0 65536 1048576; do
      t0=$EPOCHREALTIME
      LLMPO_NCU_PARTS=$p "$b/llm-perf-opt" import ${rep}_details_base.csv --out import_$p >import_$p.log 2>&1 || exit 4
      echo "import, LLMPO_NCU_PARTS=$p: $(python3 -c "print(f'{$EPOCHREALTIME - $t0:.3f}')") s wall"
    done
    diff -r import_0 import_65536 >/dev/null && diff -r import_0 import_1048576 >/dev/null || exit 5
    gzip -9 -k ${rep}_details_base.csv && mv ${rep}_details_base.csv.gz "$out/" || exit 6
    rep_size=$(stat -c %s $rep.ncu-rep)
    ((rep_size < 15 * 1024 * 1024)) && cp $rep.ncu-rep "$out/"
    echo "page $(stat -c %s ${rep}_details_base.csv) B, report $rep_size B, launches $(grep -c '^==PROF== Profiling' $rep.ncu.log)"
  ) 2>&1 | tee -a "$summary"
  note "parts check: exit ${PIPESTATUS[0]} (0: the three imports are identical)"
fi

# The tier, one test at a time while the budget lasts.
grep -E '^[a-z]' "$b/tests/gpu/tier.txt" | while read -r _ name _; do
  [[ $name =~ ${TIER_FILTER:-.} ]] || continue
  if ((SECONDS - start > budget)); then
    note "tier: $name not started (budget of $budget s spent)"
    continue
  fi
  RESULTS_DIR=$cap/tier LLMPO_GPU_KEEP=$cap/tier_runs TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-120} \
    "$b/run_gpu_tier.sh" "^${name//./\\.}\$" 2>&1 | grep -E '^(PASS|FAIL|SKIP|  )' | tee -a "$summary"
done
note "tier done"

find "$cap" -type f -size +4M -printf '%s %P\n' | sed 's/^/left out (over 4 MiB): /' | tee -a "$summary"
(cd "$work" && tar --exclude-from=<(cd "$work" && find capture -type f -size +4M) -czf "$out/capture.tgz" capture)
note "capture.tgz: $(du -h "$out/capture.tgz" | cut -f1)"
