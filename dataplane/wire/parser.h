// The packet parser: one pass over a frame's headers filling a ParsedPacket
// (dataplane/parsed_packet.h). Runs per packet on the hot path: no allocation,
// no exceptions, never reads past the contiguous bytes it is given.
//
// Covers Ethernet; up to two 802.1Q/802.1ad tags (TPID 0x8100, 0x88A8,
// 0x9100); IPv4 with options and fragments; IPv6 with hop-by-hop, routing,
// fragment, destination-options and AH extension headers; UDP; the RoCEv2 BTH
// on UDP port 4791; RoCEv1 (Ethertype 0x8915: GRH then BTH); Ethernet/IPv4
// ARP; MAC control PAUSE and PFC. Other Ethertypes parse as ok, kind kOther.
//
// Two lengths: `avail` bytes are readable at data (an mbuf's first segment, a
// pcap record's captured bytes), `frame_len` is the whole frame (>= avail; an
// avail above frame_len is cut to it). A header not wholly inside the first
// `avail` bytes, or not inside its enclosing IP/UDP datagram, is reported as
// that layer's *_truncated. Lengths the headers announce (IPv4 total length,
// IPv6 payload length) are checked against frame_len; when the frame is
// shorter than announced, a cut inner header is reported first (udp_truncated,
// bth_truncated, ...), otherwise ipv4_bad_total_length / ipv6_bad_payload_length.
// Frames longer than 65535 bytes are parsed as if cut there (offsets are 16-bit).
//
// IPv4 and IPv6 later fragments (offset != 0) stop at L3 (is_later_fragment);
// first fragments have their UDP header parsed, without the UDP length check.
// ESP (50) and no-next-header (59) end IPv6 parsing with result ok.
// RoCEv1: BTH parsed when the GRH next header is 0x1B; ip_version stays 0;
// ip_end is the GRH payload length end, cut to frame_len.
#pragma once

#include <cstdint>

#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

ParseResult parse_frame(const uint8_t* data, uint32_t avail, uint32_t frame_len, ParsedPacket& out);

// The X-macro's name ("ipv4_truncated") and help text for a result.
const char* parse_result_name(ParseResult r);
const char* parse_result_help(ParseResult r);

}  // namespace rocelb
