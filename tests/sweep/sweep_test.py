#!/usr/bin/python3
"""Sweep.<part>: tools/fabric-sweep's steps, end to end, on a sweep small
enough to take seconds (two load-balancing modes, the two_flows workload on
leaf_spine_2x2_8h, each run stopped at 500 us of virtual time).

  sweep_test.py --build-dir DIR steps      plan, run-one, collect, local: files,
                                           resuming, a failed run, bad input
  sweep_test.py --build-dir DIR parallel   GNU parallel (local, no ssh), --joblog and
                                           --resume; a removed run's folder is rerun alone
  sweep_test.py --build-dir DIR slurm      a single-node Slurm on localhost (munged,
                                           slurmctld, slurmd from a generated slurm.conf
                                           in a temporary folder); the sweep as a job
                                           array with --wait; resubmitting reruns only
                                           what is missing

parallel and slurm compare the collected table (sweep.json, each run's
`cost` aside, and sweep.md) with what `local` collects from the same plan.
slurm needs root and the slurm-wlm and munge packages (tools/setup installs
them); it runs in new PID and mount namespaces (unshare(1)) when it can, and stops every daemon it started, by pid, whatever happens. Without
what a part needs it exits 77 (ctest: skipped) with the reason, never 0.
Standard library only.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SWEEP = os.path.join(ROOT, "tools/fabric-sweep")
SKIP = 77


class Skip(Exception):
    pass


def sweep_args(build_dir, modes="fixed,drill"):
    return ["--rocelb-dp", os.path.join(build_dir, "dataplane/rocelb-dp"),
            "--topology", os.path.join(ROOT, "configs/fabrics/leaf_spine_2x2_8h.yaml"),
            "--workloads", os.path.join(ROOT, "configs/workloads/two_flows.yaml"),
            "--modes", modes, "--recovery", "go_back_n", "--until", "500us"]


def sweep(*args, env=None, timeout=120):
    r = subprocess.run([SWEEP] + list(args), capture_output=True, text=True, env=env,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return r


def check(cond, what, r=None):
    if not cond:
        extra = ""
        if r is not None:
            extra = "\n  exit %d\n  stdout: %s\n  stderr: %s" % (r.returncode, r.stdout.strip(),
                                                              r.stderr.strip())
        raise AssertionError(what + extra)


def ok(r, what):
    check(r.returncode == 0, what + ": exit 0", r)
    return r


def bad(r, what, needle):
    """A bad input: exit 2, one line on stderr, naming NEEDLE."""
    check(r.returncode == 2, what + ": exit 2", r)
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and needle in lines[0], what + ": one line naming %r" % needle, r)


def table(out_dir):
    """sweep.json without the runs' cost (wall time, host), and sweep.md."""
    with open(os.path.join(out_dir, "sweep.json")) as f:
        doc = json.load(f)
    for r in doc["runs"]:
        r.pop("cost")
    with open(os.path.join(out_dir, "sweep.md")) as f:
        return doc, f.read()


def same_table(got_dir, want_dir, what):
    got, want = table(got_dir), table(want_dir)
    check(got[0]["missing"] == [] and got[0]["failed"] == [], what + ": every run collected")
    check(len(got[0]["runs"]) == 2, what + ": two runs in the table")
    check(got[0] == want[0], what + ": sweep.json equals the local run's\n  got:  %s\n  want: %s"
          % (json.dumps(got[0])[:2000], json.dumps(want[0])[:2000]))
    check(got[1] == want[1], what + ": sweep.md equals the local run's\n%s\n%s" % (got[1], want[1]))


def record(out_dir, rel):
    with open(os.path.join(out_dir, rel, "sweep-run.json")) as f:
        return json.load(f)


def leftovers(out_dir):
    """Temporary folders a run left behind."""
    found = []
    for dirpath, dirnames, _ in os.walk(out_dir):
        found += [os.path.join(dirpath, d) for d in dirnames if ".tmp-" in d]
    return found


def local_reference(build_dir, work):
    ref = os.path.join(work, "local")
    ok(sweep("local", "--out-dir", ref, *sweep_args(build_dir)), "local run of the plan")
    return ref


