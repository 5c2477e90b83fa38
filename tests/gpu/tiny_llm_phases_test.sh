#!/usr/bin/env bash
# GPU tier: `llm-perf-opt trace` of the bundled tiny_llm (small sizes: 2
# layers, prompt 8, 4 decode steps), eager and with --cuda-graphs; the
# Phases section of the run's kernels.json must show one prefill step of 8
# tokens (model.tokens is not set here: the token counts are unknown) and 4
# decode steps (step_<i> in the domain LLM); with graphs, 4 graph launches of
# one graph, each attributed to its step_<i> range, none to "capture".
#   tiny_llm_phases_test.sh LLM_PERF_OPT TINY_LLM
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 2 ]] || fail "usage: tiny_llm_phases_test.sh LLM_PERF_OPT TINY_LLM"
tool=$(realpath "$1") workload=$(realpath "$2")
[[ -x $tool ]] || fail "$tool is not built"
[[ -x $workload ]] || fail "$workload is not built"
[[ -f $(dirname "$tool")/libllmpo_tracer.so ]] || skip "no libllmpo_tracer.so next to $tool (tracer not built)"
require_gpu
require_runnable "$workload" --check
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
sizes=(--layers 2 --d-model 128 --heads 4 --vocab 1024 --d-ff 512 --prompt 8 --decode 4)
for mode in eager graphs; do
  extra=()
  [[ $mode == graphs ]] && extra=(--cuda-graphs)
  run="$tmp/$mode"
  (cd "$tmp" && "$tool" trace "hydra.run.dir=$run" -- "$workload" "${sizes[@]}" "${extra[@]}") || fail "$mode: trace exited $?"
  python3 "$here/check_phases.py" "$run/kernels.json" "$mode" || fail "$mode: phases do not match the workload"
done
echo "PASS"
