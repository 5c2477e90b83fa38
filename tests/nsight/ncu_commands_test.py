#!/usr/bin/env python3
"""Every ncu command `profile` builds is accepted by the installed ncu.

For each preset x replay mode x NVTX filter, `profile` runs the real ncu on
our CPU NVTX program: ncu must validate the options and run the program
(it ends "No kernels were profiled"/"No ranges were profiled", rc 0), never
reject them (rc 255, "unrecognised option", "==ERROR=="); the step is then
failed because no report was written, with that reason. What the installed
ncu cannot do (app-range replay, --range-filter, --graph-profiling before
2023.1) is refused before anything runs, naming the version that can. The
export commands (`--import ... --csv --page raw|details`) run on the shared
reports ncu 2022.3 wrote, when ../shared/fixtures is there.

  ncu_commands_test.py BIN NVTX_CPU_PROGRAM SOURCE_DIR
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PRESETS = ["ncu.default", "ncu.high", "ncu.rtx3090"]
REPLAYS = ["kernel", "application", "range"]
FILTERS = [[], ["pipeline.ncu.ncu_cli.nvtx.include=[outer]"], ["pipeline.ncu.ncu_cli.nvtx.include=[Alpha@step/]"]]
REJECTED = re.compile(r"==ERROR==|unrecognised option|unrecognized option|invalid|not supported", re.I)


def require_ncu():
    result = subprocess.run(["bash", "-c", f". {HERE}/lib.sh; require_tools ncu"])
    if result.returncode:
        sys.exit(result.returncode)


def ncu_version():
    out = subprocess.run(["ncu", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(20\d\d)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def step(run_json, name):
    for s in json.loads(Path(run_json).read_text())["steps"]:
        if s["name"] == name:
            return s
    return None


def run_once(binary, program, run, overrides, work):
    argv = [binary, "profile", f"hydra.run.dir={run}", "pipeline.ncu.enable=true", *overrides, "--", program]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=work, timeout=300)
    ncu = step(run / "run.json", "ncu") if (run / "run.json").exists() else None
    log = "".join((run / "ncu" / f).read_text(errors="replace")
                  for f in ("ncu.stdout.log", "ncu.stderr.log") if (run / "ncu" / f).exists())
    return done, ncu, log


def check_run(binary, program, work, index, overrides, problems):
    label = " ".join(overrides)
    # ncu validates the options before it starts the program; "Failed to
    # connect to process" comes after that (its port taken by another ncu on
    # a busy machine), so such a try says nothing about the options: retried.
    for attempt in range(3):
        run = work / f"r{index}-{attempt}"
        done, ncu, log = run_once(binary, program, run, overrides, work)
        if "Failed to connect to process" not in log:
            break
        print(f"note: {label}: ncu could not connect to the program (try {attempt + 1}); again")
    if ncu is None or "argv" not in ncu:
        problems.append(f"{label}: ncu did not run (exit {done.returncode}): {done.stderr.strip()[:400]}")
        return
    if ncu.get("exit_code") != 0 or REJECTED.search(log):
        problems.append(f"{label}: ncu rejected `{shlex.join(ncu['argv'])}` (exit {ncu.get('exit_code')}): "
                        f"{log.strip()[:400]}")
    elif "No kernels were profiled" not in log and "No ranges were profiled" not in log:
        problems.append(f"{label}: ncu did not say it profiled nothing: {log.strip()[:400]}")
    elif ncu["status"] != "failed" or not re.search("profiled no (kernel|range)", ncu.get("reason", "")):
        problems.append(f"{label}: step {ncu['status']}: {ncu.get('reason')} (no report was written)")


def check_refusals(binary, program, work, version, problems):
    cases = [["pipeline.ncu.ncu_cli.replay_mode=app-range", "pipeline.ncu.ncu_cli.nvtx.include=[outer]"],
             ["pipeline.ncu.ncu_cli.range_filter=:1:1", "pipeline.ncu.ncu_cli.replay_mode=range",
              "pipeline.ncu.ncu_cli.nvtx.include=[outer]"],
             ["pipeline.ncu.ncu_cli.graph_profiling=node"]]
    for i, overrides in enumerate(cases):
        run = work / f"refused{i}"
        done = subprocess.run([binary, "profile", f"hydra.run.dir={run}", "pipeline.ncu.enable=true", *overrides,
                               "--", program], capture_output=True, text=True, cwd=work, timeout=300)
        if version >= (2023, 1):
            continue  # the installed ncu can; the runs above cover acceptance
        if done.returncode != 4 or "2023.1 or newer" not in done.stderr or run.exists():
            problems.append(f"{overrides}: not refused before running (exit {done.returncode}, folder made: "
                            f"{run.exists()}): {done.stderr.strip()[:400]}")


def check_exports(binary, program, source, problems):
    """The export commands, as a dry run prints them, on reports this ncu can read."""
    reports = sorted((source.parent / "shared" / "fixtures" / "ncu-rep").glob("nsight-training-*.ncu-rep"))
    if not reports:
        print("note: ../shared/fixtures absent; export commands not run")
        return
    dry = subprocess.run([binary, "profile", "--dry-run", "hydra.run.dir=/tmp/x", "pipeline.ncu.enable=true",
                          "--", program], capture_output=True, text=True, check=True).stdout.splitlines()
    exports = [shlex.split(dry[i + 1]) for i, line in enumerate(dry) if line.startswith("# step ncu-export-")]
    if len(exports) != 2:
        problems.append(f"dry run lists {len(exports)} export commands: {dry}")
    for report in reports:
        for argv in exports:
            argv = [str(report) if a.endswith(".ncu-rep") else a for a in argv]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
            if done.returncode or REJECTED.search(done.stderr) or not done.stdout.startswith('"ID"'):
                problems.append(f"`{shlex.join(argv)}`: exit {done.returncode}: {done.stderr.strip()[:300]}")


def main():
    binary, program, source = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    require_ncu()
    version = ncu_version() or (0, 0)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        index = 0
        for preset in PRESETS:
            for replay in REPLAYS:
                for nvtx in FILTERS:
                    overrides = [f"profiling/ncu@pipeline.ncu={preset}",
                                 f"pipeline.ncu.ncu_cli.replay_mode={replay}", *nvtx]
                    check_run(binary, program, work, index, overrides, problems)
                    index += 1
        check_refusals(binary, program, work, version, problems)
    check_exports(binary, program, source, problems)
    for p in problems:
        print("PROBLEM:", p)
    print(f"ncu {version[0]}.{version[1]}: {index} profile commands, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
