#!/usr/bin/python3
"""AF_XDP ports with rocelb's XDP steering program, and live link state.

A switch namespace with three veth ports (s0, s1, s2) and three host
namespaces (h0, h1, h2) at their other ends. Port 0 is shared with the
kernel (ports[0].xdp_steering: roce, and the kernel has 192.168.77.1 on
s0); ports 1 and 2 are the members of group `uplinks` (xdp_steering: all),
which 10.9.0.0/16 is routed to. Cases (one per ctest):

  shared_interface   TCP to the kernel's address on s0 works while RoCE from
                     h0 crosses the switch to h1/h2 (TTL 63); the program's
                     counters equal what the switch received; metrics carry
                     them; a clean stop leaves no program attached.
  crash_and_foreign_program
                     kill -9 leaves the program; the next start detaches it
                     and says so; someone else's program is refused (exit 2,
                     the key path) and left alone.
  link_down_moves_flows
                     under traffic, h2's end goes down: port 2's link reads
                     down within a second, its flows move to port 1, and h1
                     receives every frame the switch sent it; up again: port
                     2 carries traffic again; link_changes counts both.

Usage: xdp_steering_test.py --build-dir build CASE. Exit 77 (skip) when not
root or without `ip netns`.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

TAG = str(os.getpid())
NS = {n: f"rlx{TAG}{n}" for n in ("sw", "h0", "h1", "h2")}
HOST_MAC = {0: "02:00:00:00:01:00", 1: "02:00:00:00:01:01", 2: "02:00:00:00:01:02"}
SW_MAC = {0: "02:00:00:00:00:00", 1: "02:00:00:00:00:01", 2: "02:00:00:00:00:02"}

CONFIG = """
switch: {{name: xdp-test}}
control: {{socket: {sock}}}
ports:
  - {{id: 0, name: h0, speed: 10G, mac: "02:00:00:00:00:00", ipv4: 10.0.0.1/24, device: "net_af_xdp0,iface=s0", xdp_steering: roce}}
  - {{id: 1, name: up1, speed: 10G, mac: "02:00:00:00:00:01", ipv4: 10.1.1.1/24, device: "net_af_xdp1,iface=s1", xdp_steering: all}}
  - {{id: 2, name: up2, speed: 10G, mac: "02:00:00:00:00:02", ipv4: 10.1.2.1/24, device: "net_af_xdp2,iface=s2", xdp_steering: all}}
neighbors:
  - {{ip: 10.0.0.2, mac: "02:00:00:00:01:00", port: 0}}
  - {{ip: 10.1.1.2, mac: "02:00:00:00:01:01", port: 1}}
  - {{ip: 10.1.2.2, mac: "02:00:00:00:01:02", port: 2}}
groups:
  uplinks: {{mode: fixed, members: [10.1.1.2, 10.1.2.2]}}
routes:
  - {{prefix: 10.9.0.0/16, group: uplinks}}
"""

# Sends N RoCEv2 frames (RDMA WRITE only, 64 flows by UDP source port) from
# h0 towards 10.9.0.1 through the switch, one per `gap` seconds.
SENDER = r"""
import sys, time
from scapy.all import Ether, IP, UDP, Raw, conf
from scapy.contrib.roce import BTH
n, gap = int(sys.argv[1]), float(sys.argv[2])
frames = [bytes(Ether(src="02:00:00:00:01:00", dst="02:00:00:00:00:00") /
                IP(src="10.0.0.2", dst="10.9.0.1", ttl=64) /
                UDP(sport=1000 + f, dport=4791) / BTH(opcode=10, dqpn=0x100 + f, psn=1) /
                Raw(b"r" * 128)) for f in range(64)]
s = conf.L2socket(iface="e0")
t = time.time()
for i in range(n):
    s.send(frames[i % 64])
    t += gap
    d = t - time.time()
    if d > 0:
        time.sleep(d)
