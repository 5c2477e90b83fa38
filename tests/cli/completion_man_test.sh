#!/usr/bin/env bash
# The bash completion and the man page the build generates from the binary
# (its one subcommand table): the completion script is what
# `--bash-completion` prints, and completes subcommands and each
# subcommand's options in bash; the man page (when help2man was found at
# configure time) documents every subcommand and the exit codes.
# Usage: completion_man_test.sh BIN BUILD_DIR HAVE_HELP2MAN(0|1)
set -euo pipefail
bin=$(realpath "$1")
build=$(realpath "$2")
have_help2man=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

completion="$build/share/bash-completion/completions/llm-perf-opt"
[[ -f "$completion" ]] || fail "the build made no $completion"
"$bin" --bash-completion >now.bash || fail "--bash-completion exited $?"
cmp -s now.bash "$completion" || fail "the built completion differs from --bash-completion"
bash -n "$completion" || fail "the completion script is not valid bash"

# complete WORD...: what the completion offers for the last word.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _llm_perf_opt; printf "%s\n" "${COMPREPLY[@]}" | sort' \
    _ "$completion" llm-perf-opt "$@"
}
[[ "$(complete_words pro)" == profile ]] || fail "subcommand: $(complete_words pro)"
[[ "$(complete_words '')" == *$'\n'doctor$'\n'* ]] || fail "all subcommands: $(complete_words '')"
[[ "$(complete_words doctor --j)" == --json ]] || fail "doctor option: $(complete_words doctor --j)"
[[ "$(complete_words import --o)" == --out ]] || fail "import option: $(complete_words import --o)"
got=$(complete_words config --c | tr '\n' ' ')
[[ "$got" == "--cfg --config-dir --config-name " ]] || fail "config options: $got"
[[ "$(complete_words --ver)" == $'--verbose\n--version' ]] || fail "global options: $(complete_words --ver)"
[[ "$(complete_words -q profile --dry)" == --dry-run ]] || fail "after a global flag: $(complete_words -q profile --dry)"
[[ -z "$(complete_words trace -- --h)" ]] || fail "after --: the program's own arguments"
# Every subcommand of the table is offered.
subs=$("$bin" --help | sed -n '/^subcommands:/,/^$/p' | awk 'NF && !/:$/ {print $1}' | sort | tr '\n' ' ')
offered=$(complete_words '' | grep -v '^-' | sort | tr '\n' ' ')
[[ "$subs" == "$offered" ]] || fail "offered '$offered', the table has '$subs'"

man="$build/share/man/man1/llm-perf-opt.1"
if [[ "$have_help2man" != 1 ]]; then
  [[ ! -e "$man" ]] || fail "a man page without help2man?"
  echo "PASS (man page skipped: help2man was not found at configure time)"
  exit 0
fi
[[ -f "$man" ]] || fail "the build made no $man"
grep -q '^\.TH LLM-PERF-OPT "1"' "$man" || fail "man page header: $(head -5 "$man")"
grep -q "llm-perf-opt \\\\- profile CUDA programs" "$man" || fail "man page NAME"
# Every subcommand: in the summary, and its own --help under SUBCOMMAND DETAILS.
grep -q '^\.SH "SUBCOMMAND DETAILS"' "$man" || fail "man page: no SUBCOMMAND DETAILS"
for sub in $subs; do
  grep -q "^$sub\( \|$\)" "$man" || fail "man page: $sub not in the subcommand list"
  grep -qF ".SS \"llm\\-perf\\-opt $sub\"" "$man" || fail "man page: no section for $sub"
done
grep -qF '\-\-json' "$man" && grep -qF '\-\-dry\-run' "$man" || fail "man page: subcommand options missing"
grep -qi '^\.SS "exit codes:"\|^\.SH "EXIT CODES"' "$man" || fail "man page exit codes section"
grep -q "not\\\\-built\|not-built" "$man" || fail "man page exit code names"
grep -q "profiling/ncu: ncu.default, ncu.high" "$man" || fail "man page config groups"
echo PASS
