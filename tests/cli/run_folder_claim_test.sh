#!/usr/bin/env bash
# Run folders never collide (docs/profile.md "The run folder"): runs started
# in the same second get the default folder, then DEFAULT-2, DEFAULT-3; a
# fixed hydra.run.dir that a live run holds (.llmpo.lock) is refused with
# exit 2 and the fix; a dead run's lock is taken over with a warning; the
# lock is gone after a run, so `report` works; run.json lists only what the
# run made, not what was in the folder before.
set -euo pipefail
bin=$(realpath "$1")
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
work=$(mktemp -d)
holder=
cleanup() {
  [[ -n "$holder" ]] && kill "$holder" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
run_dir_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run_dir'])" "$1"; }

# 1. Three runs in the same second (SOURCE_DATE_EPOCH fixes ${now:...}), two at once.
export SOURCE_DATE_EPOCH=1700000000
base=tmp/profile-output/20231114-221320
"$bin" profile -- ./app one >a.out 2>a.err & pa=$!
"$bin" profile -- ./app two >b.out 2>b.err & pb=$!
wait "$pa" || fail "first concurrent run exited $?: $(cat a.err)"
wait "$pb" || fail "second concurrent run exited $?: $(cat b.err)"
"$bin" profile -- ./app three >c.out 2>c.err || fail "third run exited $?: $(cat c.err)"
for d in "$base" "$base-2" "$base-3"; do
  [[ -f $d/run.json ]] || fail "$d/run.json missing: $(ls tmp/profile-output)"
  [[ $(run_dir_of "$d/run.json") == "$work/$d" ]] || fail "$d/run.json names another folder"
  [[ -e $d/.llmpo.lock ]] && fail "$d: lock left behind after the run"
done
[[ $(ls tmp/profile-output | wc -l) -eq 3 ]] || fail "expected 3 run folders: $(ls tmp/profile-output)"
# Each folder's files come from one run: its workload argument in inputs.yaml and run.json.
for arg in one two three; do
  d=$(grep -l -- "- $arg" tmp/profile-output/*/inputs.yaml | xargs dirname)
  [[ $(echo "$d" | wc -l) -eq 1 ]] || fail "workload '$arg' in several folders: $d"
  grep -q "\"$arg\"" "$d/run.json" || fail "$d: run.json from another run than inputs.yaml"
  grep -q -- "- $arg" "$d/config.yaml" || fail "$d: config.yaml from another run"
done
grep -q "run folder: $work/$base-3" c.out || fail "summary names $(grep 'run folder' c.out)"
unset SOURCE_DATE_EPOCH

# 2. A fixed folder a live run holds is refused, and the holder's run is unharmed.
PATH="$fakes:/usr/bin:/bin" FAKE_NCU_SLEEP=5 "$bin" profile hydra.run.dir=shared pipeline.ncu.enable=true \
  'pipeline.ncu.ncu_cli.nvtx.include=A' -- ./app first >first.out 2>first.err & holder=$!
for _ in $(seq 100); do [[ -s shared/.llmpo.lock && -s shared/run.json ]] && break; sleep 0.05; done
[[ -s shared/.llmpo.lock ]] || fail "no lock while the run goes"
grep -q "^pid $holder$" shared/.llmpo.lock || fail "lock does not name the run: $(cat shared/.llmpo.lock)"
set +e
"$bin" profile hydra.run.dir=shared -- ./app second >second.out 2>second.err
rc=$?
"$bin" report shared >report.out 2>report.err
report_rc=$?
set -e
[[ $rc -eq 2 ]] || fail "held folder: expected exit 2, got $rc"
grep -q "run folder '.*shared' is in use by another run (pid $holder" second.err || fail "message: $(cat second.err)"
grep -q "choose another folder with hydra.run.dir=PATH" second.err || fail "fix missing: $(cat second.err)"
[[ $report_rc -eq 2 ]] || fail "report on a running run: expected exit 2, got $report_rc"
grep -q "still running (pid $holder)" report.err || fail "report message: $(cat report.err)"
wait "$holder" || fail "the holding run exited $?: $(cat first.err)"
holder=
grep -q '"first"' shared/run.json || fail "shared/run.json is not the first run's"
grep -q "second" shared/inputs.yaml shared/config.yaml && fail "the refused run wrote into the folder"
[[ -e shared/.llmpo.lock ]] && fail "lock left behind"
"$bin" report shared >report.out 2>report.err || fail "report after the run exited $?: $(cat report.err)"

# 3. A held flock (whatever the file says) refuses too; once let go, the
#    stale lock is taken over with a warning.
mkdir -p flocked
python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(60)' \
  flocked/.llmpo.lock & holder=$!
for _ in $(seq 100); do [[ -e flocked/.llmpo.lock ]] && break; sleep 0.05; done
sleep 0.5
set +e
"$bin" profile hydra.run.dir=flocked -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "flock held: expected exit 2, got $rc: $(cat err.txt)"
grep -q "is in use by another run" err.txt || fail "flock held: message: $(cat err.txt)"
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=
python3 -c "import os; print('pid', 2**22 + 12345)" >flocked/.llmpo.lock  # above pid_max: never alive
"$bin" profile hydra.run.dir=flocked -- ./app >out.txt 2>err.txt || fail "stale lock: exited $?: $(cat err.txt)"
grep -q "warning: took over the lock of a run that is no longer running (pid 4206649)" err.txt ||
  fail "stale lock warning: $(cat err.txt)"
[[ -e flocked/.llmpo.lock ]] && fail "taken-over lock left behind"

# 4. A folder holding files the run did not make is refused (a run could
# overwrite them, e.g. ncu/profile.ncu-rep), and left as it was.
mkdir -p pre/ncu
echo keep >pre/notes.txt
echo old >pre/ncu/profile.ncu-rep
set +e
"$bin" profile hydra.run.dir=pre -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "pre-filled folder: exited $rc, want 2"
grep -q "run folder 'pre' is not empty (ncu, notes.txt)" err.txt || fail "pre-filled folder: message: $(cat err.txt)"
grep -q "hydra.run.dir=PATH" err.txt || fail "pre-filled folder: no fix named: $(cat err.txt)"
[[ $(cat pre/notes.txt) == keep && $(cat pre/ncu/profile.ncu-rep) == old ]] || fail "a file from before the run changed"
[[ -e pre/run.json || -e pre/.llmpo.lock ]] && fail "the refused folder got run files"
echo "ok"
