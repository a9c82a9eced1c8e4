#!/usr/bin/python3
"""End to end test of tools/fabric-live: a live leaf-spine in namespaces.

With configs/fabrics/leaf_spine_2x2_4h.yaml (2 leaves, 2 spines, 4 hosts),
AF_XDP ports, a fabric name unique to the run (flt<pid>):
  1. `up` works; every host pings every other host, replies from across the
     leaves with TTL 61 (leaf, spine, leaf), within a leaf 63.
  2. RoCEv2: each host sends SEND-only frames with 16 UDP source ports to a
     host on the other leaf (`tools/fabric-live send`, tcpreplay); tshark in
     the receiver's namespace sees every frame once, TTL 64 - 3, IP checksum
     right, DSCP kept, UDP payload (BTH, payload, ICRC) as sent, ICRC valid
     (computed here per the IBTA spec, the checker first checked on the
     frames before the switch and on rocelb-gen's); both spines forwarded
     RoCE (show ports --json: tx_packets and XDP rocev2 counters grew).
  3. PFC across a veth: a PFC frame (priority 3, quanta 0xffff) written on
     leaf0's uplink veth reaches spine0, whose `show pfc --json` counts it on
     the port facing leaf0, priority 3, with a pause time.
  4. `down` exits 0 with every switch's counters balanced and leaves nothing:
     no namespace rl-NAME-*, no veth, no state folder, no process, no DPDK
     runtime folder, none of the XDP programs the switches used. A second
     `up` (AF_PACKET ports this time), pings across the leaves and `down`
     work too.
The fabric is always taken down at the end, whatever failed (SIGTERM and
Ctrl-C too); a fabric flt<N> left by a run that was killed (process N gone)
is taken down first.

Usage: fabric_live_test.py [--build-dir DIR] [-v]   (default: build)
Exit 0 passed, 1 failed, 77 skipped (not root, or no `ip netns`).
"""

import argparse
import ctypes
import errno
import glob
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO, "tools", "fabric-live")
TOPOLOGY = os.path.join(REPO, "configs", "fabrics", "leaf_spine_2x2_4h.yaml")
STATE_ROOT = "/run/rocelb/fabric-live"
BUILD = os.path.join(REPO, "build")
NAME = f"flt{os.getpid()}"
PREFIX = f"rl-{NAME}-"
ROCE_PORT = 4791
SPORTS = 16        # UDP source ports per sender
PSNS = 2           # frames per source port


def log(msg):
    print(msg, flush=True)


def sh(cmd, timeout=120, check=True):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


def ctl(sock, what):
    r = sh([os.path.join(BUILD, "tools", "rocelbctl"), "--socket", sock, "show", what, "--json"])
    return json.loads(r.stdout)


def namespaces():
    r = sh(["ip", "netns", "list"])
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def fabric_pids():
    """Processes whose arguments name this fabric (rl-NAME-...)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                args = f.read()
        except OSError:
            continue
        if PREFIX.encode() in args:
            out.append(int(d))
    return out


def bpf_prog_exists(prog_id):
    """BPF_PROG_GET_FD_BY_ID: True while the kernel still has the program."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint32 * 4)(prog_id, 0, 0, 0)
    fd = libc.syscall(321, 13, ctypes.byref(attr), ctypes.sizeof(attr))  # x86_64 bpf()
    if fd >= 0:
        os.close(fd)
        return True
    return ctypes.get_errno() != errno.ENOENT


# ------------------------------------------------------------------ RoCEv2 ICRC

def ip_offset(frame):
    off, et = 14, struct.unpack("!H", frame[12:14])[0]
    while et in (0x8100, 0x88A8):
        et = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += 4
    return off if et == 0x0800 else None


def icrc_valid(frame):
    """IBTA Annex A17 (RoCEv2, IPv4): CRC32 over 8 bytes of ones, the IP
    header with TOS, TTL and checksum all ones, the UDP header with its
    checksum all ones, the BTH with its FECN/BECN/resv6 byte all ones, and
    the payload; stored little-endian in the last 4 bytes of the UDP
    payload."""
    off = ip_offset(frame)
    ihl = (frame[off] & 0xF) * 4
    total = struct.unpack("!H", frame[off + 2:off + 4])[0]
    ip = bytearray(frame[off:off + ihl])
    ip[1], ip[8], ip[10:12] = 0xFF, 0xFF, b"\xff\xff"
    udp = bytearray(frame[off + ihl:off + ihl + 8])
    udp[6:8] = b"\xff\xff"
    rest = bytearray(frame[off + ihl + 8:off + total])
    rest[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(rest[:-4])) & 0xFFFFFFFF
    return struct.pack("<I", crc) == bytes(rest[-4:])


