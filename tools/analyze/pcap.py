"""Reading packet captures (classic pcap in micro- or nanoseconds, either byte
order; pcapng with SHB/IDB/EPB/SPB blocks) and parsing the RoCEv2 headers the
reordering metric needs. Standard library only."""

import ipaddress
import struct

from .errors import InputError
from .limits import MAX_PCAP_RECORD

LINKTYPE_ETHERNET = 1
ROCEV2_UDP_PORT = 4791
OPCODE_CNP = 0x81

_PCAP_MAGICS = {  # first four bytes -> (byte order, ticks per second)
    b"\xd4\xc3\xb2\xa1": ("<", 1_000_000),
    b"\xa1\xb2\xc3\xd4": (">", 1_000_000),
    b"\x4d\x3c\xb2\xa1": ("<", 1_000_000_000),
    b"\xa1\xb2\x3c\x4d": (">", 1_000_000_000),
}
_PCAPNG_SHB = b"\x0a\x0d\x0d\x0a"


def read_packets(path):
    """Yields (timestamp_ns, frame bytes) of every packet in the file, in file
    order. Raises InputError (line = packet number) on a damaged file, and
    on a record or block over MAX_PCAP_RECORD bytes (never read whole)."""
    with open(path, "rb") as f:
        head = f.read(4)
        try:
            if head in _PCAP_MAGICS:
                yield from _read_pcap(path, f, head)
            elif head == _PCAPNG_SHB:
                yield from _read_pcapng(path, f, head)
            elif not head:
                raise InputError(path, None, "empty file (no pcap header)")
            else:
                raise InputError(path, None, "not a pcap or pcapng file (magic %s)" % head.hex())
        except struct.error as e:  # a block too short for its fields
            raise InputError(path, None, "damaged pcapng block: %s" % e) from None


def _read_pcap(path, f, magic):
    order, ticks = _PCAP_MAGICS[magic]
    rest = f.read(20)
    if len(rest) < 20:
        raise InputError(path, None, "truncated pcap header")
    linktype = struct.unpack(order + "HHiIII", rest)[5] & 0xFFFF
    if linktype != LINKTYPE_ETHERNET:
        raise InputError(path, None, "link type %d is not Ethernet" % linktype)
    rec = struct.Struct(order + "IIII")
    scale = 1_000_000_000 // ticks
    n = 0
    while True:
        h = f.read(16)
        if not h:
            return
        n += 1
        if len(h) < 16:
            raise InputError(path, "packet %d" % n, "truncated record header")
        sec, frac, incl, _orig = rec.unpack(h)
        if incl > MAX_PCAP_RECORD:
            raise InputError(path, "packet %d" % n, "captured length %d is over %d bytes (the "
                             "limit for one record: a damaged file?)" % (incl, MAX_PCAP_RECORD))
        data = f.read(incl)
        if len(data) < incl:
            raise InputError(path, "packet %d" % n, "truncated packet data")
        yield sec * 1_000_000_000 + frac * scale, data


