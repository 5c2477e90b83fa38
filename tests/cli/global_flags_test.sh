#!/usr/bin/env bash
# Command-line habits: --version/-V, --quiet/--verbose, doctor --json,
# Hydra's sweeps without -m (exit 2, naming -m), --cfg job, --info, config
# groups in --help, and "did you mean" for an unknown option.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export SOURCE_DATE_EPOCH=1700000000  # one ${now:...} for every composition
# Runs the binary; $rc, out.txt and err.txt hold what it did.
run() { set +e; "$bin" "$@" >out.txt 2>err.txt; rc=$?; set -e; }
fixture="$src/tests/fixtures/handmade/ncu_details_2022.csv"

# --version, -V: name and version (CMake's project version), nothing else.
version=$(sed -n 's/^project(llm_perf_opt VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
for flag in --version -V; do
  run $flag
  [[ $rc -eq 0 && "$(cat out.txt)" == "llm-perf-opt $version" && ! -s err.txt ]] || fail "$flag: $rc $(cat out.txt err.txt)"
  # Everywhere before `--`: after a subcommand too.
  run import $flag
  [[ $rc -eq 0 && "$(cat out.txt)" == "llm-perf-opt $version" ]] || fail "import $flag: $rc $(cat out.txt err.txt)"
done

# --quiet: only errors. import prints nothing and still writes its reports;
# the flag works before or after the subcommand.
run import "$fixture" --out normal
[[ $rc -eq 0 ]] && grep -q "^imported 1 of 1 input" out.txt || fail "plain import: $rc $(cat out.txt err.txt)"
for args in "--quiet import $fixture --out q1" "import $fixture --out q2 -q"; do
  run $args
  [[ $rc -eq 0 && ! -s out.txt && ! -s err.txt ]] || fail "quiet import ($args): $rc $(cat out.txt err.txt)"
done
[[ -f q1/kernels.md && -f q2/kernels.json ]] || fail "quiet import wrote no reports"
cmp -s normal/kernels.md q1/kernels.md || fail "quiet import changed kernels.md"
run --quiet import missing.csv --out q3
[[ $rc -eq 3 ]] && grep -q "^llm-perf-opt: error:" err.txt || fail "quiet still prints errors: $rc $(cat err.txt)"
# A quiet profile run (no steps enabled): no summary.
run -q profile hydra.run.dir=qrun -- /bin/true
[[ $rc -eq 0 && ! -s out.txt && -f qrun/run.json ]] || fail "quiet profile: $rc $(cat out.txt err.txt)"

# --verbose: more progress on stderr; the answer on stdout is unchanged.
run config
cp out.txt plain_config.yaml
run --verbose config
[[ $rc -eq 0 ]] || fail "verbose config: $rc"
cmp -s out.txt plain_config.yaml || fail "--verbose changed config's output"
grep -q "^llm-perf-opt: config search path: .*/conf$" err.txt || fail "verbose search path: $(cat err.txt)"
grep -q "^llm-perf-opt: config choices: .*profiling/ncu@pipeline.ncu: ncu.default" err.txt ||
  fail "verbose choices: $(cat err.txt)"
run profile --dry-run -v pipeline.ncu.enable=true -- ./app
grep -q "^llm-perf-opt: step ncu will run: ncu " err.txt || fail "verbose plan: $(cat err.txt)"
grep -q "^llm-perf-opt: workload: ./app$" err.txt || fail "verbose workload: $(cat err.txt)"
run --quiet --verbose config
[[ $rc -eq 2 ]] && grep -q "exclude each other" err.txt || fail "--quiet --verbose: $rc"

# doctor --json: valid JSON with a schema_version, the same checks as the text.
PATH="$fakes:/usr/bin:/bin" "$bin" doctor >doctor.txt
PATH="$fakes:/usr/bin:/bin" "$bin" doctor --json >doctor.json || fail "doctor --json exited $?"
python3 - doctor.json doctor.txt <<'PY' || fail "doctor --json content"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert d["schema_version"] == 1 and d["tool"] == "llm-perf-opt", d
assert d["checks"] and all(set(c) == {"name", "ok", "detail", "fix"} for c in d["checks"]), d["checks"]
assert all(isinstance(c["ok"], bool) for c in d["checks"])
for c in d["checks"]:
    assert f"[{'ok' if c['ok'] else '--'}] {c['name']}: {c['detail']}" in text, c
gpu = [c for c in d["checks"] if c["name"].startswith("GPU")]
assert gpu and gpu[0]["ok"], gpu  # the fake nvidia-smi's H100
assert d["verdicts"] and all(v in text for v in d["verdicts"])
PY

# A sweep without -m, and `config -m`: exit 2 naming -m, not a generic parse error
# (profile -m and trace -m run sweeps: tests/cli/sweep_test.py).
for args in "config pipeline.ncu.enable=true,false" "profile --dry-run pipeline.ncu.ncu_cli.replay_mode=kernel,range" \
            "config -m" "profile --dry-run pipeline.step_timeout_s=range(1,5)"; do
  run $args
  [[ $rc -eq 2 ]] && grep -q -- "-m" err.txt || fail "sweep ($args): $rc $(cat err.txt)"
done
run config 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight,Occupancy]'
[[ $rc -eq 0 ]] || fail "a bracketed list is not a sweep: $(cat err.txt)"