def ip_checksum_ok(frame):
    off = ip_offset(frame)
    hdr = frame[off:off + (frame[off] & 0xF) * 4]
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


# ------------------------------------------------------------------------ test

def up(extra=()):
    log(f"$ tools/fabric-live up {os.path.relpath(TOPOLOGY, REPO)} --name {NAME} "
        f"--build-dir {BUILD} {' '.join(extra)}")
    t0 = time.monotonic()
    r = sh([TOOL, "up", TOPOLOGY, "--name", NAME, "--build-dir", BUILD] + list(extra),
           timeout=180, check=False)
    log(r.stdout.rstrip())
    if r.returncode != 0:
        raise AssertionError(f"up: exit {r.returncode}\n{r.stderr}")
    log(f"  (up took {time.monotonic() - t0:.1f} s)")
    with open(os.path.join(STATE_ROOT, NAME, "state.json")) as f:
        return json.load(f)


def fabric_is_up(name=None):
    name = name or NAME
    return os.path.isdir(os.path.join(STATE_ROOT, name)) or any(
        ns.startswith(f"rl-{name}-") for ns in namespaces())


def stale_fabrics():
    """flt<N> fabrics whose test run (process N) is gone."""
    names = set()
    if os.path.isdir(STATE_ROOT):
        names |= set(os.listdir(STATE_ROOT))
    names |= {m.group(1) for ns in namespaces() for m in [re.match(r"^rl-(flt\d+)-", ns)] if m}
    out = []
    for n in sorted(names):
        m = re.fullmatch(r"flt(\d+)", n)
        if not m or int(m.group(1)) == os.getpid():
            continue
        try:
            with open(f"/proc/{m.group(1)}/cmdline", "rb") as f:
                if b"fabric_live_test" in f.read():
                    continue
        except OSError:
            pass
        out.append(n)
    return out


def down(logs=None):
    cmd = [TOOL, "down", NAME] + (["--logs", logs] if logs else [])
    r = sh(cmd, timeout=120, check=False)
    return r


