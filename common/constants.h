// The few numbers every part of rocelb agrees on: how many ports and traffic
// classes a switch has, what a frame costs on the wire beyond its captured
// bytes, and the ECN codepoints. lb/, pfc/, control/ and dataplane/ include
// this header; none of them reaches into another for these.
// Header only, pure C++, no knobs, no counters.
#pragma once

#include <cstdint>

namespace rocelb {

// Port ids are 0..kMaxPorts-1 (a radix-256 switch: 51.2 Tb/s as 256 ports
// of 200G). What a switch holds per port is sized by its highest port id,
// not by this bound (Dataplane::port_slots).
inline constexpr int kMaxPorts = 256;
// Traffic classes per port. rocelb maps classes and PFC priorities one to
// one, so this is also the number of 802.1Qbb priorities.
inline constexpr int kNumTrafficClasses = 8;
inline constexpr int kPfcPriorities = kNumTrafficClasses;

// Bytes a frame holds the wire beyond its captured length (no FCS): FCS is
// counted in neither; 8 bytes of preamble and start delimiter plus the
// 12-byte inter-frame gap are.
inline constexpr uint32_t kWireOverheadBytes = 20;
// What a frame of `len` captured bytes holds a wire for, in bytes.
// Ethernet (the default): len + 20. ns3() is how ConWeave's and HPCC's ns-3
// count a packet: no preamble or gap, and 36 bytes of headers where a RoCEv2
// frame has 58 (PPP 2 + IPv4 20 + UDP 8 + seq/pg 6 against Ethernet 14 +
// IPv4 20 + UDP 8 + BTH 12 + ICRC 4), the smallest packet 48 bytes (their
// ACK, rdma-hw.cc:357): max(len - 22, 48). The fabric's `nic.framing`.
struct WireFraming {
  int32_t add = kWireOverheadBytes;
  uint32_t min = 0;
  static constexpr WireFraming ns3() { return WireFraming{-22, 48}; }
  constexpr uint32_t bytes(uint32_t len) const {
    const int64_t b = int64_t{len} + add;
    return b < int64_t{min} ? min : static_cast<uint32_t>(b);
  }
  constexpr bool operator==(const WireFraming&) const = default;
};
// Bits per byte × picoseconds per second: a byte's wire time at `bps` is
// kPsBits / bps picoseconds.
inline constexpr uint64_t kPsBits = 8 * 1'000'000'000'000ull;
// That time when it is a whole number (every Ethernet speed: 100G is 80 ps),
// so a multiply gives what the division would; else (or bps 0) 0.
constexpr uint64_t exact_ps_per_byte(uint64_t bps) {
  return bps != 0 && kPsBits % bps == 0 ? kPsBits / bps : 0;
}

// ECN codepoints (RFC 3168): the two low bits of the IPv4 TOS byte and of
// the IPv6 traffic class.
inline constexpr uint8_t kEcnNotEct = 0;
inline constexpr uint8_t kEcnEct1 = 1;
inline constexpr uint8_t kEcnEct0 = 2;
inline constexpr uint8_t kEcnCe = 3;

}  // namespace rocelb
