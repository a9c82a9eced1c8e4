// Renders a ScenarioParams into RoCEv2 frames, in time order, one stream per
// switch port, and writes them as pcaps (D/port<N>.pcap).
//
// Each copy of a flow sends `messages` messages of `message` bytes cut into
// packets of `mtu` payload bytes: RC RDMA WRITE FIRST (with RETH) / MIDDLE /
// LAST, or WRITE ONLY (with RETH) for a one-packet message; SEND likewise
// without RETH. PSNs run on across messages (24-bit wrap); the last packet of
// every message asks for an ACK. A packet starts when the previous one of the
// same copy has left the sending host's wire: a frame of B captured bytes
// takes (B + 20) × 8 / rate seconds; `gap` is added after each message but
// the last. Times are kept exactly (as ns × bit/s) and rounded down to whole
// nanoseconds only for the timestamp, so spacing never drifts. Frames of all
// flows entering one port are merged by time; ties go to the earlier flow,
// then the lower copy. RETH: VA = 0x100000000 + message index × message size,
// R_Key = the copy's dest QP, DMA length = message size. IPv4 frames carry no
// UDP checksum (as RoCE NICs send them); every frame carries its ICRC.
// READ Requests (op read_request) are one packet per message with a RETH and
// no payload; READ Responses carry the message like a WRITE, the first and
// last (or only) with an AETH (MSN = message index + 1); neither asks for an
// ACK. A `vlan` or `pcp` puts one 802.1Q tag in front.
//
// PFC sources (ScenarioParams::pfc) add the same 60-byte PFC frame
// (pfc_frame_spec(), the switch's own layout) every interval from start;
// they merge with the flows of their port by time, after all flows on a tie.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/wire/packet_builder.h"
#include "tools/gen/scenario.h"

namespace rocelb {

inline constexpr uint64_t kRethBaseVa = 0x100000000ull;

struct GenPacket {
  uint64_t t_ns = 0;   // since t=0 of the scenario
  uint64_t ts_ns = 0;  // pcap timestamp: base_time + t_ns
  uint16_t port = 0;   // the switch port it enters
  uint32_t flow = 0;   // index in ScenarioParams::flows; flows.size() + i for pfc[i]
  uint32_t copy = 0;
  uint64_t seq = 0;  // packet index within its flow copy
  std::vector<uint8_t> frame;
};

// The frame of packet `seq` of copy `copy` of a flow.
FrameSpec flow_frame_spec(const FlowParams& f, uint32_t copy, uint64_t seq);

// Wire time numerator: bits of a frame of `bytes` captured bytes, preamble
// and inter-frame gap included.
inline constexpr uint64_t wire_bits(uint64_t bytes) {
  return (bytes + 20) * 8;
}

// The frames entering one port, in time order.
class PortGenerator {
 public:
  PortGenerator(const ScenarioParams& sc, uint16_t port);

  // The next frame; false when the port has no more. out.frame's capacity is
  // reused.
  bool next(GenPacket& out);

 private:
  struct Stream {
    uint32_t flow = 0;
    uint32_t copy = 0;
    uint64_t seq = 0;              // index of the packet in `frame`
    uint64_t rate = 1;             // the flow's bit/s; 1 for a PFC source
    unsigned __int128 scaled = 0;  // its start time × rate (ns·bit/s)
    uint64_t t_ns = 0;             // scaled / rate
    FrameSpec spec;
    std::vector<uint8_t> frame;
  };
  // Builds stream s's packet s.seq (false past its last packet).
  bool load(Stream& s);
  bool later(size_t a, size_t b) const;  // heap order: a after b

  const ScenarioParams& sc_;
  uint16_t port_;
  std::vector<Stream> streams_;
  std::vector<size_t> heap_;  // stream indices, min-heap by (t_ns, flow, copy)
};

// Every frame entering `port`, in order (for tests and small scenarios).
std::vector<GenPacket> generate_port(const ScenarioParams& sc, uint16_t port);

struct PortSummary {
  uint16_t port = 0;
  std::string path;
  uint64_t packets = 0;
  uint64_t bytes = 0;  // captured bytes (no FCS)
  uint64_t first_ts_ns = 0;
  uint64_t last_ts_ns = 0;
};

// Writes out_dir/port<N>.pcap for every port with traffic (creating out_dir
// when missing). Throws PcapError (or std::filesystem::filesystem_error) on
// I/O failure.
std::vector<PortSummary> write_port_pcaps(const ScenarioParams& sc, const std::string& out_dir);

}  // namespace rocelb
