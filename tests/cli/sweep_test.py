#!/usr/bin/python3
"""Sweeps (-m) end to end (docs/sweeps.md).

    sweep_test.py BINARY [SLEEP_PROGRAM]

1. With the fake ncu/nsys (tests/cli/fake_tools) and FAKE_NCU_SLEEP=1:
   `profile -m pipeline.step_timeout_s=60,0.3,60`: the middle point times out
   and fails, the sweep goes on (exit 6, partial); sweep.json records it
   with its reason, the other two have GPU kernel times and point 2 has
   compare's verdict against point 0; multirun.yaml is Hydra's shape.
2. A sweep folder with another sweep, or other files, is refused (exit 2)
   and left as it was; --resume without a sweep there is refused.
3. With SLEEP_PROGRAM (tests/tracer/nvtx_sleep_program; the tracer built):
   `trace -m ++units=1,2,4` over a program whose range "work" sleeps units x
   60 ms: sweep.json's curve of its CPU range time grows by about 60 ms per
   unit, and "fixed" stays flat; each point is a run folder `report` and
   `compare` accept.
4. Ctrl-C during point 1 of 3 stops the sweep (exit 130), keeps point 0; the
   same command again skips point 0, moves the interrupted attempt to
   previous/, runs the rest (exit 0).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.realpath(sys.argv[1])
SLEEP = os.path.realpath(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
HERE = os.path.dirname(os.path.realpath(__file__))
FAKES = os.path.join(HERE, "fake_tools")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(args, env=None, check_rc=None):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, env=env, timeout=300)
    if check_rc is not None and p.returncode != check_rc:
        fail("%s: exit %d, want %d\n%s\n%s" % (" ".join(args), p.returncode, check_rc, p.stdout, p.stderr))
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def quantity(sweep, qid):
    return [p["quantities"].get(qid) for p in sweep["points"]]


def fake_profile_sweep(work):
    nosight = subprocess.run(["bash", os.path.join(HERE, "..", "path_without_nsight.sh"), work],
                             capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, PATH=FAKES + ":" + nosight, FAKE_NCU_SLEEP="1")
    run(["profile", "-m", "hydra.sweep.dir=fk", "pipeline.ncu.enable=true", "pipeline.step_timeout_s=60,0.3,60",
         "--", "/bin/true"], env=env, check_rc=6)
    sweep = load("fk/sweep.json")
    assert sweep["schema_version"] == "1.0.0" and sweep["keys"] == ["pipeline.step_timeout_s"], sweep["keys"]
    status = [p["status"] for p in sweep["points"]]
    if status[0] != "ok" or status[2] != "ok" or status[1] == "ok":
        fail("statuses %s" % status)
    if not sweep["points"][1]["reason"]:
        fail("the failed point has no reason")
    times = quantity(sweep, "gpu_kernel_ms")
    if times[0] is None or times[2] is None or times[1] is not None:
        fail("GPU kernel times %s" % times)
    vs = sweep["points"][2]["vs_baseline"]
    if vs is None or vs["verdict"] not in ("slower", "faster", "within noise"):
        fail("point 2 vs the baseline: %s" % vs)
    if not sweep["points"][0]["baseline"] or sweep["points"][0]["vs_baseline"] is not None:
        fail("point 0 is the baseline")
    with open("fk/multirun.yaml") as f:
        text = f.read()
    for needle in ("mode: MULTIRUN", "task:", "pipeline.step_timeout_s=60,0.3,60"):
        if needle not in text:
            fail("multirun.yaml lacks %r" % needle)
    for f in ("sweep.md", "sweep.html", "logs/1.err", "0/run.json", "2/report_set.json"):
        if not os.path.exists(os.path.join("fk", f)):
            fail("fk/%s is missing" % f)
    print("fake-tools sweep: ok (point 1 failed: %s)" % sweep["points"][1]["reason"])


def refusals():
    with open("fk/multirun.yaml") as f:
        before = f.read()
    p = run(["trace", "-m", "hydra.sweep.dir=fk", "++x=1,2", "--", "/bin/true"], check_rc=2)
    if "different sweep" not in p.stderr:
        fail("another sweep in the folder: " + p.stderr)
    with open("fk/multirun.yaml") as f:
        if f.read() != before:
            fail("the other sweep's multirun.yaml changed")
    os.makedirs("other")
    with open("other/notes.txt", "w") as f:
        f.write("mine\n")
    p = run(["trace", "-m", "hydra.sweep.dir=other", "++x=1,2", "--", "/bin/true"], check_rc=2)
    if "other files" not in p.stderr or sorted(os.listdir("other")) != ["notes.txt"]:
        fail("a folder of other files: %s %s" % (p.stderr, os.listdir("other")))
    p = run(["trace", "-m", "--resume", "hydra.sweep.dir=nothing", "++x=1,2", "--", "/bin/true"], check_rc=2)
    if "holds no sweep" not in p.stderr or os.path.exists("nothing"):
        fail("--resume without a sweep: %s (folder made: %s)" % (p.stderr, os.path.exists("nothing")))
    print("refusals: ok")


def sweep_args(folder, units, ms):
    return ["trace", "-m", "hydra.sweep.dir=" + folder, "++units=" + units,
            "pipeline.workload.argv=[%s,${units},%d]" % (SLEEP, ms)]


def curve():
    # A sleep lasts at least its time; a loaded machine adds a wake-up delay
    # on top (tens of ms on 2 busy cores), so the check is the lower bound,
    # a loose upper bound, and the slope (ms per unit) from units 1 to 4.
    ms = 60
    run(sweep_args("curve", "1,2,4", ms), check_rc=0)
    sweep = load("curve/sweep.json")
    work = quantity(sweep, "region_cpu_ms:work")
    fixed = quantity(sweep, "region_cpu_ms:fixed")
    if None in work or None in fixed:
        fail("CPU range times missing: work %s fixed %s" % (work, fixed))
    for units, w in zip((1, 2, 4), work):
        if not 0.98 * units * ms <= w <= units * ms + 150:
            fail("work at units=%d is %.1f ms, want %d ms (plus a wake-up delay)" % (units, w, units * ms))
    slope = (work[2] - work[0]) / 3
    if not 0.6 * ms <= slope <= 1.5 * ms:
        fail("work grows by %.1f ms per unit (%s), want about %d" % (slope, work, ms))
    if max(fixed) - min(fixed) > 100:
        fail("the fixed range is not flat: %s" % fixed)
    run(["report", "curve/1"], check_rc=0)
    run(["compare", "curve/0", "curve/2", "--out", "curve-cmp"], check_rc=0)
    print("trace curve: ok (work %s ms for units 1, 2, 4)" % ", ".join("%.1f" % w for w in work))


def interrupted_then_resumed():
    args = sweep_args("intr", "1,40,1", 50)
    proc = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not os.path.exists("intr/logs/1.err") and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # point 1 sleeps 2 s: stop it in the middle
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode != 130:
        fail("Ctrl-C: exit %d\n%s\n%s" % (proc.returncode, out, err))
    sweep = load("intr/sweep.json")
    status = [p["status"] for p in sweep["points"]]
    if status[0] != "ok" or status[1] == "ok" or os.path.exists("intr/2"):
        fail("after Ctrl-C: %s, point 2 folder %s" % (status, os.path.exists("intr/2")))
    p = run(args, check_rc=0)
    if "1 skipped as complete before" not in p.stdout:
        fail("the resumed sweep did not skip point 0: " + p.stdout)
    if not os.path.isdir("intr/previous/1-1"):
        fail("the interrupted attempt was not kept in previous/")
    status = [p["status"] for p in load("intr/sweep.json")["points"]]
    if status != ["ok", "ok", "ok"]:
        fail("after the resume: %s" % status)
    print("interrupt and resume: ok")


def main():
    work = tempfile.mkdtemp(prefix="sweep_test.")
    try:
        os.chdir(work)
        fake_profile_sweep(work)
        refusals()
        tracer_ok = SLEEP and run(["trace", "hydra.run.dir=probe", "--", "/bin/true"]).returncode != 7
        if not tracer_ok:
            print("SKIP (parts 3, 4): no nvtx_sleep_program or no tracer library in this build")
            return
        curve()
        interrupted_then_resumed()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("sweep tests passed")


if __name__ == "__main__":
    main()