"""

# A TCP echo server on the kernel's own address of the shared interface.
ECHO = r"""
import socket
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("192.168.77.1", 7007)); srv.listen(1)
print("listening", flush=True)
c, _ = srv.accept(); c.sendall(c.recv(100)); c.close()
"""

ECHO_CLIENT = r"""
import socket, sys
c = socket.create_connection(("192.168.77.1", 7007), timeout=5)
c.sendall(b"through the kernel"); print(c.recv(100).decode())
"""


def sh(cmd, check=True, **kw):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"`{cmd}` exited {r.returncode}: {r.stderr.strip()}")
    return r


def in_ns(ns, cmd, **kw):
    return sh(f"ip netns exec {NS[ns]} {cmd}", **kw)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f"ok: {what}")


class Testbed:
    def __init__(self, build):
        self.build = build
        self.dir = tempfile.mkdtemp(prefix="rocelb-xdp-")
        self.sock = os.path.join(self.dir, "sw.sock")
        self.config = os.path.join(self.dir, "sw.yaml")
        with open(self.config, "w") as f:
            f.write(CONFIG.format(sock=self.sock))
        self.proc = None
        for n in NS.values():
            sh(f"ip netns add {n}")
        for i in range(3):
            sh(f"ip link add s{i} netns {NS['sw']} type veth peer name e{i} netns {NS['h%d' % i]}")
            in_ns("sw", f"ip link set s{i} up")
            h = f"h{i}"
            in_ns(h, f"ip link set e{i} address {HOST_MAC[i]} up")
            in_ns(h, f"sysctl -qw net.ipv6.conf.e{i}.disable_ipv6=1")
        in_ns("sw", "ip addr add 192.168.77.1/24 dev s0")
        in_ns("h0", "ip addr add 192.168.77.2/24 dev e0")
        in_ns("h0", "ip addr add 10.0.0.2/24 dev e0")
        in_ns("h0", "ip route add default via 10.0.0.1")
        in_ns("h1", "ip addr add 10.1.1.2/24 dev e1")
        in_ns("h2", "ip addr add 10.1.2.2/24 dev e2")

    def start(self):
        self.log = open(os.path.join(self.dir, "sw.log"), "w+")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", NS["sw"], f"{self.build}/dataplane/rocelb-dp", "run",
             "--config", self.config, "--idle-sleep-max", "200us", "--", "-l", "0"],
            stdout=self.log, stderr=subprocess.STDOUT, text=True)
        end = time.time() + 30
        while time.time() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"rocelb-dp exited {self.proc.returncode}: {self.output()}")
            if os.path.exists(self.sock) and self.ctl("show", "ports", check=False).returncode == 0:
                return
            time.sleep(0.2)
        raise AssertionError(f"the switch did not come up: {self.output()}")

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=30)
        self.proc = None
        return rc

    def ctl(self, *args, check=True):
        return sh(f"{self.build}/tools/rocelbctl --socket {self.sock} " + " ".join(args), check=check)

    def ports(self):
        return {p["id"]: p for p in json.loads(self.ctl("show", "ports", "--json").stdout)["ports"]}

    def attached(self, i):
        return "prog/xdp" in in_ns("sw", f"ip -d link show s{i}").stdout

    def capture(self, host, seconds):
        path = os.path.join(self.dir, f"{host}.pcap")
        p = subprocess.Popen(
            ["ip", "netns", "exec", NS[host], "tshark", "-q", "-i", f"e{host[1]}", "-a",
             f"duration:{seconds}", "-f", "udp port 4791", "-w", path],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return p, path

    def close(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
        for n in NS.values():
            sh(f"ip netns del {n}", check=False)


def wait_captures_ready(seconds=1.5):
    time.sleep(seconds)  # tshark needs a moment before it captures


def frames(pcap):
    """(epoch time, udp source port, ttl) of each RoCEv2 frame of a capture."""
    r = sh(f"tshark -r {pcap} -Y 'udp.dstport == 4791' -T fields -e frame.time_epoch "
           f"-e udp.srcport -e ip.ttl", check=False)
    out = []
    for line in r.stdout.splitlines():
        t, sport, ttl = line.split("\t")
        out.append((float(t), int(sport), int(ttl)))
    return out


def send(n, gap):
    return subprocess.Popen(["ip", "netns", "exec", NS["h0"], "/usr/bin/python3", "-c", SENDER,
                             str(n), str(gap)], stderr=subprocess.PIPE, text=True)


def case_shared_interface(tb):
    tb.start()
    server = subprocess.Popen(["ip", "netns", "exec", NS["sw"], "/usr/bin/python3", "-c", ECHO],
                              stdout=subprocess.PIPE, text=True)
    check(server.stdout.readline().strip() == "listening", "the kernel's echo server listens")
    reply = in_ns("h0", f"/usr/bin/python3 -c '{ECHO_CLIENT}'").stdout.strip()
    server.wait(timeout=10)
    check(reply == "through the kernel", "TCP to the kernel's address on the shared port works")
    in_ns("h0", "ping -c 2 -W 2 10.0.0.1")
    print("ok: h0 pings the switch's own address on the same port")
    caps = [tb.capture(h, 6) for h in ("h1", "h2")]
    wait_captures_ready()
    sender = send(40, 0.01)
    sender.wait(timeout=60)
    for p, _ in caps:
        p.wait(timeout=30)
    got = frames(caps[0][1]) + frames(caps[1][1])
    check(len(got) == 40, f"all 40 RoCE frames crossed the switch to h1/h2 (got {len(got)})")
    check(all(ttl == 63 for _, _, ttl in got), "every one with TTL 63")
    p = tb.ports()
    x = p[0]["xdp"]
    steered = sum(v["packets"] for v in x["to_switch"].values())
    check(x["mode"] == "roce" and x["interface"] == "s0", "port 0 steers RoCE (show ports)")
    check(x["to_switch"]["rocev2"]["packets"] == 40, "the program sent the 40 RoCEv2 frames to the switch")
    check(steered == p[0]["rx_packets"],
          f"what the program steered ({steered}) is what the switch received on port 0 ({p[0]['rx_packets']})")
    check(x["to_kernel"]["packets"] >= 4, f"TCP and ARP for the kernel's address passed ({x['to_kernel']['packets']})")
    check(x["to_switch"]["neighbor"]["packets"] >= 1, "ARP for the switch's address went to the switch")
    check(p[1]["xdp"]["mode"] == "all" and p[1]["xdp"]["to_kernel"]["packets"] == 0,
          "port 1 (all) passes nothing to the kernel")
    metrics = tb.ctl("show", "metrics").stdout
    check('rocelb_port_xdp_frames_total{port="0",to="switch",reason="rocev2"} 40' in metrics,
          "the metrics carry the program's counters")
    table = tb.ctl("show", "ports").stdout
    check("XDP steering" in table and "roce" in table, "rocelbctl show ports prints the XDP table")
    rc = tb.stop()
    out = tb.output()
    check(rc == 0 and "mbufs still in use: 0" in out, f"a clean stop exits 0 with no mbuf in use (rc {rc})")
    check(not any(tb.attached(i) for i in range(3)), "no XDP program is left attached")


def case_crash_and_foreign_program(tb):
    tb.start()
    tb.stop(signal.SIGKILL)
    check(tb.attached(0), "kill -9 leaves the program attached")
    tb.start()
    check("detached the XDP program" in tb.output(), "the next start detaches it and says so")
    check(tb.stop() == 0, "and stops cleanly")
    check(not tb.attached(0), "nothing left attached")
    src = os.path.join(tb.dir, "other.c")
    with open(src, "w") as f:
        f.write('#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n'
                'SEC("xdp") int other(struct xdp_md *c) { return XDP_PASS; }\n'
                'char LICENSE[] SEC("license") = "GPL";\n')
    obj = os.path.join(tb.dir, "other.o")
    sh(f"clang -O2 -target bpf -I/usr/include/$(gcc -print-multiarch) -c {src} -o {obj}")
    in_ns("sw", f"ip link set dev s0 xdpgeneric obj {obj} sec xdp")
    r = in_ns("sw", f"{tb.build}/dataplane/rocelb-dp run --config {tb.config} -- -l 0", check=False)
    err = [l for l in r.stderr.splitlines() if l.startswith("rocelb-dp:")]
    check(r.returncode == 2, f"a port with someone else's XDP program is refused (exit {r.returncode})")
    check(len(err) == 1 and "ports[0].xdp_steering: interface s0 already has XDP program" in err[0],
          f"with one line naming the key: {err}")
    check(tb.attached(0), "and that program is left alone")
    in_ns("sw", "ip link set dev s0 xdpgeneric off")


def case_link_down_moves_flows(tb):
    tb.start()
    caps = [tb.capture(h, 9) for h in ("h1", "h2")]
    wait_captures_ready()
    sender = send(3000, 0.002)  # ~6 s
    time.sleep(1.5)
    t_down = time.time()
    in_ns("h2", "ip link set e2 down")
    # The switch reads its links every 50 ms; the bounds leave a loaded
    # machine room (the figure printed is what counts).
    while tb.ports()[2]["link"] != "down":
        if time.time() - t_down > 5.0:
            raise AssertionError("port 2 does not read link down within 5 s")
        time.sleep(0.02)
    seen_down = time.time()
    print(f"ok: port 2 link down seen after {1000 * (seen_down - t_down):.0f} ms")
    time.sleep(1.5)
    in_ns("h2", "ip link set e2 up")
    t_up = time.time()
    while tb.ports()[2]["link"] != "up":
        if time.time() - t_up > 5.0:
            raise AssertionError("port 2 does not read link up within 5 s")
        time.sleep(0.02)
    seen_up = time.time()
    sender.wait(timeout=60)
    for p, _ in caps:
        p.wait(timeout=30)
    time.sleep(0.5)
    p = tb.ports()
    h1, h2 = frames(caps[0][1]), frames(caps[1][1])
    check(p[2]["link_changes"] == 2, f"link_changes counts down and up ({p[2]['link_changes']})")
    check(len(h1) == p[1]["tx_packets"],
          f"h1 got every frame the switch sent on port 1 ({len(h1)} of {p[1]['tx_packets']})")
    before = {s for t, s, _ in h2 if t < t_down}
    moved = {s for t, s, _ in h1 if seen_down + 0.1 < t < t_up} & before
    check(len(before) > 0 and moved == before,
          f"the {len(before)} flows of port 2 moved to port 1 while it was down")
    during = [t for t, _, _ in h2 if seen_down + 0.1 < t < t_up]
    check(not during, "port 2 carried nothing while down")
    after = [t for t, _, _ in h2 if t > seen_up + 0.2]
    check(len(after) > 0, f"port 2 carries traffic again once up ({len(after)} frames)")
    c = json.loads(tb.ctl("show", "counters", "--json").stdout)
    check(c["totals"]["conserved"], "the switch's counters balance")
    check(tb.stop() == 0, "it stops cleanly")


CASES = {
    "shared_interface": case_shared_interface,
    "crash_and_foreign_program": case_crash_and_foreign_program,
    "link_down_moves_flows": case_link_down_moves_flows,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    if os.geteuid() != 0 or sh("ip netns list", check=False).returncode != 0:
        print("skipped: needs root and ip netns")
        return 77
    tb = Testbed(os.path.abspath(a.build_dir))
    try:
        CASES[a.case](tb)
    except AssertionError as e:
        print(f"FAIL: {e}")
        if tb.proc or os.path.exists(os.path.join(tb.dir, "sw.log")):
            print("--- switch log ---\n" + tb.output()[-3000:])
        return 1
    finally:
        tb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
