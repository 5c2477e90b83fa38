# Shared by the real-tools tier (CTest label nsight): Debian's (or NVIDIA's)
# nsys and ncu, run for real on CPU programs and on saved reports.
# Sourced; defines fail() and require_tools.

fail() { echo "FAIL: $*" >&2; exit 1; }

# require_tools TOOL...: each must be on PATH. Where the tools should be
# there (CI=true, or LLMPO_REQUIRE_NSIGHT=1, which scripts/test.sh sets after
# scripts/setup.sh installed them) a missing one fails the test; elsewhere it
# skips (exit 77) with how to get them.
require_tools() {
  local tool missing=()
  for tool in "$@"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ ${CI:-} == true || ${LLMPO_REQUIRE_NSIGHT:-0} == 1 ]]; then
    fail "${missing[*]} not on PATH, but this run requires the real Nsight tools (CI=true or" \
      "LLMPO_REQUIRE_NSIGHT=1): install them with scripts/setup_nsight.sh, or set LLMPO_NSIGHT=0 for scripts/test.sh"
  fi
  echo "SKIP: ${missing[*]} not on PATH (bash scripts/setup_nsight.sh installs Debian's nsight-systems and nsight-compute)"
  exit 77
}
