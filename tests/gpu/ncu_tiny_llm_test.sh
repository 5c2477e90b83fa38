#!/usr/bin/env bash
# GPU tier: the bundled tiny_llm (config group model/tiny_llm/arch, small
# option), profiled by ncu with the NVTX filter LLM@prefill/: only the
# prefill range and the layer/attention/mlp ranges beneath it are reported.
#   ncu_tiny_llm_test.sh LLM_PERF_OPT
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 1 ]] || fail "usage: ncu_tiny_llm_test.sh LLM_PERF_OPT"
tool=$(realpath "$1")
[[ -x $tool ]] || fail "$tool is not built"
[[ -x "$(dirname "$tool")/workloads/tiny_llm" ]] || fail "the bundled workload $(dirname "$tool")/workloads/tiny_llm is not built"
require_gpu
require_ncu
require_runnable "$(dirname "$tool")/workloads/tiny_llm" --layers 1 --d-model 8 --heads 1 --vocab 8 --d-ff 8 --prompt 1 \
  --decode 0 --no-check
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
run="$tmp/run"
args=(profile "hydra.run.dir=$run" pipeline.ncu.enable=true 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight]'
      pipeline.ncu.ncu_cli.metrics=null pipeline.ncu.ncu_cli.set=null 'pipeline.ncu.ncu_cli.nvtx.include=[LLM@prefill]'
      '~model/dummy_shallow_resnet/arch@model' '+model/tiny_llm/arch@model=tiny_llm.small')
echo "+ $(basename "$tool") ${args[*]}"
(cd "$tmp" && "$tool" "${args[@]}")
rc=$?
[[ $rc -eq 0 ]] || skip_or_fail_profile "$run" "$rc"
python3 "$here/check_regions.py" tiny_llm_prefill --layers 2 "$run" || fail "region report check failed"
echo "PASS: ncu LLM@prefill/ regions of tiny_llm"
