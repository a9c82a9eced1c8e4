#!/usr/bin/python3
"""Smoke test of tools/bench-live: one quick run (1 s per point, mode fixed,
64 B frames, no OVS-DPDK) must exit 0 and write a JSON report in which
rocelb fixed and dpdk-testpmd (pcap source) both forwarded at a positive
rate, and the replay simulated packets.

Usage: bench_live_smoke_test.py [--build-dir DIR]   (default: build)
Exits 0 on success, 1 with one line saying what is wrong.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fail(msg):
    print(f"bench_live_smoke_test: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-live-smoke.") as tmp:
        report = os.path.join(tmp, "bench.json")
        cmd = [os.path.join(REPO, "tools", "bench-live"), "--quick", "--no-ovs",
               "--build-dir", os.path.abspath(args.build_dir), "--json", report]
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            fail(f"{' '.join(cmd)}: still running after 240 s")
        if r.returncode != 0:
            print(r.stdout + r.stderr, file=sys.stderr)
            fail(f"tools/bench-live --quick exited {r.returncode}")
        try:
            with open(report) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{report}: no JSON report ({e})")
        rows = doc.get("rows", [])

        def mpps(system, variant):
            for row in rows:
                if row.get("system") == system and row.get("variant") == variant:
                    return row.get("mpps")
            fail(f"the report has no row for {system} {variant}")

        for system, variant in [("rocelb", "fixed"), ("testpmd", "pcap"), ("testpmd", "null")]:
            v = mpps(system, variant)
            if not isinstance(v, (int, float)) or v <= 0:
                fail(f"{system} {variant}: Mpps {v!r}, expected a positive rate")
        row = next(x for x in rows if x["system"] == "rocelb")
        if not row.get("vs_testpmd") or row["vs_testpmd"] <= 0:
            fail(f"rocelb fixed: no ratio to testpmd ({row.get('vs_testpmd')!r})")
        replay = doc.get("replay") or {}
        if not replay.get("packets", 0) > 0 or not replay.get("packets_per_second", 0) > 0:
            fail(f"the replay line reports no packets ({replay!r})")
        for key in ("cpu", "cores", "date"):
            if not doc.get("machine", {}).get(key):
                fail(f"the report does not name the machine's {key}")
        if "rocelb fixed" not in r.stdout or "replay:" not in r.stdout:
            fail("the printed table lacks the rocelb fixed row or the replay line")
    print("bench_live_smoke_test: ok")


if __name__ == "__main__":
    main()