class FabricLive(unittest.TestCase):
    st = None
    prog_ids = set()
    logs = None

    @classmethod
    def setUpClass(cls):
        cls.logs = tempfile.mkdtemp(prefix="fabric-live-test.")
        cls.tmp = tempfile.mkdtemp(prefix="fabric-live-test-pcap.")
        try:
            cls.st = up()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if fabric_is_up():
            r = down(cls.logs)
            log(f"teardown: tools/fabric-live down {NAME}: exit {r.returncode}")
            if r.returncode != 0:
                log(r.stdout + r.stderr)
                for f in sorted(glob.glob(os.path.join(cls.logs, "*.log"))):
                    log(f"--- {f}\n" + open(f, errors="replace").read()[-3000:])
        shutil.rmtree(cls.logs, ignore_errors=True)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # helpers
    def hosts(self):
        return self.st["hosts"]

    def switch(self, name):
        return next(sw for sw in self.st["switches"] if sw["name"] == name)

    def leaf_of(self, h):
        return h["at"].split(":")[0]

    def gateway_mac(self, h):
        return h["sw_mac"]

    def ping_matrix(self, pairs):
        procs = []
        for a, b in pairs:
            cmd = ["ip", "netns", "exec", a["ns"], "ping", "-c", "2", "-W", "2", "-i", "0.2",
                   b["ip"]]
            procs.append((a, b, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT, text=True)))
        for a, b, p in procs:
            out, _ = p.communicate(timeout=30)
            want = 63 if self.leaf_of(a) == self.leaf_of(b) else 61
            ttls = [int(t) for t in re.findall(r"ttl=(\d+)", out)]
            log(f"  {a['name']} -> {b['name']} ({b['ip']}): {len(ttls)}/2 replies, ttl "
                f"{sorted(set(ttls))}, want {want}")
            self.assertEqual(p.returncode, 0, f"{a['name']} ping {b['ip']}:\n{out}")
            self.assertEqual(len(ttls), 2, out)
            self.assertEqual(set(ttls), {want}, f"{a['name']} -> {b['name']}: TTL {ttls}")

    # 1
    def test_1_ping_every_pair(self):
        log("1. every host pings every other host; TTL 61 across the leaves, 63 within one")
        hs = self.hosts()
        self.assertEqual(len(hs), 4)
        self.assertEqual(len(self.st["switches"]), 4)
        self.ping_matrix([(a, b) for a in hs for b in hs if a is not b])
        for sw in self.st["switches"]:
            for p in ctl(sw["socket"], "ports")["ports"]:
                if p.get("xdp", {}).get("program_id"):
                    FabricLive.prog_ids.add(p["xdp"]["program_id"])
        log(f"  XDP programs in use: {sorted(self.prog_ids)}")
        self.assertEqual(len(self.prog_ids), 12, "one XDP program per switch port")
        # Lab-sized pools (fabric-live --mbufs 8191), each AF_XDP port's
        # counted in the switch's memory estimate.
        for sw in self.st["switches"]:
            m = ctl(sw["socket"], "config")["memory"]
            ports = len(ctl(sw["socket"], "ports")["ports"])
            self.assertEqual((m["pool_mbufs"], m["xdp_pool_mbufs"], m["xdp_pools"]),
                             (8191, 4095, ports), sw["name"])

    # 2
    def test_2_rocev2_across_spines(self):
        from scapy.all import Ether, IP, UDP, Raw, raw, rdpcap, wrpcap
        from scapy.contrib.roce import BTH
        log(f"2. RoCEv2 across the leaves, {SPORTS} UDP source ports per sender")
        hs = self.hosts()
        others = {h["name"]: [o for o in hs if self.leaf_of(o) != self.leaf_of(h)] for h in hs}
        plan = {}  # sender name -> receiver
        for i, h in enumerate(hs):
            plan[h["name"]] = others[h["name"]][i % len(others[h["name"]])]
        # Frames, and the checker checked on them.
        sent = {}  # (src ip, sport, psn) -> frame bytes
        pcaps = {}
        for h in hs:
            dst = plan[h["name"]]
            frames = []
            for j in range(SPORTS):
                for k in range(PSNS):
                    f = (Ether(src=h["mac"], dst=self.gateway_mac(h)) /
                         IP(src=h["ip"], dst=dst["ip"], ttl=64, tos=(26 << 2) | 2, id=j * 16 + k,
                            flags="DF") /
                         UDP(sport=49152 + 97 * j, dport=ROCE_PORT, chksum=0) /
                         BTH(opcode=4, dqpn=0x100 + j, psn=1000 + k, ackreq=1) /
                         Raw(bytes([j, k]) * 40 + h["name"].encode()))
                    b = raw(f)
                    frames.append(f)
                    sent[(h["ip"], 49152 + 97 * j, 1000 + k)] = b
            pcaps[h["name"]] = os.path.join(self.tmp, f"{h['name']}.pcap")
            wrpcap(pcaps[h["name"]], frames)
        self.assertTrue(all(icrc_valid(b) for b in sent.values()), "ICRC of the frames sent")
        b = bytearray(next(iter(sent.values())))
        b[ip_offset(b) + 8] = 61  # TTL: masked
        b[ip_offset(b) + 1] = 0x6B  # ECN CE: masked
        self.assertTrue(icrc_valid(bytes(b)), "ICRC checker: TTL and TOS are not covered")
        b[-10] ^= 1
        self.assertFalse(icrc_valid(bytes(b)), "ICRC checker: a payload bit is covered")
        gen_checked = self.check_rocelb_gen_icrc()
        log(f"  ICRC checker: valid on the {len(sent)} frames sent (scapy's ICRC)"
            f"{f' and on {gen_checked} rocelb-gen frames' if gen_checked else ''}; "
            "ignores TTL/TOS, catches a flipped payload bit")

        def spine_counts():
            out = {}
            for sw in self.st["switches"]:
                if not sw["name"].startswith("spine"):
                    continue
                ports = ctl(sw["socket"], "ports")["ports"]
                out[sw["name"]] = (sum(p["tx_packets"] for p in ports),
                                   sum(p.get("xdp", {}).get("to_switch", {}).get("rocev2", {})
                                       .get("packets", 0) for p in ports))
            return out

        before = spine_counts()
        # Captures first, each running before anything is sent.
        caps = {}
        for h in hs:
            if not any(plan[s]["name"] == h["name"] for s in plan):
                continue
            n = sum(1 for s in plan if plan[s]["name"] == h["name"]) * SPORTS * PSNS
            path = os.path.join(self.tmp, f"rx-{h['name']}.pcap")
            cmd = ["ip", "netns", "exec", h["ns"], "tshark", "-i", h["iface"], "-n", "-q",
                   "-F", "pcap", "-w", path, "-c", str(n), "-a", "duration:30",
                   "-f", f"ip dst {h['ip']} and udp dst port {ROCE_PORT}"]
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            caps[h["name"]] = (p, path, n, [])
        # tshark says "Capturing on" before dumpcap captures and "Capture
        # started" once it does (when it says nothing more within 10 s of
        # the first, it is taken as capturing). Read unbuffered: select()
        # sees the pipe, not what a Python reader already buffered.
        for name, (p, _path, _n, err) in caps.items():
            fd, text = p.stderr.fileno(), ""
            end, announced = time.monotonic() + 60, None
            while "Capture started" not in text:
                if "Capturing on" in text and announced is None:
                    announced = time.monotonic()
                left = (min(end, announced + 10) if announced else end) - time.monotonic()
                r, _, _ = select.select([fd], [], [], max(0.0, left))
                chunk = os.read(fd, 4096) if r else b""
                if not r and announced:
                    break
                if not chunk:
                    p.kill()
                    self.fail(f"tshark on {name} did not start:\n{text}")
                text += chunk.decode(errors="replace")
            err.append(text)
        log(f"  tshark captures on {', '.join(caps)}")
        for h in hs:
            r = sh([TOOL, "send", NAME, h["name"], pcaps[h["name"]], "--pps", "500"], timeout=60)
            m = re.search(r"Actual: (\d+) packets", r.stdout)
            log(f"  {h['name']} ({h['ip']}) -> {plan[h['name']]['name']} "
                f"({plan[h['name']]['ip']}): tcpreplay sent {m.group(1) if m else '?'} frames")
        got = {}
        for name, (p, path, n, err) in caps.items():
            try:
                p.wait(timeout=40)
            except subprocess.TimeoutExpired:
                p.kill()
            frames = [raw(f) for f in rdpcap(path)] if os.path.exists(path) else []
            log(f"  {name}: captured {len(frames)} of {n} RoCEv2 frames")
            rest = p.stderr.read().decode(errors="replace")
            p.stderr.close()
            if len(frames) != n:
                log("  tshark said:\n" + "".join(err) + rest)
            for b in frames:
                off = ip_offset(b)
                ihl = (b[off] & 0xF) * 4
                src = ".".join(str(x) for x in b[off + 12:off + 16])
                sport = struct.unpack("!H", b[off + ihl:off + ihl + 2])[0]
                psn = struct.unpack("!I", b[off + ihl + 8 + 8:off + ihl + 8 + 12])[0] & 0xFFFFFF
                key = (src, sport, psn)
                self.assertTrue(key not in got, f"frame {key} arrived twice")
                got[key] = b
        missing = sorted(set(sent) - set(got))
        self.assertTrue(not missing, f"{len(missing)} frames never arrived, e.g. {missing[:4]}")
        self.assertEqual(len(got), len(sent))
        hosts_by_ip = {h["ip"]: h for h in hs}
        for key, b in got.items():
            s = sent[key]
            off, so = ip_offset(b), ip_offset(s)
            ihl = (b[off] & 0xF) * 4
            dst = hosts_by_ip[".".join(str(x) for x in b[off + 16:off + 20])]
            self.assertEqual(b[off + 8], 61, f"{key}: TTL {b[off + 8]}, want 64 - 3")
            self.assertTrue(ip_checksum_ok(b), f"{key}: IP header checksum")
            self.assertEqual(b[off + 1] >> 2, 26, f"{key}: DSCP")
            self.assertEqual(b[0:6], bytes.fromhex(dst["mac"].replace(":", "")), f"{key}: dst MAC")
            self.assertEqual(b[6:12], bytes.fromhex(dst["sw_mac"].replace(":", "")),
                             f"{key}: src MAC (the leaf's port)")
            self.assertEqual(b[off + 12:off + 20], s[so + 12:so + 20], f"{key}: addresses")
            self.assertEqual(b[off + ihl:], s[so + ihl:so + ihl + len(b) - off - ihl],
                             f"{key}: UDP header, BTH, payload, ICRC as sent")
            self.assertTrue(icrc_valid(b), f"{key}: ICRC")
        log(f"  all {len(got)} frames: once each, TTL 61, IP checksum right, DSCP 26, MACs "
            "rewritten, BTH/payload/ICRC as sent, ICRC valid")
        after = spine_counts()
        for sp in sorted(after):
            tx = after[sp][0] - before[sp][0]
            roce = after[sp][1] - before[sp][1]
            log(f"  {sp}: forwarded {tx} frames, {roce} RoCEv2 frames in, meanwhile")
            self.assertGreater(tx, 0, f"{sp} forwarded nothing: ECMP used one spine")
            self.assertGreater(roce, 0, f"{sp} saw no RoCEv2 frame: ECMP used one spine")

    def check_rocelb_gen_icrc(self):
        """The checker on frames rocelb-gen made (its own ICRC code)."""
        gen = os.path.join(BUILD, "tools", "rocelb-gen")
        if not os.access(gen, os.X_OK):
            return 0
        from scapy.all import raw, rdpcap, UDP
        out = os.path.join(self.tmp, "gen")
        r = sh([gen, "--preset", "nvmeof", "--param", "ios=2", "--out-dir", out], check=False)
        if r.returncode != 0:
            return 0
        n = 0
        for f in sorted(glob.glob(os.path.join(out, "*.pcap"))):
            for p in rdpcap(f)[:50]:
                if UDP in p and p[UDP].dport == ROCE_PORT and ip_offset(raw(p)):
                    self.assertTrue(icrc_valid(raw(p)), f"ICRC checker on rocelb-gen's {f}")
                    n += 1
        return n

    # 3
    def test_3_pfc_over_a_veth(self):
        log("3. PFC: leaf0 -> spine0 over their veth, priority 3, quanta 0xffff")
        link = next(ln for ln in self.st["links"]
                    if {ln["a"].split(":")[0], ln["b"].split(":")[0]} == {"leaf0", "spine0"})
        leaf_end = "a" if link["a"].startswith("leaf0:") else "b"
        spine_end = "b" if leaf_end == "a" else "a"
        spine_port = int(link[spine_end].split(":")[1])
        spine0 = self.switch("spine0")

        def prio3():
            pfc = ctl(spine0["socket"], "pfc")
            port = next(p for p in pfc["ports"] if p["port"] == spine_port)
            return next(q for q in port["priorities"] if q["priority"] == 3), pfc

        q0, pfc = prio3()
        self.assertIn(3, pfc["pfc_enable"])
        script = (
            "import struct, sys\n"
            "from scapy.all import Ether, Raw, sendp\n"
            "pl = struct.pack('!HH', 0x0101, 1 << 3) + struct.pack('!8H', *[0xffff if i == 3 "
            "else 0 for i in range(8)])\n"
            "f = Ether(dst='01:80:c2:00:00:01', src=sys.argv[2], type=0x8808) / "
            "Raw(pl + bytes(46 - len(pl)))\n"
            "sendp(f, iface=sys.argv[1], count=3, inter=0.05, verbose=False)\n")
        sh(["ip", "netns", "exec", link[f"{leaf_end}_ns"], sys.executable, "-c", script,
            link[f"{leaf_end}_if"], link[f"{leaf_end}_mac"]])
        log(f"  sent 3 PFC frames on {link[f'{leaf_end}_if']} in {link[f'{leaf_end}_ns']} "
            f"(leaf0's uplink, bound by its AF_XDP socket)")
        deadline = time.monotonic() + 5
        while True:
            q1, pfc = prio3()
            if q1["rx_frames"] - q0["rx_frames"] >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        log(f"  spine0 port {spine_port} priority 3: rx_frames {q0['rx_frames']} -> "
            f"{q1['rx_frames']}, rx_pause_us {q0['rx_pause_us']} -> {q1['rx_pause_us']}, "
            f"paused now {q1['paused']}")
        self.assertEqual(q1["rx_frames"] - q0["rx_frames"], 3, "PFC frames counted on spine0")
        self.assertGreater(q1["rx_pause_us"], q0["rx_pause_us"], "spine0 paused priority 3")
        for port in pfc["ports"]:
            for q in port["priorities"]:
                if (port["port"], q["priority"]) != (spine_port, 3):
                    self.assertEqual(q["rx_frames"], 0,
                                     f"port {port['port']} priority {q['priority']} got PFC")
        log("  no other port or priority of spine0 saw PFC")

    # 4
    def test_4_down_leaves_nothing_and_up_again(self):
        log("4. down leaves nothing; a second up (AF_PACKET ports), ping and down work")
        self.assertTrue(self.prog_ids, "test 1 recorded the XDP programs")
        self.down_and_check(self.prog_ids)
        st = FabricLive.st = up(["--ports", "af_packet"])
        for sw in st["switches"]:
            for p in ctl(sw["socket"], "ports")["ports"]:
                self.assertTrue(p["device"].startswith("net_af_packet"), p["device"])
        hs = st["hosts"]
        far = [(a, b) for a in hs for b in hs if self.leaf_of(a) != self.leaf_of(b)]
        self.ping_matrix([far[0], far[-1]])
        self.down_and_check(set())

    def down_and_check(self, prog_ids):
        r = down(self.logs)
        log(f"$ tools/fabric-live down {NAME}\n{r.stdout.rstrip()}")
        self.assertEqual(r.returncode, 0, f"down: exit {r.returncode}\n{r.stdout}{r.stderr}")
        self.assertEqual(r.stdout.count("exit 0, counters balanced, mbufs still in use 0"), 4,
                         "every switch exited 0, balanced, no mbuf leaked")
        left = [ns for ns in namespaces() if ns.startswith(PREFIX)]
        self.assertFalse(left, f"namespaces left: {left}")
        links = sh(["ip", "-o", "link", "show"]).stdout
        self.assertFalse(re.search(r"^\d+: rl\d+[pu]\d+[@:]", links, re.M), f"veths left:\n{links}")
        self.assertFalse(os.path.exists(os.path.join(STATE_ROOT, NAME)), "state folder left")
        self.assertFalse(fabric_pids(), f"processes left: {fabric_pids()}")
        self.assertFalse(glob.glob(f"/var/run/dpdk/{PREFIX}*"), "DPDK runtime folders left")
        alive = [i for i in prog_ids if bpf_prog_exists(i)]
        self.assertFalse(alive, f"XDP programs left: {alive}")
        log(f"  nothing left: no namespace {PREFIX}*, veth, state folder, process, DPDK "
            f"folder" + (f", nor any of the {len(prog_ids)} XDP programs" if prog_ids else ""))
        r = down()
        self.assertEqual(r.returncode, 0)
        self.assertIn("not up", r.stdout, "down again: says nothing is up")
        log(f"  down again: {r.stdout.strip()} (exit 0)")