# ---------------------------------------------------------------- steps


def part_steps(build_dir, work):
    args = sweep_args(build_dir, "fixed,nope")
    d = os.path.join(work, "s")
    # Bad input: one line, exit 2.
    bad(sweep("frobnicate", "--out-dir", d), "an unknown step", "unknown step 'frobnicate'")
    bad(sweep("run-one", "--out-dir", d, "0"), "run-one without a manifest", "manifest.tsv")
    bad(sweep("collect", "--out-dir", d), "collect without a manifest", "manifest.tsv")
    bad(sweep("plan", "--out-dir", d, *args, "--workloads", "/nonexistent.yaml"),
        "a workload that is not there", "/nonexistent.yaml")
    check(not os.path.exists(os.path.join(d, "manifest.tsv")), "a refused plan writes nothing")

    # plan: the manifest and the plan, nothing else.
    r = ok(sweep("plan", "--out-dir", d, *args), "plan")
    check(sorted(os.listdir(d)) == ["manifest.tsv", "sweep-plan.json"],
          "plan writes manifest.tsv and sweep-plan.json only: %s" % os.listdir(d))
    with open(os.path.join(d, "manifest.tsv")) as f:
        lines = [l.rstrip("\n").split("\t") for l in f]
    check([l[:3] for l in lines] == [["0", "two_flows/fixed-go_back_n", "1"],
                                     ["1", "two_flows/nope-go_back_n", "1"]],
          "manifest: index, folder, seed per run: %s" % lines)
    argv = json.loads(lines[0][3])
    check(argv[1] == "fabric" and "groups.uplinks.mode=fixed" in argv and "500us" in argv
          and argv[argv.index("--out-dir") + 1] == os.path.join(d, "two_flows/fixed-go_back_n"),
          "manifest: the whole argument vector: %s" % argv)
    bad(sweep("run-one", "--out-dir", d, "2"), "run-one past the last line", "out of range")
    bad(sweep("run-one", "--out-dir", d, "-1"), "run-one before the first line", "out of range")
    bad(sweep("run-one", "--out-dir", d, "x"), "run-one of no number", "invalid int")

    # run-one: into its folder, atomically; a second time it is skipped.
    r = ok(sweep("run-one", "--out-dir", d, "0"), "run-one 0")
    run0 = os.path.join(d, "two_flows/fixed-go_back_n")
    check(os.path.isfile(os.path.join(run0, "summary.json")), "run-one 0 wrote its outputs")
    first = record(d, "two_flows/fixed-go_back_n")
    check(first["index"] == 0 and first["argv"] == argv, "sweep-run.json records the run")
    r = ok(sweep("run-one", "--out-dir", d, "0"), "run-one 0 again")
    check("done already" in r.stdout, "a line done is skipped", r)
    check(record(d, "two_flows/fixed-go_back_n") == first, "a skipped line is not rerun")

    # A run that fails: FOLDER.failed with the error, no folder, no temporary left.
    r = sweep("run-one", "--out-dir", d, "1")
    check(r.returncode == 1 and "nope" in r.stderr, "run-one 1 (mode nope) fails", r)
    run1 = os.path.join(d, "two_flows/nope-go_back_n")
    check(not os.path.exists(run1), "a failed run leaves no folder")
    with open(run1 + ".failed") as f:
        marker = f.read()
    check(marker.startswith("exit 2: ") and "nope" in marker, "the failed marker: %s" % marker)
    check(not leftovers(d), "no temporary folder left: %s" % leftovers(d))

    # collect: the table of what finished, the rest listed; exit 1 while any is missing.
    r = sweep("collect", "--out-dir", d)
    check(r.returncode == 1, "collect with a failed run exits 1", r)
    check("| two_flows | fixed | go_back_n |" in r.stdout and "run 1, two_flows nope go_back_n"
          in r.stdout and "failed: exit 2:" in r.stdout, "collect lists the failed run", r)
    with open(os.path.join(d, "sweep.json")) as f:
        doc = json.load(f)
    check([x["index"] for x in doc["runs"]] == [0] and [x["index"] for x in doc["failed"]] == [1]
          and doc["missing"] == [], "sweep.json: runs, failed, missing: %s" % doc)

    # Malformed manifest: one line naming the file and the line.
    m = os.path.join(d, "manifest.tsv")
    with open(m) as f:
        saved = f.read()
    with open(m, "a") as f:
        f.write("2\tx\n")
    bad(sweep("collect", "--out-dir", d), "a malformed manifest", "manifest.tsv:3")
    with open(m, "w") as f:
        f.write(saved)

    # A new plan: runs of the old one are not done under it (another --until).
    ok(sweep("plan", "--out-dir", d, *sweep_args(build_dir, "fixed,drill")[:-1], "400us"),
       "plan again")
    r = sweep("collect", "--out-dir", d)
    check(r.returncode == 1 and "2 of 2 runs are not in the table" in r.stdout,
          "a run of another plan is not collected", r)

    # local: runs what is not done (the failed marker goes), then collects; again: nothing.
    r = ok(sweep("local", "--out-dir", d, "--jobs", "2"), "local")
    check("| two_flows | drill | go_back_n |" in r.stdout, "local prints the table", r)
    r = ok(sweep("local", "--out-dir", d), "local again")
    check("2 of 2 runs were done already" in r.stderr, "local resumes: nothing rerun", r)


