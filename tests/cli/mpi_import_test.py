#!/usr/bin/env python3
"""import --mpi under Open MPI's mpirun against one import of the same files
in the same order: the same report files byte for byte (and no partial left
in the output folder); more ranks than files; no MPI variables (exit 2); a
bad input reported as import reports it; a failing rank named by rank 0; a
rank that never delivers (rank 0's timeout).

Runs on hand-made ranks (tests/fixtures/handmade/kineto_rank3.json with its
rank rewritten) and, with `shared`, on the shared 8-rank DLRM archive
(../shared/fixtures/kineto/param-dlrm-8ranks.tar.gz; exit 77 when absent).
Exit 77 when mpirun (Debian's openmpi-bin) is not installed.

  mpi_import_test.py BINARY SOURCE_ROOT [shared]
"""
import glob
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from checks import same_folders

BIN = sys.argv[1]
ROOT = pathlib.Path(sys.argv[2]).resolve()
FIXTURES = ROOT.parent / "shared" / "fixtures" / "kineto"
MPIRUN = shutil.which("mpirun")
MPI_VARS = ("OMPI_", "PMIX_", "PMI_", "SLURM_")


def bare_env(**extra):
    """This environment without any launcher variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(MPI_VARS)}
    env.update(extra)
    return env


def run(args, ok=True, env=None):
    r = subprocess.run(args, capture_output=True, text=True, env=env if env is not None else bare_env(),
                       timeout=600)
    if ok and r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


def mpirun(ranks, *args, ok=True):
    return run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), BIN, *args], ok=ok)


def check_identity(files, d, name, ranks):
    run([BIN, "import", "--read-whole", *files, "--out", f"{d}/{name}-whole"])
    r = mpirun(ranks, "import", "--mpi", *files, "--out", f"{d}/{name}-mpi")
    assert f"on {ranks} rank(s) (ranks from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, job " in r.stdout, r.stdout
    for rank in range(1, ranks):
        assert f"rank {rank} of {ranks}: imported" in r.stdout, r.stdout
    n = same_folders(f"{d}/{name}-whole", f"{d}/{name}-mpi")
    print(f"ok: {name}: mpirun -np {ranks} import --mpi of {len(files)} file(s): {n} report file(s) identical "
          "to one import")


def handmade(d):
    text = (ROOT / "tests/fixtures/handmade/kineto_rank3.json").read_text()
    files = []
    for rank in range(4):
        p = f"{d}/rank{rank}.json"
        pathlib.Path(p).write_text(text.replace('"rank": 3', f'"rank": {rank}'))
        files.append(p)
    check_identity(files, d, "handmade", 3)
    check_identity(files, d, "more-ranks", 6)  # ranks 4 and 5 get no file
    return files


def bad_cases(d, files):
    # No launcher: refused before anything is written.
    r = run([BIN, "import", "--mpi", *files, "--out", f"{d}/nompi"], ok=False)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "no MPI rank variable is set" in r.stderr and "mpirun -np K" in r.stderr, r.stderr
    assert not os.path.exists(f"{d}/nompi"), "refused --mpi wrote its output folder"
    # A rank with an input that does not parse: rank 0 reports it as import
    # does (exit 3), the others' reports are written, as by import -j.
    broken = f"{d}/rank2-broken.json"
    pathlib.Path(broken).write_text('{"traceEvents": [ {"ph": "X", "name": ')
    bad = [files[0], files[1], broken, files[3]]
    r = mpirun(3, "import", "--mpi", *bad, "--out", f"{d}/bad-mpi", ok=False)
    assert r.returncode == 3 and "rank2-broken.json" in r.stderr, (r.returncode, r.stderr)
    assert "rank 1 of 3: imported 0 of 1 input(s)" in r.stdout and "1 failed (rank 0 reports them)" in r.stdout, \
        r.stdout
    r = run([BIN, "import", "-j", "2", *bad, "--out", f"{d}/bad-pooled"], ok=False)
    assert r.returncode == 3, r.returncode
    same_folders(f"{d}/bad-pooled", f"{d}/bad-mpi")
    # A rank that fails (two of its files claim one rank): its failure file
    # stops rank 0's wait, rank 0 names it and writes nothing.
    dup = f"{d}/again-rank1.json"  # not byte-identical: identical contents are read once (input_dedupe.h)
    pathlib.Path(dup).write_text(pathlib.Path(files[1]).read_text() + "\n")
    r = mpirun(3, "import", "--mpi", files[0], files[2], files[1], dup, files[3], "--out", f"{d}/dup-mpi", ok=False)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "rank 1 of 3 failed" in r.stderr and "rank 1 is claimed twice" in r.stderr, r.stderr
    left = sorted(str(p.relative_to(f"{d}/dup-mpi")) for p in pathlib.Path(f"{d}/dup-mpi").rglob("*") if p.is_file())
    # Rank 2, still running when rank 0 stopped, may leave its partial (or,
    # its folder removed under it, a failure file): nothing else, no report.
    assert all(re.fullmatch(r"\.mpi-partials/job-[^/]+/rank-2\.(json|failed)", f) for f in left), left
    # Rank 1 of 2 alone (the variables as mpirun sets them): it writes its
    # partial and exits 0; rank 0 then finds it and merges.
    env1 = bare_env(OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2", PMIX_NAMESPACE="test-job")
    env0 = bare_env(OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_SIZE="2", PMIX_NAMESPACE="test-job")
    run([BIN, "import", "--mpi", *files, "--out", f"{d}/two"], env=env1)
    assert os.path.isfile(f"{d}/two/.mpi-partials/job-test-job/rank-1.json"), os.listdir(f"{d}/two")
    assert not os.path.exists(f"{d}/two/kernels.json"), "rank 1 wrote reports"
    run([BIN, "import", "--mpi", *files, "--out", f"{d}/two"], env=env0)
    same_folders(f"{d}/handmade-whole", f"{d}/two")
    # Rank 0 alone, rank 1 never delivers: the timeout names it (exit 1).
    r = run([BIN, "import", "--mpi", "--mpi-timeout", "1", *files, "--out", f"{d}/alone"], env=env0, ok=False)
    assert r.returncode == 1 and "rank(s) 1 of 2 delivered no partial within 1 s" in r.stderr, (r.returncode, r.stderr)
    assert os.listdir(f"{d}/alone") == [], os.listdir(f"{d}/alone")
    # A rank number that is not below the world size.
    r = run([BIN, "import", "--mpi", *files, "--out", f"{d}/x"],
            env=bare_env(PMI_RANK="3", PMI_SIZE="3"), ok=False)
    assert r.returncode == 2 and "rank 3 (PMI_RANK) is not below the world size 3 (PMI_SIZE)" in r.stderr, r.stderr
    print("ok: no MPI variables (exit 2), a bad input (exit 3, reports as import -j), a failing rank named "
          "(exit 3), rank 1 then rank 0 by hand, rank 0's timeout (exit 1), a rank past the world size")


def shared(d):
    archive = FIXTURES / "param-dlrm-8ranks.tar.gz"
    if not archive.is_file():
        print(f"skip: {archive} is absent (shared multi-rank fixture)")
        return False
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(d, filter="data")
        except TypeError:  # Debian 12's Python 3.11.2 predates extraction filters; the archive is a shared fixture
            tar.extractall(d)
    dlrm = sorted(glob.glob(f"{d}/dlrm_kineto/*.json"))
    assert len(dlrm) == 8, dlrm
    check_identity(dlrm, d, "dlrm", 3)
    return True


if MPIRUN is None:
    print("skip: mpirun (Debian's openmpi-bin, in scripts/setup.sh) is not installed")
    sys.exit(77)
with tempfile.TemporaryDirectory() as d:
    if sys.argv[3:] == ["shared"]:
        sys.exit(0 if shared(d) else 77)
    bad_cases(d, handmade(d))
