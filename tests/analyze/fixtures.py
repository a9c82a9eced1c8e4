"""Hand-made run directories for the rocelb-analyze tests: run.json,
timeline.csv, events.jsonl, counters.json, output pcaps (replay) and
flows.csv, summary.json, <switch>.counters.json (fabric). Sizes are
parameters, so the same code makes a large input for a speed check."""

import json
import os
import random
import struct

T0 = 1_700_000_000_000_000_000


def roce_frame(dst_ip, qp, psn, src_ip="10.0.0.1", opcode=0x04, vlan=None, ipv6=False):
    """Ethernet (+ 802.1Q) + IPv4/IPv6 + UDP 4791 + BTH + 64 bytes payload."""
    bth = bytes([opcode, 0, 0xFF, 0xFF, 0]) + qp.to_bytes(3, "big") + b"\x00" + \
        psn.to_bytes(3, "big")
    payload = bth + bytes(64)
    udp = struct.pack("!HHHH", 49152, 4791, 8 + len(payload), 0) + payload
    if ipv6:
        import ipaddress
        ip = struct.pack("!IHBB", 0x60000000, len(udp), 17, 64) + \
            ipaddress.IPv6Address(src_ip).packed + ipaddress.IPv6Address(dst_ip).packed
        etype = 0x86DD
    else:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                         bytes(map(int, src_ip.split("."))), bytes(map(int, dst_ip.split("."))))
        etype = 0x0800
    eth = b"\x02" * 6 + b"\x04" * 6
    if vlan is not None:
        eth += struct.pack("!HH", 0x8100, vlan)
    return eth + struct.pack("!H", etype) + ip + udp


