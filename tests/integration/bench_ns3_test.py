#!/usr/bin/python3
"""Tests of tools/bench-ns3 (ConWeave's ns-3 beside rocelb-dp fabric).

  bench_ns3_test.py [--build-dir DIR] args    no ns-3 needed (CI): bad input is
      one line and exit 2; the inputs it writes (the ns-3 topology, ns-3's
      config as run.py fills it, the flow count fix-up) and its reading of
      ns-3's outputs (fctAnalysis.py's rules, the stop time, the per-flow
      pairing); rocelb-dp takes the topology and every --set it passes, and
      the exported switch and NIC settings are ConWeave's.
  bench_ns3_test.py [--build-dir DIR] quick   one --quick run of both: exits
      77 (skipped) without a built ns-3 artifact at $ROCELB_NS3 or
      /work/ns3/conweave. Both simulate the same flows to the end and agree
      on the slowdown within 25 %; figures are printed, never asserted.

Exits 0 on success, 1 with one line saying what is wrong.
"""

import argparse
import importlib.machinery
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "tools", "bench-ns3")
SKIP = 77


def fail(msg):
    print("bench_ns3_test: %s" % msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def load_tool():
    loader = importlib.machinery.SourceFileLoader("bench_ns3", TOOL)
    spec = importlib.util.spec_from_loader("bench_ns3", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def run_tool(argv, env=None, timeout=60):
    return subprocess.run([TOOL] + argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)


def bad_inputs(tmp):
    fake = os.path.join(tmp, "not-built")
    os.makedirs(os.path.join(fake, "traffic_gen"))
    env = {k: v for k, v in os.environ.items() if k != "ROCELB_NS3"}
    cases = [
        (["--ns3", fake, "--lb", "drill"], "--lb"),
        (["--ns3", fake, "--time", "0"], "--time"),
        (["--ns3", fake, "--time", "5parsecs"], "--time"),
        (["--ns3", fake, "--load", "1.5"], "--load"),
        (["--ns3", fake, "--hosts", "64"], "--hosts"),
        (["--ns3", fake, "--quick", "--time", "1ms"], "--quick"),
        (["--ns3", fake, "--runs", "0"], "--runs"),
        (["--ns3", fake, "--out-dir", os.path.join(tmp, "a b")], "--out-dir"),
        (["--ns3", os.path.join(tmp, "nowhere")], "--ns3"),
        (["--ns3", fake], "not built"),
        ([], "--ns3"),
    ]
    for argv, word in cases:
        r = run_tool(argv, env=env)
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        what = "bench-ns3 %s" % " ".join(argv)
        check(r.returncode == 2, "%s: exit %d, expected 2 (%s)" % (what, r.returncode,
                                                                    r.stderr.strip()))
        check(len(lines) == 1, "%s: %d lines on stderr, expected one: %r" % (
            what, len(lines), r.stderr))
        check(word in lines[0], "%s: %r does not name %s" % (what, lines[0], word))


def inputs(tool, tmp):
    # The 32-host topology, as ConWeave's files are laid out.
    text = tool.leaf_spine_ns3_text(4, 8, 4)
    rows = text.splitlines()
    check(rows[0] == "40 8 48", "topology header %r, expected '40 8 48'" % rows[0])
    check(rows[1].split() == [str(i) for i in range(32, 40)], "switch ids %r" % rows[1])
    links = [r.split() for r in rows[2:]]
    check(len(links) == 48, "%d links, expected 48" % len(links))
    for h in range(32):
        mine = [l for l in links if l[0] == str(h)]
        check(len(mine) == 1 and mine[0][1] == str(32 + h // 8),
              "host %d: links %r, expected one to leaf %d" % (h, mine, 32 + h // 8))
    for leaf in range(32, 36):
        ups = sorted(int(l[1]) for l in links if l[0] == str(leaf))
        check(ups == [36, 37, 38, 39], "leaf %d uplinks %r" % (leaf, ups))
    check(all(l[2:] == ["100Gbps", "1000ns", "0"] for l in links), "a link not 100G/1us/0")

    # run.py's config for DCQCN at 100G, lossless.
    cfg = tool.ns3_config("/t/topo.txt", "/t/flows.txt", "/t/out", 0.02, 6, 50)
    got = dict((l.split(None, 1) + [""])[:2] for l in cfg.splitlines() if l.strip())
    want = {
        "LB_MODE": "6", "CC_MODE": "1", "ENABLE_PFC": "1", "ENABLE_IRN": "0",
        "BUFFER_SIZE": "9", "FLOWGEN_START_TIME": "2", "FLOWGEN_STOP_TIME": "2.02",
        "RATE_AI": "40.0Mb/s", "RATE_HAI": "100.0Mb/s", "EWMA_GAIN": "0.00390625",
        "USE_DYNAMIC_PFC_THRESHOLD": "1", "L2_ACK_INTERVAL": "1", "LOAD": "50",
        "FCT_OUTPUT_FILE": "/t/out/out_fct.txt", "TOPOLOGY_FILE": "/t/topo.txt",
        "KMAX_MAP": "6 20000000000 400 50000000000 400 100000000000 400 200000000000 400 "
                    "250000000000 400 400000000000 400",
        "KMIN_MAP": "6 20000000000 100 50000000000 100 100000000000 100 200000000000 100 "
                    "250000000000 100 400000000000 100",
        "PMAX_MAP": "6 20000000000 0.20 50000000000 0.20 100000000000 0.20 200000000000 0.20 "
                    "250000000000 0.20 400000000000 0.20",
    }
    for k, v in want.items():
        check(got.get(k, "").strip() == v, "ns-3 config %s %r, expected %r" % (k, got.get(k), v))

    # traffic_gen.py's half-overwritten count is rewritten; a right one is left alone.
    path = os.path.join(tmp, "flows.txt")
    flow = "0 1 3 1000 2.000000100\n"
    with open(path, "w") as f:
        f.write("9980 \n" + flow * 998)
    check(tool.fix_flow_count(path) == (998, True), "a wrong count is not reported fixed")
    with open(path) as f:
        check(f.readline() == "998\n", "the count line was not rewritten")
    before = open(path).read()
    check(tool.fix_flow_count(path) == (998, False), "a right count is reported fixed")
    check(open(path).read() == before, "a right file was rewritten")

    # fctAnalysis.py's rules: start > begin, start + fct < end, slowdown >= 1.
    lines = ["0 1 10000 100 1000 2000000000 5000 2500",   # starts at begin: left out
             "0 1 10001 101 1000 2000000010 5000 2500",   # 2.0
             "1 0 10000 100 1000 2000000020 1000 2500",   # faster than ideal: 1.0
             "1 0 10001 101 1000 2000000030 9000 3000",   # 3.0
             "2 0 10000 102 1000 2000009000 1000 500"]    # ends at end: left out
    s = tool.ns3_slowdowns(lines, 2000000000, 2000010000)
    check(s == [2.0, 1.0, 3.0], "ns-3 slowdowns %r, expected [2.0, 1.0, 3.0]" % s)
    for q, v in ((50, 2.5), (99, 3.97), (100, 4.0), (0, 1.0)):
        got_q = tool.percentile([4, 1, 3, 2], q)
        check(abs(got_q - v) < 1e-9, "percentile %d of 1..4: %r, expected %r" % (q, got_q, v))
    t = tool.ns3_simulated_ms("x\n*** Simulator is enforced to be finished, finished so far: "
                              "5/ total: 5, Time:+2002000000.0ns\n")
    check(t is not None and abs(t - 2.0) < 1e-9, "ns-3 stop time %r, expected 2.0 ms" % t)
    check(tool.ns3_simulated_ms("no such line") is None, "a stop time read from nothing")

    # Pairing flows: ns-3 by (src, sport), rocelb by flow id.
    flows = [(0, 1, 1000), (1, 0, 2000), (0, 2, 3000)]
    ns3 = ["0 1 10000 100 1000 2000000000 1000 900",
           "1 0 10000 100 2000 2000000000 2000 1900",
           "0 2 10001 100 3000 2000000000 4000 2900"]
    csv = os.path.join(tmp, "flows.csv")
    with open(csv, "w") as f:
        f.write("flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown\n"
                "0,h0,h1,1000,0,1100,1100,900,1.2\n"
                "1,h1,h0,2000,0,3000,3000,1900,1.5\n"
                "2,h0,h2,3000,0,2000,2000,2900,0.7\n")
    got_r = tool.fct_ratio(flows, ns3, csv)
    check(got_r == (1.1, 3), "per-flow ratio %r, expected (1.1, 3)" % (got_r,))
    check(tool.fct_ratio([(0, 1, 1000), (0, 2, 2000), (0, 2, 3000)], ns3, csv) is None,
          "flows that do not pair up gave a ratio")


def rocelb_takes_it(tool, tmp, build_dir):
    """rocelb-dp reads the topology and every --set; the exported settings are
    ConWeave's (skipped without a built rocelb-dp)."""
    rocelb = os.path.join(build_dir, "dataplane", "rocelb-dp")
    if not os.access(rocelb, os.X_OK):
        print("bench_ns3_test: no %s: the export check is left out" % rocelb)
        return
    import yaml
    topo = os.path.join(tmp, "leaf_spine_32_100G_OS2.txt")
    with open(topo, "w") as f:
        f.write(tool.leaf_spine_ns3_text(4, 8, 4))
    sets, _ = tool.rocelb_sets("letflow")
    # The preset carries ConWeave's settings itself: the NIC's come from its
    # nic map (the switch's are checked in the export below).
    for want, _, _ in tool.MATCHING:
        if want.startswith("nic."):
            check(want in sets, "%s is not in the preset's nic map" % want)
    out = os.path.join(tmp, "export")
    argv = [rocelb, "fabric", "--topology", topo, "--export", out]
    for s in sets:
        argv += ["--set", s]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    check(r.returncode == 0, "rocelb-dp refuses bench-ns3's inputs: %s" % r.stdout.strip())
    with open(os.path.join(out, "fabric.yaml")) as f:
        fabric = yaml.safe_load(f)
    check(len(fabric["hosts"]) == 32, "%d hosts exported, expected 32" % len(fabric["hosts"]))
    nic = fabric["nic"]
    for path, want in (("ack_priority", 6), ("ack_dscp", 48), ("mtu", 1000), ("framing", "ns3"),
                       ("dcqcn.cnp_mode", "ack"), ("dcqcn.rpg_ai_rate", 40),
                       ("dcqcn.rpg_hai_rate", 100), ("dcqcn.rpg_byte_reset", 0),
                       ("dcqcn.dce_tcp_g", 1020), ("dcqcn.rpg_time_reset", 300),
                       ("dcqcn.rate_reduce_mode", "periodic"), ("dcqcn.rpg_increase", "timer")):
        v = nic
        for k in path.split("."):
            v = v.get(k) if isinstance(v, dict) else None
        check(v == want, "exported nic.%s %r, expected %r" % (path, v, want))
    with open(os.path.join(out, "sw32.yaml")) as f:
        leaf = yaml.safe_load(f)
    qos = leaf["qos"]
    for got, want, what in (
            (leaf["groups"]["uplinks"]["mode"], "flowlet_random", "groups.uplinks.mode"),
            (leaf["groups"]["uplinks"]["idle_time"], "100us", "groups.uplinks.idle_time"),
            (qos["pfc"].get("dynamic_th"), -4, "qos.pfc.dynamic_th"),
            (qos["pfc"].get("xon_offset"), "64B", "qos.pfc.xon_offset"),
            ("xoff" in qos["pfc"], False, "qos.pfc.xoff present"),
            (qos["buffer"]["shared_size"], "9MiB", "qos.buffer.shared_size"),
            (qos["ecn_mark"], "dequeue", "qos.ecn_mark"),
            (qos["wred"][3]["green_min_threshold"], "100KB", "wred 3 min"),
            (qos["wred"][3]["green_max_threshold"], "400KB", "wred 3 max"),
            (qos["wred"][3]["green_drop_probability"], 20, "wred 3 probability"),
            (qos["pfc_enable"], [3], "qos.pfc_enable"),
            (6 in qos["scheduler"]["strict"], True, "class 6 strict"),
            (qos["dscp_to_tc"][48], 6, "DSCP 48 to class 6")):
        check(got == want, "exported %s %r, expected %r" % (what, got, want))


def part_args(build_dir):
    tool = load_tool()
    with tempfile.TemporaryDirectory(prefix="bench-ns3-test.") as tmp:
        bad_inputs(tmp)
        inputs(tool, tmp)
        rocelb_takes_it(tool, tmp, build_dir)
    print("bench_ns3_test args: ok")


def part_quick(build_dir):
    ns3 = os.environ.get("ROCELB_NS3") or "/work/ns3/conweave"
    if not os.access(os.path.join(ns3, "build", "scratch", "network-load-balance"), os.X_OK):
        print("bench_ns3_test: no built ConWeave ns-3 at %s ($ROCELB_NS3): skipped" % ns3)
        sys.exit(SKIP)
    tool = load_tool()
    own = os.path.join(ns3, "config", "leaf_spine_128_100G_OS2.txt")
    if os.path.isfile(own):
        with open(own) as f:
            theirs = f.read().splitlines()[:2 + 192]
        mine = tool.leaf_spine_ns3_text(8, 16, 8).splitlines()
        check([x.split() for x in mine] == [x.split() for x in theirs],
              "leaf_spine_ns3_text(8, 16, 8) is not ConWeave's leaf_spine_128_100G_OS2.txt")
    with tempfile.TemporaryDirectory(prefix="bench-ns3-quick.") as tmp:
        report = os.path.join(tmp, "r.json")
        argv = ["--ns3", ns3, "--quick", "--build-dir", build_dir, "--out-dir",
                os.path.join(tmp, "out"), "--json", report]
        try:
            r = run_tool(argv, timeout=240)
        except subprocess.TimeoutExpired:
            fail("tools/bench-ns3 %s: still running after 240 s" % " ".join(argv))
        print(r.stdout)
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
            fail("tools/bench-ns3 --quick exited %d" % r.returncode)
        with open(report) as f:
            doc = json.load(f)
        with open(doc["setup"]["flow_file"]) as f:
            flows = int(f.readline())
        check(doc["setup"]["flows"] == flows > 1000,
              "%r flows in the report, %d in the file" % (doc["setup"]["flows"], flows))
        for name in ("ns3", "rocelb"):
            x = doc[name]
            for k in ("wall_s", "cpu_s", "peak_rss_mb"):
                check(x[k] > 0, "%s: %s %r, expected a positive figure" % (name, k, x[k]))
            check(x["finished"] == flows, "%s finished %d of %d flows" % (
                name, x["finished"], flows))
            check(x["counted"] == flows, "%s counted %d of %d flows in its slowdown" % (
                name, x["counted"], flows))
            check(x["simulated_ms"] is not None and 1.0 <= x["simulated_ms"] < 50,
                  "%s simulated %r ms for 1 ms of arrivals" % (name, x["simulated_ms"]))
            check(1.0 <= x["avg_slowdown"] <= x["p99_slowdown"],
                  "%s slowdown avg %r, p99 %r" % (name, x["avg_slowdown"], x["p99_slowdown"]))
        # The figures ns-3 shows are its FCT file's, by fctAnalysis.py's rules.
        with open(os.path.join(tmp, "out", "ns3", "out_fct.txt")) as f:
            s = [max(1.0, int(l.split()[6]) / int(l.split()[7])) for l in f if l.strip()]
        check(abs(sum(s) / len(s) - doc["ns3"]["avg_slowdown"]) < 1e-9,
              "ns-3's average slowdown is not its FCT file's")
        ratio = doc["ratios"]["avg_slowdown"]
        check(0.75 <= ratio <= 1.25, "average slowdown ns-3 / rocelb %r: the two disagree by "
              "more than 25 %% on the same flows" % ratio)
        fr = doc["fct_ratio"]
        check(fr and fr["flows"] == flows and 0.8 <= fr["median"] <= 1.25,
              "per-flow FCT ratio %r" % (fr,))
        for row in ("| ConWeave ns-3 |", "| rocelb fabric |", "| ns-3 / rocelb |"):
            check(row in r.stdout, "the table lacks the row %r" % row)
        with open(doc["commands"]) as f:
            cmds = f.read()
        check("network-load-balance" in cmds and "rocelb-dp fabric" in cmds,
              "commands.sh does not hold both commands")
        rocelb_line = [l for l in cmds.splitlines() if " fabric " in l][-1]
        check(shlex.split(rocelb_line)[0].endswith("rocelb-dp"), "commands.sh: %r" % rocelb_line)
    print("bench_ns3_test quick: ok")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    p.add_argument("part", choices=["args", "quick"])
    a = p.parse_args()
    build_dir = os.path.abspath(a.build_dir)
    if a.part == "args":
        part_args(build_dir)
    else:
        part_quick(build_dir)


if __name__ == "__main__":
    main()