def main():
    global BUILD
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=BUILD)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    BUILD = os.path.abspath(a.build_dir)
    if os.geteuid() != 0:
        print("fabric_live_test: SKIP: needs root (namespaces, veths, AF_XDP)")
        return 77
    if not shutil.which("ip") or subprocess.run(["ip", "netns", "list"], stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL).returncode != 0:
        print("fabric_live_test: SKIP: `ip netns` is not available")
        return 77
    for tool in ("tshark", "tcpreplay"):
        if not shutil.which(tool):
            print(f"fabric_live_test: {tool} is not installed (tools/setup installs it)")
            return 1
    for stale in stale_fabrics():
        r = sh([TOOL, "down", stale], check=False)
        log(f"fabric_live_test: took down {stale}, left by a run that was killed: exit "
            f"{r.returncode}")
    signal.signal(signal.SIGTERM, on_term)
    t0 = time.monotonic()
    ok = False
    try:
        prog = unittest.main(module=sys.modules[__name__], exit=False,
                             argv=[sys.argv[0]] + (["-v"] if a.verbose else []),
                             failfast=False)
        ok = prog.result.wasSuccessful()
    finally:
        if fabric_is_up():  # interrupted: tearDownClass did not run
            r = down()
            log(f"fabric_live_test: interrupted: tools/fabric-live down {NAME}: exit "
                f"{r.returncode}")
    log(f"fabric_live_test: {time.monotonic() - t0:.0f} s")
    return 0 if ok else 1


def on_term(_sig, _frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
