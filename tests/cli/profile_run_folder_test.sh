#!/usr/bin/env bash
# `profile` makes a run folder with config.yaml, env.json, inputs.yaml and a
# run.json that lists steps and artifacts; an enabled tool that is not
# installed gives status failed and exit code 4; a reused folder is refused.
set -euo pipefail
bin=$(realpath "$1")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The system's programs without nsys and ncu (Debian's 2022.x may be installed here).
nosight=$(bash "$(dirname "$0")/../path_without_nsight.sh" "$work")
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" profile hydra.run.dir=runs/a -- ./my_app --steps 3 >out.txt || fail "profile exited $?"
for f in config.yaml env.json inputs.yaml run.json; do [[ -s runs/a/$f ]] || fail "runs/a/$f missing"; done
ls runs/a | grep -q '\.tmp\.' && fail "temporary files left behind"
grep -q "run folder: $work/runs/a" out.txt || fail "summary does not name the run folder"

python3 - runs/a <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
m = json.loads((d / "run.json").read_text())
assert m["schema_version"] == "1.1.0", m
assert m["status"] == "ok", m["status"]
assert m["end_time"], "end_time missing"
assert [s["name"] for s in m["steps"]] == ["trace", "nsys", "ncu"], m["steps"]
assert all(s["status"] == "skipped" and "enable=false" in s["reason"] for s in m["steps"]), m["steps"]
assert {a["path"] for a in m["artifacts"]} == {"config.yaml", "env.json", "inputs.yaml"}, m["artifacts"]
assert m["command_line"][-4:] == ["--", "./my_app", "--steps", "3"], m["command_line"]
env = json.loads((d / "env.json").read_text())
assert "tools_on_path" in env and "ncu" in env["tools_on_path"], env
inputs = (d / "inputs.yaml").read_text()
assert "./my_app" in inputs and "--steps" in inputs, inputs
cfg = (d / "config.yaml").read_text()
assert "dir: runs/a" in cfg and "- ./my_app" in cfg, cfg
PY

set +e
PATH="$nosight" "$bin" profile hydra.run.dir=runs/b pipeline.ncu.enable=true -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 4 ]] || fail "enabled tool not installed: expected exit 4, got $rc"
python3 -c "
import json; m = json.load(open('runs/b/run.json'))
assert m['status'] == 'failed', m['status']
ncu = [s for s in m['steps'] if s['name'] == 'ncu'][0]
assert ncu['status'] == 'skipped' and 'not found on PATH' in ncu['reason'], ncu
"

set +e
"$bin" profile hydra.run.dir=runs/a >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "reused run folder: expected exit 2, got $rc"
grep -q "already holds a run" err.txt || fail "reused run folder: message missing"
echo "ok"