# ---------------------------------------------------------------- parallel


def part_parallel(build_dir, work):
    if not shutil.which("parallel"):
        raise Skip("GNU parallel is not installed (tools/setup installs it)")
    ref = local_reference(build_dir, work)
    d = os.path.join(work, "p")
    ok(sweep("plan", "--out-dir", d, *sweep_args(build_dir)), "plan")
    r = ok(sweep("parallel", "--out-dir", d, "--dry-run"), "parallel --dry-run")
    check(r.stdout.startswith("parallel --joblog %s/joblog --resume " % d)
          and "run-one --out-dir %s" % d in r.stdout, "the parallel command", r)
    check(not os.path.exists(os.path.join(d, "two_flows")), "--dry-run runs nothing")
    ok(sweep("parallel", "--out-dir", d, "--jobs", "2"), "parallel")
    same_table(d, ref, "parallel")

    def joblog():
        with open(os.path.join(d, "joblog")) as f:
            rows = [l.split("\t") for l in f.read().splitlines()[1:]]
        return sorted((int(r[0]), int(r[6])) for r in rows)  # Seq, Exitval

    check(joblog() == [(1, 0), (2, 0)], "the joblog: both runs, exit 0: %s" % joblog())
    kept = record(d, "two_flows/fixed-go_back_n")
    shutil.rmtree(os.path.join(d, "two_flows/drill-go_back_n"))
    r = ok(sweep("parallel", "--out-dir", d, "--jobs", "2"), "parallel --resume")
    check(joblog() == [(1, 0), (2, 0)], "--resume ran the removed run again, alone: %s"
          % joblog())
    with open(os.path.join(d, "joblog")) as f:
        check(len(f.read().splitlines()) == 3, "the joblog: a header and two runs")
    check(record(d, "two_flows/fixed-go_back_n") == kept, "the run still there is not rerun")
    check(record(d, "two_flows/drill-go_back_n")["started"] > kept["started"],
          "the removed run ran again")
    same_table(d, ref, "parallel --resume")


# ---------------------------------------------------------------- slurm


