#!/usr/bin/env python3
"""Lab 01 helper (Python 3 standard library only).

  roce_tool.py v1 OUT.pcap
      write a pcap holding one RoCEv1 frame (Ethertype 0x8915: GRH + BTH +
      payload + ICRC), a SEND Only from host1 (10.0.1.2) to 10.2.1.2, as it
      would enter switch port 1 of configs/default.yaml.

  roce_tool.py icrc FILE.pcap|FILE.pcapng
      recompute the invariant CRC of every RoCE frame (v1 and v2, IPv4 and
      IPv6) and compare it with the one the frame carries.

The ICRC (IBA vol. 1 annex A17): CRC-32, the Ethernet polynomial, over
8 bytes of 0xff (standing for the InfiniBand LRH), then the IP header (v2)
or GRH (v1) and everything after it up to the ICRC, with the fields a
router may change replaced by 1s: IPv4 TOS, TTL and header checksum;
IPv6/GRH traffic class, flow label and hop limit; the UDP checksum; the BTH
byte resv8a. The result is stored least significant byte first.
"""
import struct
import sys
import zlib

ETH_IPV4, ETH_IPV6, ETH_ROCEV1, ETH_VLAN = 0x0800, 0x86DD, 0x8915, 0x8100
ROCEV2_PORT = 4791


def icrc_of(l3: bytes, kind: str) -> int:
    """CRC over the masked L3..BTH..payload (without the 4 ICRC bytes)."""
    b = bytearray(l3)
    if kind == "ipv4":
        ihl = (b[0] & 0x0F) * 4
        b[1] = 0xFF                      # TOS: DSCP + ECN
        b[8] = 0xFF                      # TTL
        b[10:12] = b"\xff\xff"           # header checksum
        udp = ihl
        b[udp + 6:udp + 8] = b"\xff\xff"  # UDP checksum
        bth = udp + 8
    elif kind == "ipv6":
        b[0:4] = bytes([b[0] | 0x0F, 0xFF, 0xFF, 0xFF])  # version kept; TC, flow label
        b[7] = 0xFF                      # hop limit
        udp = 40
        b[udp + 6:udp + 8] = b"\xff\xff"
        bth = udp + 8
    else:                                # RoCEv1: the GRH has the IPv6 layout
        b[0:4] = bytes([b[0] | 0x0F, 0xFF, 0xFF, 0xFF])
        b[7] = 0xFF
        bth = 40
    b[bth + 4] = 0xFF                    # BTH resv8a
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def read_frames(path):
    """Yield the frames of a classic pcap or a pcapng file."""
    data = open(path, "rb").read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        off = 24
        while off + 16 <= len(data):
            _, _, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
            yield data[off + 16:off + 16 + incl]
            off += 16 + incl
    elif magic == b"\x0a\x0d\x0d\x0a":
        e = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
        off = 0
        while off + 12 <= len(data):
            btype, blen = struct.unpack(e + "II", data[off:off + 8])
            if btype == 6:               # enhanced packet block
                incl = struct.unpack(e + "I", data[off + 20:off + 24])[0]
                yield data[off + 28:off + 28 + incl]
            elif btype == 3:             # simple packet block
                incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
                yield data[off + 12:off + 12 + incl]
            off += blen
    else:
        sys.exit(f"{path}: not a pcap or pcapng file")


def check(path):
    bad = total = 0
    for n, f in enumerate(read_frames(path), 1):
        et, off = struct.unpack("!H", f[12:14])[0], 14
        while et == ETH_VLAN:
            et, off = struct.unpack("!H", f[off + 2:off + 4])[0], off + 4
        l3 = f[off:]
        if et == ETH_IPV4 and l3[9] == 17:
            ihl = (l3[0] & 0x0F) * 4
            if struct.unpack("!H", l3[ihl + 2:ihl + 4])[0] != ROCEV2_PORT:
                continue
            kind, end = "RoCEv2/IPv4", struct.unpack("!H", l3[2:4])[0]
            mask = "ipv4"
        elif et == ETH_IPV6 and l3[6] == 17:
            if struct.unpack("!H", l3[42:44])[0] != ROCEV2_PORT:
                continue
            kind, end, mask = "RoCEv2/IPv6", 40 + struct.unpack("!H", l3[4:6])[0], "ipv6"
        elif et == ETH_ROCEV1:
            kind, end, mask = "RoCEv1", 40 + struct.unpack("!H", l3[4:6])[0], "grh"
        else:
            continue
        l3 = l3[:end]                    # drop Ethernet padding, if any
        carried = struct.unpack("<I", l3[-4:])[0]
        computed = icrc_of(l3[:-4], mask)
        total += 1
        ok = carried == computed
        bad += not ok
        print(f"frame {n:3d} {kind:12s} ICRC carried 0x{carried:08x} computed 0x{computed:08x} "
              f"{'ok' if ok else 'MISMATCH'}")
    print(f"{total} RoCE frames, {bad} with a wrong ICRC")
    return 1 if bad else 0


def write_v1(path):
    dst_mac = bytes.fromhex("020000000001")   # switch port 1
    src_mac = bytes.fromhex("020000000101")   # host1 (its neighbor entry)
    payload = bytes(range(64))
    bth_len, icrc_len = 12, 4
    # GRH: IP version 6, traffic class 0x68 (DSCP 26 << 2), flow label 0,
    # payload length, next header 0x1b (IBA transport), hop limit 64, and
    # the GIDs as IPv4-mapped IPv6 addresses (how RoCE GIDs carry IPv4).
    sgid = bytes(10) + b"\xff\xff" + bytes([10, 0, 1, 2])
    dgid = bytes(10) + b"\xff\xff" + bytes([10, 2, 1, 2])
    grh = struct.pack("!IHBB", (6 << 28) | (0x68 << 20), bth_len + len(payload) + icrc_len,
                      0x1B, 64) + sgid + dgid
    # BTH: opcode 0x04 (RC SEND Only), SE 0 M 0 PadCnt 0 TVer 0, P_Key 0xffff,
    # resv8a 0, DestQP 0x000201, AckReq 1, PSN 7.
    bth = struct.pack("!BBHI I", 0x04, 0x00, 0xFFFF, 0x000201, (1 << 31) | 7)
    body = grh + bth + payload
    frame = dst_mac + src_mac + struct.pack("!H", ETH_ROCEV1) + body
    frame += struct.pack("<I", icrc_of(body, "grh"))
    ts = 1767225600                           # the scenario's base_time (2026-01-01)
    with open(path, "wb") as out:
        # Classic pcap, nanosecond timestamps, Ethernet.
        out.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
        out.write(struct.pack("<IIII", ts, 500, len(frame), len(frame)) + frame)
    print(f"{path}: 1 RoCEv1 frame, {len(frame)} bytes")


def main(argv):
    if len(argv) == 3 and argv[1] == "v1":
        write_v1(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "icrc":
        return check(argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
