#!/usr/bin/env bash
# GPU tier: `llm-perf-opt profile` with ncu on nvtx_regions, then the region
# report is checked against the launches the workload documents.
#   ncu_regions_test.sh LLM_PERF_OPT NVTX_REGIONS kernel|range
# kernel: kernel replay, every range (regions A, A::A1 in A, B, startend,
#         LLM@decode with their exact kernels; nothing but the warm-up outside)
# range:  range replay with nvtx.include=[A,B] (one measured instance of A and of B)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 3 ]] || fail "usage: ncu_regions_test.sh LLM_PERF_OPT NVTX_REGIONS kernel|range"
tool=$(realpath "$1") workload=$(realpath "$2") mode=$3
[[ -x $tool ]] || fail "$tool is not built"
[[ -x $workload ]] || fail "$workload is not built"
require_gpu
require_ncu
require_runnable "$workload" --size 256
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
run="$tmp/run"
args=(profile "hydra.run.dir=$run" pipeline.ncu.enable=true 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight]'
      pipeline.ncu.ncu_cli.metrics=null pipeline.ncu.ncu_cli.set=null)
case $mode in
  kernel) ;;
  range) args+=(pipeline.ncu.ncu_cli.replay_mode=range 'pipeline.ncu.ncu_cli.nvtx.include=[A,B]') ;;
  *) fail "mode must be kernel or range, not $mode" ;;
esac
args+=(-- "$workload" --size 65536)
echo "+ $(basename "$tool") ${args[*]}"
(cd "$tmp" && "$tool" "${args[@]}")
rc=$?
[[ $rc -eq 0 ]] || skip_or_fail_profile "$run" "$rc"
python3 "$here/check_regions.py" nvtx_regions --mode "$mode" "$run" || fail "region report check failed"
echo "PASS: ncu $mode replay regions of nvtx_regions"