def write_pcap(path, frames, t0=T0, step=1000, nanos=True, big_endian=False):
    o = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanos else 0xA1B2C3D4
    with open(path, "wb") as f:
        f.write(struct.pack(o + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            t = t0 + i * step
            frac = t % 10**9 if nanos else (t % 10**9) // 1000
            f.write(struct.pack(o + "IIII", t // 10**9, frac, len(fr), len(fr)))
            f.write(fr)


def write_pcapng(path, frames, t0=T0, step=1000):
    def block(btype, body):
        pad = (-len(body)) % 4
        n = 12 + len(body) + pad
        return struct.pack("<II", btype, n) + body + bytes(pad) + struct.pack("<I", n)
    with open(path, "wb") as f:
        f.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        opts = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)  # ns resolution
        f.write(block(1, struct.pack("<HHI", 1, 0, 65535) + opts))
        for i, fr in enumerate(frames):
            t = t0 + i * step
            f.write(block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(fr), len(fr))
                          + fr + bytes((-len(fr)) % 4)))


def switch_json(name="leaf1", hosts=4, uplinks=4, groups=True):
    ports = [{"id": i, "name": "host%d" % i, "speed_bps": 100_000_000_000} for i in range(hosts)]
    ports += [{"id": hosts + i, "name": "spine%d" % i, "speed_bps": 100_000_000_000}
              for i in range(uplinks)]
    sw = {"name": name, "ports": ports,
          "groups": [{"name": "uplinks", "mode": "fixed",
                      "members": [hosts + i for i in range(uplinks)]}] if groups else [],
          "ecn": [{"class": 3, "min_bytes": 100_000, "max_bytes": 400_000,
                   "max_probability": 0.2}],
          "pfc": {"classes": [3], "xoff_bytes": 600_000, "xon_bytes": 500_000}}
    return sw


def counters_json(ports, group_bytes=None, reordered=0):
    doc = {"schema": "rocelb.counters.v1", "ports": [], "groups": []}
    for p in ports:
        doc["ports"].append({
            "id": p["id"], "name": p["name"], "speed_bps": p["speed_bps"],
            "rx_packets": 10, "tx_packets": 10, "drops": {"queue_full": 1}, "drops_total": 1,
            "queues": [{"tc": c, "watermark_bytes": 1000 * c, "wred_ecn_marked_packets": 2 if c == 3
                        else 0} for c in range(8)],
            "pfc": {"pfc_tx_frames": [0, 0, 0, 3, 0, 0, 0, 0],
                    "pfc_rx_frames": [0, 0, 0, 1, 0, 0, 0, 0]}})
    if group_bytes is not None:
        doc["groups"].append({"name": "uplinks", "mode": "fixed", "members": [
            {"via": "spine%d" % i, "port": 4 + i, "weight": 1, "packets": b // 1000, "bytes": b}
            for i, b in enumerate(group_bytes)]})
    doc["reordering"] = {"roce_packets": 100, "qps": 4, "reordered_packets": reordered,
                         "max_psn_gap": 1}
    doc["time"] = {"first_ns": T0, "last_ns": T0 + 1_000_000}
    doc["totals"] = {"rx_packets": 0, "tx_packets": 0}
    return doc


def make_replay(d, intervals=100, interval_ns=10_000, member_ratio=(3, 1, 0, 0), events=2000,
                switches=("leaf1",), extra_ports=0, seed=1, pcaps=True, with_events=True,
                with_timeline=True, with_run_json=True):
    """A replay-like run directory. The uplink members' tx_bytes per interval
    follow member_ratio (x 10 KB); queue (port 4, class 3) ramps up and
    down; port 4 class 3 is paused by its peer in intervals 20..29."""
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(seed)
    end = T0 + intervals * interval_ns
    sws = [switch_json(n, hosts=4 + extra_ports) for n in switches]
    if with_run_json:
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump({"kind": "replay" if len(sws) == 1 else "fabric", "t0_ns": T0,
                       "end_ns": end, "interval_ns": interval_ns, "switches": sws}, f)
    n_hosts = 4 + extra_ports
    if with_timeline:
        with open(os.path.join(d, "timeline.csv"), "w") as f:
            f.write("t_ns,switch,port,class,metric,value\n")
            for k in range(1, intervals + 1):
                t = T0 + k * interval_ns
                for sw in switches:
                    for i, r in enumerate(member_ratio):
                        port = n_hosts + i
                        b = r * 10_000
                        if b == 0 and k < intervals // 2:
                            continue  # a series starts at its first activity
                        f.write("%d,%s,%d,,tx_bytes,%d\n" % (t, sw, port, b))
                        f.write("%d,%s,%d,,tx_bps,%d\n" % (t, sw, port, b * 8e9 / interval_ns))
                        f.write("%d,%s,%d,,group.uplinks.load_bps,%d\n" %
                                (t, sw, port, b * 8e9 / interval_ns))
                    for port in range(n_hosts + 4):
                        depth = int(max(0, 300_000 - abs(k - intervals / 2) * 8000)) \
                            if port == n_hosts else rnd.randrange(0, 20_000)
                        f.write("%d,%s,%d,3,queue_bytes,%d\n" % (t, sw, port, depth))
                        f.write("%d,%s,%d,3,queue_packets,%d\n" % (t, sw, port, depth // 1000))
                        f.write("%d,%s,%d,3,queue_peak_bytes,%d\n" % (t, sw, port, depth + 500))
                        f.write("%d,%s,%d,3,ecn_marks,%d\n" % (t, sw, port, 1 if depth > 1e5 else 0))
                        f.write("%d,%s,%d,,rx_bytes,%d\n" % (t, sw, port, 5000))
                        f.write("%d,%s,%d,,drops,0\n" % (t, sw, port))
                    f.write("%d,%s,%d,3,pfc_paused,%d\n" % (t, sw, n_hosts, 1 if 20 <= k < 30 else 0))
                    f.write("%d,%s,0,3,pfc_xoff,%d\n" % (t, sw, 1 if 40 <= k < 45 else 0))
                    f.write("%d,%s,0,3,pfc_tx_frames,%d\n" % (t, sw, 1 if k == 40 else 0))
    if with_events:
        with open(os.path.join(d, "events.jsonl"), "w") as f:
            for i in range(events):
                t = T0 + i * (intervals * interval_ns // max(events, 1))
                sw = switches[i % len(switches)]
                qp = 256 + i % 8
                flow = {"src": "10.0.0.1", "dst": "10.2.0.%d" % (i % 4 + 1), "proto": 17,
                        "sport": 49152, "dport": 4791}
                f.write(json.dumps({"t_ns": t, "ev": "arrive", "switch": sw, "port": 0,
                                    "len": 1024, "flow": flow, "qp": qp, "psn": i}) + "\n")
                f.write(json.dumps({"t_ns": t, "ev": "enqueue", "switch": sw, "port": 4,
                                    "class": 3, "in_port": 0, "len": 1024, "depth_bytes": 2048,
                                    "qp": qp, "psn": i}) + "\n")
                psn = i // 8
                if i % 50 == 7:
                    psn = max(0, psn - 2)  # behind: a reordered packet
                f.write(json.dumps({"t_ns": t + 500, "ev": "dequeue", "switch": sw,
                                    "port": 4 + i % 4, "class": 3 if i % 3 else 0, "in_port": 0,
                                    "len": 1024, "sojourn_ns": rnd.randrange(100, 20_000),
                                    "qp": qp, "psn": psn, "flow": flow}) + "\n")
                if i % 100 == 0:
                    f.write(json.dumps({"t_ns": t, "ev": "mark", "switch": sw, "port": 4,
                                        "class": 3, "where": "enqueue"}) + "\n")
                    f.write(json.dumps({"t_ns": t, "ev": "lb", "switch": sw, "group": "uplinks",
                                        "mode": "fixed", "member": 1, "port": 5}) + "\n")
            f.write(json.dumps({"t_ns": T0 + 200_000, "ev": "pfc_rx", "switch": switches[0],
                                "port": 4, "class_enable": 8,
                                "quanta": [0, 0, 0, 65535, 0, 0, 0, 0]}) + "\n")
            f.write(json.dumps({"t_ns": T0 + 300_000, "ev": "pfc_rx", "switch": switches[0],
                                "port": 4, "class_enable": 8, "quanta": [0] * 8}) + "\n")
            f.write(json.dumps({"t_ns": T0 + 400_000, "ev": "pfc_tx", "switch": switches[0],
                                "port": 0, "class_enable": 8,
                                "quanta": [0, 0, 0, 65535, 0, 0, 0, 0]}) + "\n")
            f.write(json.dumps({"t_ns": T0 + 450_000, "ev": "pfc_tx", "switch": switches[0],
                                "port": 0, "class_enable": 8, "quanta": [0] * 8}) + "\n")
            f.write(json.dumps({"t_ns": T0 + 500_000, "ev": "drop", "switch": switches[0],
                                "port": 4, "reason": "queue_full", "class": 3,
                                "len": 1024}) + "\n")
    for sw in sws:
        name = "counters.json" if len(sws) == 1 else sw["name"] + ".counters.json"
        with open(os.path.join(d, name), "w") as f:
            json.dump(counters_json(sw["ports"], [r * 10_000 * intervals for r in member_ratio],
                                    reordered=0), f, indent=2)
    if pcaps and len(sws) == 1:
        frames = [roce_frame("10.2.0.1", 300, psn) for psn in (0, 1, 3, 2, 4)]
        write_pcap(os.path.join(d, "port4.pcap"), frames)
    return d


def write_flows(d, rows):
    """rows: (size_bytes, fct_ns or None, ideal_fct_ns)."""
    with open(os.path.join(d, "flows.csv"), "w") as f:
        f.write("flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
                "packets,retransmitted_packets,cnps_received\n")
        for i, (size, fct, ideal) in enumerate(rows):
            fin = "" if fct is None else str(1000 + fct)
            fcts = "" if fct is None else str(fct)
            sd = "" if fct is None else "%.4f" % (fct / ideal)
            f.write("%d,h0,h1,%d,1000,%s,%s,%d,%s,10,0,0\n" % (i, size, fin, fcts, ideal, sd))


def make_fabric(d, flows=None, **kw):
    kw.setdefault("switches", ("leaf0", "leaf1"))
    kw.setdefault("pcaps", False)
    make_replay(d, **kw)
    if flows is None:
        flows = [(50_000, 2000 * (i % 5 + 1), 1000) for i in range(100)]
        flows += [(500_000, 3000, 1000), (2_000_000, 1500, 1000), (2_000_000, None, 1000)]
    write_flows(d, flows)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"schema": "rocelb.fabric.summary.v1", "nics": {"out_of_order_received": 7,
                                                                 "retransmitted_packets": 3}}, f)
    return d
