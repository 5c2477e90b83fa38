#!/usr/bin/env bash
# Regenerates the hostile inputs of issue #35 (items 1-15, 17) at the
# sizes the issue measured and checks the outcomes (docs/security.md,
# "Hostile inputs"):
#   - cost: each input shape at N and 4N, N ten times the ctest size: Kineto
#     traces of 40,000 one-launch kernels k0..kN, of one kernel on 40,000
#     devices, of 40,000 nested cpu_ops holding one launch each; a .tar.gz
#     of 5,000 one-kernel ranks; an nsys
#     cuda_gpu_kern_sum of 80,000 names; .ncu-rep with 200,000 devices, or
#     one result with 60,000 rule messages: 4x the input within 8x the CPU
#     time (no absolute bound: the baseline is measured in the same run);
#   - outcomes: exit codes, diagnostics and reports of the fault cases;
#   - memory: peak RSS of hostile .ncu-rep and Kineto inputs (items 5, 6);
#   - kills: imports stopped at several moments (item 14).
# The ctest versions (cli.hostile_cost, cli.hostile_outcome,
# cli.hostile_memory, cli.hostile_kill) run the same generators, the cost
# shapes at small sizes. Item 16 (the tracer) is tests/tracer/trace_test.sh.
#   bash scripts/attack.sh [BINARY]      (default build/release/llm-perf-opt)
#   ATTACK_KEEP=DIR keeps the generated inputs and reports in DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/release/llm-perf-opt}
[[ -x $bin ]] || { echo "attack.sh: no binary at $bin (build first)" >&2; exit 2; }
keep_cost=() keep_outcome=()
if [[ -n ${ATTACK_KEEP:-} ]]; then
  keep_cost=(--keep "$ATTACK_KEEP/cost") keep_outcome=(--keep "$ATTACK_KEEP/outcome")
fi
start=$SECONDS
status=0
echo "== cost (the sizes of issue #35)"
python3 "$root/tests/cli/hostile_cost_test.py" "$bin" --scale 10 "${keep_cost[@]}" || status=1
echo "== outcomes"
python3 "$root/tests/cli/hostile_outcome_test.py" "$bin" "${keep_outcome[@]}" || status=1
echo "== memory (peak RSS of each hostile .ncu-rep and Kineto input)"
python3 "$root/tests/cli/hostile_memory_test.py" "$bin" || status=1
echo "== imports stopped by SIGKILL, SIGTERM, SIGINT"
python3 "$root/tests/cli/hostile_kill_test.py" "$bin" || status=1
echo "attack.sh: $([[ $status -eq 0 ]] && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $status
