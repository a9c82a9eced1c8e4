#!/usr/bin/python3
"""tools/wireshark/rocelb-conweave.lua read by tshark on what rocelb puts on
the wire in mode conweave: a 2-leaf fabric (configs/fabrics/
leaf_spine_2x2_8h.yaml) with one uplink slowed, its first leaf's uplinks
captured. Every IPv4 protocol-253 frame decodes as ConWeave's header; the
data behind it as RoCE (InfiniBand BTH, as Wireshark dissects RoCEv2); the
epochs' first packets as RTT requests, and the destination ToR's replies
coming back as replies. Without the script tshark sees none of it (the
test can fail).

  conweave_dissector_test.py --build-dir DIR

Exits 0 on success, 1 with what is wrong, 77 (skipped) without tshark.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tools", "wireshark", "rocelb-conweave.lua")


def fail(msg):
    print("conweave_dissector_test: " + msg)
    sys.exit(1)


def tshark(pcap, lua, fields, display_filter=""):
    argv = ["tshark", "-n", "-r", pcap, "-T", "fields"]
    if lua:
        argv += ["-X", "lua_script:" + SCRIPT]
    if display_filter:
        argv += ["-Y", display_filter]
    for f in fields:
        argv += ["-e", f]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        fail("tshark failed: " + r.stderr.strip())
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    a = p.parse_args()
    if not shutil.which("tshark"):
        print("conweave_dissector_test: no tshark: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        wl = os.path.join(tmp, "wl.yaml")
        with open(wl, "w") as f:
            f.write("flows:\n" + "".join(
                "  - {src: h%d, dst: h%d, size: 1MB}\n" % (i, i + 4) for i in range(4)))
        out = os.path.join(tmp, "out")
        r = subprocess.run(
            [os.path.join(a.build_dir, "dataplane", "rocelb-dp"), "fabric", "--topology",
             os.path.join(REPO, "configs", "fabrics", "leaf_spine_2x2_8h.yaml"),
             "--workload", wl, "--out-dir", out, "--quiet",
             "--set", "groups.uplinks.mode=conweave", "--set", "leaf0:ports[5].speed=60G",
             "--capture", "leaf0:4", "--capture", "leaf1:4"],
            capture_output=True, text=True)
        if r.returncode != 0:
            fail("rocelb-dp fabric failed: " + r.stderr.strip())
        up = os.path.join(out, "capture-leaf0-4.pcap")     # leaf0's data going up
        back = os.path.join(out, "capture-leaf1-4.pcap")   # leaf1's replies going up
        rows = tshark(up, True, ["ip.proto", "rocelb_conweave.kind", "rocelb_conweave.epoch",
                                 "infiniband.bth.opcode"], "ip.proto == 253")
        if len(rows) < 100:
            fail("%d marked frames on leaf0's uplink" % len(rows))
        kinds = {}
        for proto, kind, epoch, opcode in rows:
            if not kind or not epoch:
                fail("a protocol-253 frame without ConWeave's fields: %r" % [proto, kind])
            if not opcode:
                fail("a marked data frame whose RoCE BTH was not dissected (kind %s)" % kind)
            kinds[int(kind)] = kinds.get(int(kind), 0) + 1
        if kinds.get(2, 0) < 4 or kinds.get(1, 0) < 100:
            fail("kinds on leaf0's uplink: %r (expected RTT requests and data)" % kinds)
        replies = tshark(back, True, ["rocelb_conweave.kind", "rocelb_conweave.flow"],
                         "rocelb_conweave.kind >= 4")
        if not replies or any(int(k) not in (4, 5, 6) for k, _ in replies):
            fail("replies on leaf1's uplink: %r" % replies[:5])
        if not any(int(k) == 4 for k, _ in replies):
            fail("no RTT reply among leaf1's: %r" % replies[:5])
        plain = tshark(up, False, ["infiniband.bth.opcode"], "ip.proto == 253")
        if any(row[0] for row in plain):
            fail("tshark dissected RoCE behind the header without the script")
        print("conweave_dissector_test: %d marked frames %r, %d replies/notifies" %
              (len(rows), kinds, len(replies)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
