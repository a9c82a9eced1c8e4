#!/usr/bin/python3
"""Tests of tools/vs-ns3 (rocelb against ConWeave's ns-3, the validation
table), no ns-3 needed:

  rule     the one reading of both tools' FCT files: the counting window
           (start within the arrivals, end before arrivals + 50 ms), the
           slowdown floor at 1, the size classes' edges, numpy's percentile,
           the difference and the targets, unfinished flows; a malformed FCT
           line and bad options are one line and exit 2.
  stored   ns-3's FCT file of ECMP, lossless, on 2,404 AliStorage flows (32
           hosts, 1 ms of arrivals, 50 % load, seed 1; vs_ns3_data/README.md
           says how it was made) with rocelb-dp run now on the same flows:
           the table's ns-3 figures are the file's by this test's own
           reading, rocelb's those of the FCT file it wrote, --compare on the
           finished folder prints the same table, and the shipped preset
           agrees with ns-3: all-flow and small-flow average within 10 %.

Exits 0 on success, 1 with one line saying what is wrong.
"""

import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "tools", "vs-ns3")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vs_ns3_data")


def fail(msg):
    print("vs_ns3_test: %s" % msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b))


def load_tool():
    loader = importlib.machinery.SourceFileLoader("vs_ns3", TOOL)
    spec = importlib.util.spec_from_loader("vs_ns3", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def run_tool(argv, timeout=120):
    return subprocess.run([TOOL] + argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


def rule(tmp):
    t = load_tool()
    # numpy.percentile's linear rule.
    check(t.percentile([4, 1, 3, 2], 50) == 2.5, "median of 1..4 is not 2.5")
    check(close(t.percentile([1, 2, 3, 4], 99), 3.97), "p99 of 1..4 is not 3.97")
    check(t.percentile([7], 99) == 7 and t.percentile([], 99) is None, "percentile edges")
    arrivals = 1_000_000
    rows = [
        (99_999, 0, 300, 100),            # small, slowdown 3 (starts at 0: counted)
        (100_000, 10, 100, 100),          # medium: in all only
        (1_000_000, 20, 500, 100),        # large, slowdown 5
        (500, 30, 50, 100),               # small, faster than ideal: slowdown 1
        (500, -1, 200, 100),              # started before the arrivals: not counted
        (500, arrivals + 1, 200, 100),    # started after them: not counted
        (500, arrivals, 50_000_000 - arrivals - 1, 1),  # ends 1 ns inside: counted
        (500, arrivals, 50_000_000, 1),   # ends at the edge: not counted
    ]
    s = t.stats(rows, arrivals, 10)
    check(s["finished"] == 8 and s["unfinished"] == 2, "finished/unfinished %r" % s)
    check(s["counted"] == 5, "counted %d flows, expected 5" % s["counted"])
    edge = 50_000_000 - arrivals - 1
    check(close(s["small_avg"], (3 + 1 + edge) / 3), "small avg %r" % s["small_avg"])
    check(close(s["large_avg"], 5.0), "large avg %r" % s["large_avg"])
    check(close(s["all_avg"], (3 + 1 + 5 + 1 + edge) / 5), "all avg %r" % s["all_avg"])
    check(close(s["all_p99"], t.percentile([3, 1, 5, 1, edge], 99)), "all p99")
    # The difference is rocelb's over ns-3's; the target is inclusive; a
    # flow that never finishes fails the case whatever the figures.
    n = {"small_avg": 2.0, "small_p99": 10.0, "large_avg": 4.0, "all_avg": 2.0,
         "all_p99": 8.0, "unfinished": 0}
    r = dict(n, small_avg=2.2, small_p99=8.9, unfinished=0)
    c = t.compare(n, r, 0.10)
    check(close(c["metrics"]["small_avg"]["diff"], 0.10) and
          c["metrics"]["small_avg"]["within"], "+10.0 %% is within 10 %%: %r" % c)
    check(not c["metrics"]["small_p99"]["within"] and not c["ok"], "-11 % is outside 10 %")
    c = t.compare(n, dict(n, unfinished=3), 0.10)
    check(not c["ok"] and not c["all_finished"], "an unfinished flow passes the case")
    check(t.compare(n, dict(n), 0.10)["ok"], "identical figures fail")
    table = t.table([{"lb": "ecmp", "mode": "lossless", "rocelb_mode": "fixed (ECMP)",
                      "target": 0.10, "ns3": dict(n, flows=10), "rocelb": dict(r, flows=10),
                      "compare": t.compare(n, r, 0.10)}])
    check("| ecmp, lossless | fixed (ECMP) | small avg | 2.000 | 2.200 | +10.0 % | within 10 % |"
          in table, "table row:\n%s" % table)
    check("**outside 10 %**" in table, "an outside figure is not marked:\n%s" % table)
    # A malformed FCT file is named with its line.
    bad = os.path.join(tmp, "bad_fct.txt")
    with open(bad, "w") as f:
        f.write("1 2 3 4 5 6 7 8\n1 2 3 4 5 6 7\n")
    try:
        t.read_fct(bad)
        fail("a 7-field FCT line was read")
    except t.BadInput as e:
        check("bad_fct.txt:2: 7 fields" in str(e), "error %r does not name file:line" % str(e))
    # Bad options: one line, exit 2.
    for argv, want in ((["--lbs", "ecmp,conga", "--compare", tmp], "--lbs: 'conga'"),
                       ([], "give NS3_DIR"),
                       (["--compare", tmp], "no meta.json"),
                       (["--jobs", "0", "--compare", tmp], "--jobs 0")):
        p = run_tool(argv)
        check(p.returncode == 2, "%r: exit %d, expected 2 (%s)" % (argv, p.returncode, p.stderr))
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and want in lines[0], "%r: stderr %r" % (argv, p.stderr))


def stored(tmp, build_dir):
    rocelb = os.path.join(build_dir, "dataplane", "rocelb-dp")
    check(os.access(rocelb, os.X_OK), "%s: not built" % rocelb)
    out = os.path.join(tmp, "vs")
    js = os.path.join(tmp, "vs.json")
    argv = ["--ns3-results", DATA, "--flows", os.path.join(DATA, "flows.txt"), "--time", "1ms",
            "--lbs", "ecmp", "--modes", "lossless", "--rocelb", rocelb, "--out-dir", out,
            "--json", js]
    p = run_tool(argv, timeout=240)
    check(p.returncode == 0, "vs-ns3 exit %d: %s" % (p.returncode, p.stderr.strip()))
    check("| ecmp, lossless | fixed (ECMP) | all avg |" in p.stdout, "no ECMP row:\n" + p.stdout)
    with open(js) as f:
        res = json.load(f)["results"]
    check(len(res) == 1, "%d cases, expected 1" % len(res))
    t = load_tool()
    # This test's own reading of both FCT files.
    mine = {}
    for who, path, offset in (("ns3", os.path.join(DATA, "ecmp-lossless", "out_fct.txt"),
                               2_000_000_000),
                              ("rocelb", os.path.join(out, "rocelb", "ecmp-lossless",
                                                      "out_fct.txt"), 0)):
        small, every = [], []
        with open(path) as f:
            for line in f:
                p_ = line.split()
                size, start, fct, ideal = (int(x) for x in p_[4:8])
                start -= offset
                if 0 <= start <= 1_000_000 and start + fct < 51_000_000:
                    s = max(1.0, fct / ideal)
                    every.append(s)
                    if size < 100_000:
                        small.append(s)
        mine[who] = {"all_avg": sum(every) / len(every), "small_avg": sum(small) / len(small),
                     "all_p99": t.percentile(every, 99), "counted": len(every)}
    for who in ("ns3", "rocelb"):
        for key in ("all_avg", "small_avg", "all_p99", "counted"):
            check(close(res[0][who][key], mine[who][key]),
                  "%s %s: the table says %r, the file %r" % (who, key, res[0][who][key],
                                                               mine[who][key]))
    check(res[0]["ns3"]["flows"] == 2404 and res[0]["rocelb"]["unfinished"] == 0,
          "flows %r, rocelb unfinished %r" % (res[0]["ns3"]["flows"],
                                              res[0]["rocelb"]["unfinished"]))
    # The shipped preset against ns-3 (measured: -0.7 % and -0.5 %).
    for key in ("all_avg", "small_avg"):
        d = res[0]["compare"]["metrics"][key]["diff"]
        check(abs(d) <= 0.10, "%s differs from ns-3's by %+.1f %%" % (key, 100 * d))
    # --compare on the finished folder: the same table.
    q = run_tool(["--compare", out])
    check(q.returncode == 0 and q.stdout == p.stdout,
          "--compare printed another table:\n%s\nvs\n%s" % (q.stdout, p.stdout))
    print(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("part", choices=["rule", "stored"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="vs_ns3_test_") as tmp:
        if a.part == "rule":
            rule(tmp)
        else:
            stored(tmp, a.build_dir)
    print("vs_ns3_test %s: ok" % a.part)


if __name__ == "__main__":
    main()