def _read_pcapng(path, f, first):
    order = "<"
    ifaces = []  # per interface: (linktype, ns per tick numerator, denominator)
    n = 0
    head = first
    while True:
        if head is None:
            head = f.read(4)
            if not head:
                return
        rest = f.read(4)
        if len(head) < 4 or len(rest) < 4:
            raise InputError(path, "block after packet %d" % n, "truncated block header")
        if head == _PCAPNG_SHB:
            bom = f.read(4)
            if bom == b"\x4d\x3c\x2b\x1a":
                order = "<"
            elif bom == b"\x1a\x2b\x3c\x4d":
                order = ">"
            else:
                raise InputError(path, None, "bad pcapng byte-order magic")
            length = struct.unpack(order + "I", rest)[0]
            _check_length(path, n, length, 28)
            body = f.read(length - 12)
            if len(body) < length - 12:
                raise InputError(path, "block after packet %d" % n, "truncated block")
            ifaces = []
            head = None
            continue
        btype = struct.unpack(order + "I", head)[0]
        length = struct.unpack(order + "I", rest)[0]
        _check_length(path, n, length, 12)
        body = f.read(length - 8)
        if len(body) < length - 8:
            raise InputError(path, "block after packet %d" % n, "truncated block")
        body = body[:-4]  # trailing length copy
        head = None
        if btype == 1:  # interface description
            if len(body) < 8:
                raise InputError(path, "block after packet %d" % n, "interface block too short")
            linktype = struct.unpack(order + "H", body[:2])[0]
            num, den = 1000, 1  # default resolution: microseconds
            opts = body[8:]
            while len(opts) >= 4:
                code, olen = struct.unpack(order + "HH", opts[:4])
                if code == 0:
                    break
                val = opts[4:4 + olen]
                if code == 9 and val:  # if_tsresol
                    r = val[0]
                    if r & 0x80:
                        num, den = 1_000_000_000, 2 ** (r & 0x7F)
                    else:
                        exp = r & 0x7F
                        num, den = (10 ** (9 - exp), 1) if exp <= 9 else (1, 10 ** (exp - 9))
                opts = opts[4 + ((olen + 3) & ~3):]
            ifaces.append((linktype, num, den))
        elif btype in (3, 6):  # simple / enhanced packet
            n += 1
            if btype == 6:
                if len(body) < 20:
                    raise InputError(path, "packet %d" % n, "packet block too short")
                iface, hi, lo, cap, _orig = struct.unpack(order + "IIIII", body[:20])
                data = body[20:20 + cap]
                ts = (hi << 32) | lo
            else:
                iface, ts = 0, 0
                data = body[4:]
            if iface >= len(ifaces):
                raise InputError(path, "packet %d" % n, "interface %d not described" % iface)
            linktype, num, den = ifaces[iface]
            if linktype != LINKTYPE_ETHERNET:
                raise InputError(path, "packet %d" % n, "link type %d is not Ethernet" % linktype)
            yield ts * num // den, data


def _check_length(path, n, length, least):
    if length < least or length % 4 or length > MAX_PCAP_RECORD:
        raise InputError(path, "block after packet %d" % n, "bad block length %d (a multiple of "
                         "4, %d .. %d bytes)" % (length, least, MAX_PCAP_RECORD))


def parse_roce(frame):
    """(src ip, dst ip, dest QP, PSN, opcode) of a RoCEv2 frame, else None.
    Ethernet, any number of 802.1Q/802.1ad tags, IPv4 or IPv6, UDP to 4791,
    then the BTH."""
    if len(frame) < 14:
        return None
    off = 12
    etype = (frame[off] << 8) | frame[off + 1]
    off += 2
    while etype in (0x8100, 0x88A8) and len(frame) >= off + 4:
        etype = (frame[off + 2] << 8) | frame[off + 3]
        off += 4
    if etype == 0x0800:
        if len(frame) < off + 20:
            return None
        ihl = (frame[off] & 0x0F) * 4
        if frame[off + 9] != 17:
            return None
        src = str(ipaddress.IPv4Address(frame[off + 12:off + 16]))
        dst = str(ipaddress.IPv4Address(frame[off + 16:off + 20]))
        off += ihl
    elif etype == 0x86DD:
        if len(frame) < off + 40 or frame[off + 6] != 17:
            return None
        src = str(ipaddress.IPv6Address(frame[off + 8:off + 24]))
        dst = str(ipaddress.IPv6Address(frame[off + 24:off + 40]))
        off += 40
    else:
        return None
    if len(frame) < off + 8 + 12:
        return None
    if ((frame[off + 2] << 8) | frame[off + 3]) != ROCEV2_UDP_PORT:
        return None
    bth = off + 8
    opcode = frame[bth]
    qp = int.from_bytes(frame[bth + 5:bth + 8], "big")
    psn = int.from_bytes(frame[bth + 9:bth + 12], "big")
    return src, dst, qp, psn, opcode
