#!/usr/bin/env bash
# The FLOPs that conf/model/tiny_llm/arch/*.yaml give for MFU match the
# formula of docs/workloads.md evaluated on the same file's workload_args, and
# model.tokens.prefill (the Phases section's tokens per prefill step) is --prompt.
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
for preset in tiny_llm.default tiny_llm.small; do
  sel=('~model/dummy_shallow_resnet/arch@model' "+model/tiny_llm/arch@model=$preset")
  args=$("$bin" config "${sel[@]}" -p model.workload_args | sed -n "s/^- //p" | tr -d "'" | tr '\n' ' ')
  prefill=$("$bin" config "${sel[@]}" -p 'model.flops.LLM@prefill')
  decode=$("$bin" config "${sel[@]}" -p 'model.flops.LLM@decode_all')
  tokens=$("$bin" config "${sel[@]}" -p 'model.tokens.prefill')
  python3 - "$preset" "$prefill" "$decode" "$tokens" $args <<'PY' || fail "$preset"
import sys
preset, prefill, decode, tokens, argv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
a = {argv[i].lstrip("-"): int(argv[i + 1]) for i in range(0, len(argv), 2)}
L, d, dff, V, P, T = a["layers"], a["d-model"], a["d-ff"], a["vocab"], a["prompt"], a["decode"]
per_token = 2 * (3 * d * d + d * d + 2 * d * dff)  # QKV, output, up, down projections
attention = lambda ctx: 2 * 2 * d * ctx            # scores and weighted sum over ctx keys
lm_head = 2 * d * V                                # last position only
want_prefill = L * sum(per_token + attention(p + 1) for p in range(P)) + lm_head
want_decode = sum(L * (per_token + attention(P + i + 1)) + lm_head for i in range(T))
ok = (prefill, decode) == (want_prefill, want_decode) and tokens == P  # model.tokens.prefill: the prompt
print(f"{preset}: config {prefill} {decode}, formula {want_prefill} {want_decode}")
sys.exit(0 if ok else 1)
PY
done
echo ok