# --cfg job prints the composed config exactly as `config` does; --cfg hydra its hydra part.
for cmd in config profile trace; do
  run $cmd --cfg job
  [[ $rc -eq 0 ]] && cmp -s out.txt plain_config.yaml || fail "$cmd --cfg job: $rc $(diff out.txt plain_config.yaml)"
done
run config --cfg job pipeline.ncu.enable=true
grep -q "^    enable: true" out.txt || fail "--cfg job with an override"
run config --cfg hydra
[[ $rc -eq 0 && "$(head -1 out.txt)" == "run:" ]] || fail "--cfg hydra: $(cat out.txt)"
run config --cfg bogus
[[ $rc -eq 2 ]] || fail "--cfg bogus: $rc"
[[ ! -e tmp ]] || fail "--cfg made a run folder"

# --info: the search path, the groups and their options, the defaults list.
run profile --info
[[ $rc -eq 0 ]] || fail "--info: $rc $(cat err.txt)"
grep -q "^config search path" out.txt && grep -q "/conf (built-in)$" out.txt || fail "--info search path: $(cat out.txt)"
grep -q "^  profiling/ncu: ncu.default, ncu.high, ncu.rtx3090$" out.txt || fail "--info groups: $(cat out.txt)"
grep -q "^  profiling/ncu@pipeline.ncu: ncu.default$" out.txt || fail "--info defaults: $(cat out.txt)"
mkdir mine
run config --info --config-dir mine
grep -q "mine (--config-dir)$" out.txt || fail "--info --config-dir: $(cat out.txt)"

# --help lists the config groups (folders of conf/ with options) and their options.
for args in "--help" "config --help" "profile --help"; do
  run $args
  [[ $rc -eq 0 ]] || fail "$args: $rc"
  grep -q "^config groups" out.txt || fail "$args: no config groups: $(cat out.txt)"
  grep -q "^  profiling/ncu: ncu.default, ncu.high, ncu.rtx3090$" out.txt || fail "$args: profiling/ncu"
  grep -q "^  model/tiny_llm/arch: tiny_llm.default, tiny_llm.small$" out.txt || fail "$args: model/tiny_llm/arch"
done
run --help
grep -q -- "--quiet, -q" out.txt && grep -q -- "--version, -V" out.txt || fail "--help global options"

# An unknown option: exit 2, "did you mean".
run config --pakage pipeline
[[ $rc -eq 2 ]] && grep -q "unknown option '--pakage'" err.txt && grep -q "did you mean '--package'?" err.txt ||
  fail "config --pakage: $rc $(cat err.txt)"
# A mistyped --package key: exit 2, "did you mean".
run config -p pipeline.nsy
[[ $rc -eq 2 ]] && grep -q "did you mean 'pipeline.nsys'?" err.txt || fail "config -p pipeline.nsy: $rc $(cat err.txt)"
# A workload's folder given as a group option: the note is a swap that works.
run config model=tiny_llm
[[ $rc -eq 2 ]] && grep -q "'tiny_llm' is not an option of group 'model' but a folder of groups" err.txt ||
  fail "config model=tiny_llm: $rc $(cat err.txt)"
swap=$(sed -n "s/.*to use it in place of [^:]*: //p" err.txt)
[[ -n "$swap" ]] || fail "no swap note: $(cat err.txt)"
eval "run config -p model $swap"
[[ $rc -eq 0 ]] && grep -q "name: tiny_llm" out.txt || fail "the suggested swap ($swap): $rc $(cat err.txt)"
run doctor --jsn
[[ $rc -eq 2 ]] && grep -q "did you mean '--json'?" err.txt || fail "doctor --jsn: $rc $(cat err.txt)"
run --verbos config
[[ $rc -eq 2 ]] && grep -q "did you mean '--verbose'?" err.txt || fail "--verbos: $rc $(cat err.txt)"
run import "$fixture" --outt x
[[ $rc -eq 2 ]] && grep -q "did you mean '--out'?" err.txt || fail "import --outt: $rc $(cat err.txt)"
# What follows `--` is the workload's, never checked.
run profile --dry-run -- ./app --weird-flag -q
[[ $rc -eq 0 ]] || fail "options after --: $rc $(cat err.txt)"
echo PASS