SLURM_PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo", "scancel")


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class Cluster:
    """munged, slurmctld and slurmd on localhost, everything in one folder;
    stop() ends each daemon it started, and every process they started."""

    def __init__(self, work):
        self.dir = os.path.join(work, "slurm")
        self.procs = []
        os.makedirs(self.dir)
        os.chmod(work, 0o755)
        os.chmod(self.dir, 0o755)  # munged: everyone may reach its socket
        for sub, mode in (("munge", 0o700), ("run", 0o755), ("state", 0o755),
                          ("spool", 0o755), ("log", 0o755)):
            os.makedirs(os.path.join(self.dir, sub), mode=mode)
            os.chmod(os.path.join(self.dir, sub), mode)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self, what, argv, log):
        f = open(os.path.join(self.dir, "log", log), "w")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=self.env,
                             stdin=subprocess.DEVNULL)
        f.close()
        self.procs.append((what, p))
        return p

    def wait_for(self, what, cond, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise AssertionError("%s exited %d while waiting for %s" %
                                         (name, p.returncode, what))
            if cond():
                return
            time.sleep(0.2)
        raise AssertionError("no %s after %d s" % (what, seconds))

    def up(self):
        d = self.dir
        key = os.path.join(d, "munge/munge.key")
        if shutil.which("mungekey"):
            subprocess.run(["mungekey", "--create", "--keyfile", key], check=True)
        else:
            with open("/dev/urandom", "rb") as r, open(key, "wb") as w:
                w.write(r.read(1024))
        os.chmod(key, 0o600)
        sock = os.path.join(d, "run/munge.socket")
        self.start("munged", ["munged", "--foreground", "--socket=" + sock, "--key-file=" + key,
                              "--log-file=" + os.path.join(d, "log/munged.log"),
                              "--pid-file=" + os.path.join(d, "run/munged.pid"),
                              "--seed-file=" + os.path.join(d, "munge/seed")], "munged.out")
        self.wait_for("munge socket", lambda: os.path.exists(sock), 10)
        ctld, slurmd = free_ports(2)
        with open(self.conf, "w") as f:
            f.write("""# a one-node cluster on localhost for tests/sweep (written by sweep_test.py)
ClusterName=rocelbsweep
SlurmctldHost=localhost
SlurmctldPort={ctld}
SlurmdPort={slurmd}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=localhost CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""".format(ctld=ctld, slurmd=slurmd, sock=sock, d=d, cpus=min(2, os.cpu_count() or 1)))
        self.start("slurmctld", ["slurmctld", "-D", "-f", self.conf], "slurmctld.out")
        self.start("slurmd", ["slurmd", "-D", "-N", "localhost", "-f", self.conf], "slurmd.out")

        def idle():
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                               env=self.env)
            return r.returncode == 0 and r.stdout.strip() == "idle"
        self.wait_for("idle node in sinfo", idle, 30)

    def ours(self):
        """Every process whose environment names this slurm.conf: the daemons'
        slurmstepd and job scripts (they inherit it)."""
        mark = ("SLURM_CONF=" + self.conf).encode() + b"\0"
        pids = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        continue  # ended, not yet reaped
                with open("/proc/%s/environ" % pid, "rb") as f:
                    if mark in f.read() + b"\0":
                        pids.append(int(pid))
            except (OSError, IndexError):
                pass
        return pids

    def stop(self):
        if self.procs and os.path.exists(self.conf):
            try:  # what is left of the sweep's jobs; slurmctld may be gone
                subprocess.run(["scancel", "--user", "root"], env=self.env, capture_output=True,
                               timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        for _, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for _, p in reversed(self.procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        end = time.monotonic() + 5
        while self.ours() and time.monotonic() < end:
            for pid in self.ours():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.1)

    def logs(self):
        out = []
        for name in sorted(os.listdir(os.path.join(self.dir, "log"))):
            with open(os.path.join(self.dir, "log", name), errors="replace") as f:
                out.append("--- %s\n%s" % (name, "".join(f.readlines()[-15:])))
        return "\n".join(out)


def part_slurm(build_dir, work):
    if os.geteuid() != 0:
        raise Skip("needs root (munged, slurmctld and slurmd run here as root)")
    missing = [p for p in SLURM_PROGRAMS if not shutil.which(p)]
    if missing:
        raise Skip("%s not installed (tools/setup installs slurm-wlm and munge)"
                   % ", ".join(missing))
    cluster = Cluster(work)
    try:
        cluster.up()
        ref = local_reference(build_dir, work)
        d = os.path.join(work, "a")
        ok(sweep("plan", "--out-dir", d, *sweep_args(build_dir)), "plan")
        t0 = time.monotonic()
        r = ok(sweep("slurm", "--out-dir", d, "--max-running", "2", "--wait", env=cluster.env),
               "slurm --wait")
        job = r.stdout.splitlines()[0]
        check(job.isdigit(), "slurm prints the job id first", r)
        with open(os.path.join(d, "sweep.sbatch")) as f:
            script = f.read()
        check("#SBATCH --array=0-1%2\n" in script and "#SBATCH --output=%s/slurm/%%A_%%a.out"
              % d in script and "run-one --out-dir %s \"$SLURM_ARRAY_TASK_ID\"" % d in script,
              "sweep.sbatch: the array, a log per task, run-one of the task's line:\n" + script)
        for i in (0, 1):
            check(os.path.isfile(os.path.join(d, "slurm", "%s_%d.out" % (job, i))),
                  "the output of task %d" % i)
        for rel in ("two_flows/fixed-go_back_n", "two_flows/drill-go_back_n"):
            check(record(d, rel)["slurm_job"] == job, "%s ran in job %s" % (rel, job))
        same_table(d, ref, "slurm")
        print("slurm: the array of two ran and was collected in %.1f s" % (time.monotonic() - t0))

        # Resubmitting: only the line not done.
        kept = record(d, "two_flows/fixed-go_back_n")
        shutil.rmtree(os.path.join(d, "two_flows/drill-go_back_n"))
        r = ok(sweep("slurm", "--out-dir", d, "--wait", env=cluster.env), "slurm again")
        again = r.stdout.splitlines()[0]
        with open(os.path.join(d, "sweep.sbatch")) as f:
            check("#SBATCH --array=1\n" in f.read(), "resubmitted: line 1 alone")
        check(record(d, "two_flows/drill-go_back_n")["slurm_job"] == again,
              "the removed run ran in job %s" % again)
        check(record(d, "two_flows/fixed-go_back_n") == kept, "the run done is not rerun")
        same_table(d, ref, "slurm, resubmitted")
        r = ok(sweep("slurm", "--out-dir", d, env=cluster.env), "slurm with nothing to do")
        check("nothing to submit" in r.stderr and r.stdout == "", "nothing submitted", r)
    except AssertionError:
        print(cluster.logs(), file=sys.stderr)
        raise
    finally:
        cluster.stop()
        left = cluster.ours()
        check(not left, "every process of the cluster ended: %s" % left)


PARTS = {"steps": part_steps, "parallel": part_parallel, "slurm": part_slurm}


def in_namespaces():
    """Reruns this test in new PID and mount namespaces when root has
    unshare: whatever the daemons start dies with it. None when it cannot.
    (Not a network namespace: with only a loopback there, getaddrinfo's
    AI_ADDRCONFIG finds no address and slurmd cannot bind; the ports are
    free ones instead.)"""
    if os.geteuid() != 0 or os.environ.get("ROCELB_SWEEP_TEST_NS") or not shutil.which("unshare"):
        return None
    probe = subprocess.run(["unshare", "--pid", "--fork", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        return None
    cmd = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
           "--propagation", "private", sys.executable] + sys.argv
    return subprocess.run(cmd, env=dict(os.environ, ROCELB_SWEEP_TEST_NS="1")).returncode


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("part", choices=sorted(PARTS))
    p.add_argument("--keep", action="store_true", help="keep the working folder")
    a = p.parse_args()
    # The daemons live in sbin, which a non-login root shell may not have.
    os.environ["PATH"] = os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/local/sbin:/usr/sbin:/sbin"
    if a.part == "slurm":
        code = in_namespaces()
        if code is not None:
            return code
    build_dir = os.path.abspath(a.build_dir)
    if not os.access(os.path.join(build_dir, "dataplane/rocelb-dp"), os.X_OK):
        print("FAIL: %s/dataplane/rocelb-dp is not built" % build_dir)
        return 1
    work = tempfile.mkdtemp(prefix="rocelb-sweep-test.")
    t0 = time.monotonic()
    try:
        PARTS[a.part](build_dir, work)
    except Skip as e:
        print("skipped: Sweep.%s: %s" % (a.part, e))
        return SKIP
    except (AssertionError, subprocess.TimeoutExpired) as e:
        print("FAIL: Sweep.%s: %s" % (a.part, e))
        return 1
    finally:
        if a.keep:
            print("kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("Sweep.%s passed in %.1f s" % (a.part, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
