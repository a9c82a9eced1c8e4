#include "tools/gen/generator.h"

#include <algorithm>
#include <filesystem>

#include "dataplane/wire/pcap_file.h"

namespace rocelb {
namespace {

using u128 = unsigned __int128;
constexpr uint64_t kNsPerSecond = 1'000'000'000ull;

// The parts of a copy's frames that do not change from packet to packet.
FrameSpec copy_spec(const FlowParams& f, uint32_t copy) {
  FrameSpec s;
  s.dst_mac = f.dst_mac.b;
  s.src_mac = f.src_mac.b;
  if (f.pcp || f.vlan)
    s.vlans.push_back(VlanTag{kEthertypeVlan, f.pcp.value_or(0), false, f.vlan.value_or(0)});
  s.payload = f.src.is_v4() ? FramePayload::kIpv4 : FramePayload::kIpv6;
  s.src_ip = f.src.b;
  s.dst_ip = f.dst.b;
  s.dscp = f.dscp;
  s.ecn = f.ecn;
  s.sport = static_cast<uint16_t>(f.sport + copy);
  s.dport = kRoceV2UdpPort;
  s.udp_checksum = false;
  s.dest_qp = f.dest_qp + copy;
  s.reth_rkey = s.dest_qp;
  s.icrc = true;
  return s;
}

// Sets the fields of packet `seq` on a spec made by copy_spec().
void set_packet(const FlowParams& f, uint64_t seq, FrameSpec& s) {
  const uint64_t per_msg = f.packets_per_message();
  const uint64_t msg = seq / per_msg;
  const uint64_t i = seq % per_msg;
  const bool first = i == 0;
  const bool last = i + 1 == per_msg;
  // Opcodes of ONLY, FIRST, MIDDLE, LAST by operation.
  static constexpr uint8_t kOps[][4] = {
      {kRoceOpRcWriteOnly, kRoceOpRcWriteFirst, kRoceOpRcWriteMiddle, kRoceOpRcWriteLast},
      {kRoceOpRcSendOnly, kRoceOpRcSendFirst, kRoceOpRcSendMiddle, kRoceOpRcSendLast},
      {kRoceOpRcReadRequest, kRoceOpRcReadRequest, kRoceOpRcReadRequest, kRoceOpRcReadRequest},
      {kRoceOpRcReadResponseOnly, kRoceOpRcReadResponseFirst, kRoceOpRcReadResponseMiddle,
       kRoceOpRcReadResponseLast}};
  const uint8_t* ops = kOps[static_cast<size_t>(f.op)];
  s.opcode = first && last ? ops[0] : first ? ops[1] : last ? ops[3] : ops[2];
  const bool request = f.op == RoceOp::kReadRequest;
  s.payload_len = request ? 0 : static_cast<uint32_t>(last ? f.message_bytes - i * f.mtu : f.mtu);
  s.psn = static_cast<uint32_t>((f.psn + seq) & 0xffffff);
  // Requests of a WRITE or SEND ask for an ACK at the end; READ Requests are
  // answered by their responses, which ask for nothing.
  s.ack_req = last && (f.op == RoceOp::kWrite || f.op == RoceOp::kSend);
  s.aeth_msn = static_cast<uint32_t>((msg + 1) & 0xffffff);
  s.reth_va = kRethBaseVa + msg * f.message_bytes;
  s.reth_dma_len = static_cast<uint32_t>(f.message_bytes);
}

}  // namespace

FrameSpec flow_frame_spec(const FlowParams& f, uint32_t copy, uint64_t seq) {
  FrameSpec s = copy_spec(f, copy);
  set_packet(f, seq, s);
  return s;
}

PortGenerator::PortGenerator(const ScenarioParams& sc, uint16_t port) : sc_(sc), port_(port) {
  for (size_t fi = 0; fi < sc.flows.size(); ++fi) {
    const FlowParams& f = sc.flows[fi];
    if (f.in_port != port) continue;
    for (uint32_t c = 0; c < f.copies; ++c) {
      Stream s;
      s.flow = static_cast<uint32_t>(fi);
      s.copy = c;
      s.rate = f.rate_bps;
      s.scaled = u128(f.start_ns) * f.rate_bps;
      s.spec = copy_spec(f, c);
      streams_.push_back(std::move(s));
    }
  }
  for (size_t pi = 0; pi < sc.pfc.size(); ++pi) {
    const PfcSourceParams& p = sc.pfc[pi];
    if (p.in_port != port) continue;
    Stream s;
    s.flow = static_cast<uint32_t>(sc.flows.size() + pi);
    s.rate = 1;  // times kept in plain ns
    s.scaled = p.start_ns;
    std::array<uint16_t, 8> quanta{};
    for (size_t prio = 0; prio < quanta.size(); ++prio)
      if (p.class_enable & (1u << prio)) quanta[prio] = p.quanta;
    s.spec = pfc_frame_spec(p.src_mac.b, p.class_enable, quanta);
    streams_.push_back(std::move(s));
  }
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (!load(streams_[i])) continue;
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return later(a, b); });
  }
}

bool PortGenerator::load(Stream& s) {
  if (s.flow >= sc_.flows.size()) {
    if (s.seq >= sc_.pfc[s.flow - sc_.flows.size()].count) return false;
    if (s.seq == 0) build_frame(s.spec, s.frame);  // every frame the same
  } else {
    const FlowParams& f = sc_.flows[s.flow];
    if (s.seq >= f.packets()) return false;
    set_packet(f, s.seq, s.spec);
    build_frame(s.spec, s.frame);
  }
  s.t_ns = static_cast<uint64_t>(s.scaled / s.rate);
  return true;
}

bool PortGenerator::later(size_t a, size_t b) const {
  const Stream& x = streams_[a];
  const Stream& y = streams_[b];
  if (x.t_ns != y.t_ns) return x.t_ns > y.t_ns;
  if (x.flow != y.flow) return x.flow > y.flow;
  return x.copy > y.copy;
}

bool PortGenerator::next(GenPacket& out) {
  if (heap_.empty()) return false;
  auto cmp = [this](size_t a, size_t b) { return later(a, b); };
  std::pop_heap(heap_.begin(), heap_.end(), cmp);
  size_t idx = heap_.back();
  heap_.pop_back();
  Stream& s = streams_[idx];

  out.t_ns = s.t_ns;
  out.ts_ns = sc_.base_time_ns + s.t_ns;
  out.port = port_;
  out.flow = s.flow;
  out.copy = s.copy;
  out.seq = s.seq;
  if (s.flow >= sc_.flows.size()) {
    // PFC: the same frame every interval.
    out.frame = s.frame;
    s.scaled += sc_.pfc[s.flow - sc_.flows.size()].interval_ns;
  } else {
    const FlowParams& f = sc_.flows[s.flow];
    out.frame.swap(s.frame);
    // The next packet starts when this one has left the wire (plus the gap
    // after a message).
    s.scaled += u128(wire_bits(out.frame.size())) * kNsPerSecond;
    if ((s.seq + 1) % f.packets_per_message() == 0) s.scaled += u128(f.gap_ns) * f.rate_bps;
  }
  ++s.seq;
  if (load(s)) {
    heap_.push_back(idx);
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  }
  return true;
}

std::vector<GenPacket> generate_port(const ScenarioParams& sc, uint16_t port) {
  std::vector<GenPacket> out;
  PortGenerator gen(sc, port);
  GenPacket p;
  while (gen.next(p)) out.push_back(p);
  return out;
}

std::vector<PortSummary> write_port_pcaps(const ScenarioParams& sc, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  std::vector<PortSummary> result;
  GenPacket p;
  for (uint16_t port : sc.ports()) {
    PortSummary sum;
    sum.port = port;
    sum.path =
        (std::filesystem::path(out_dir) / ("port" + std::to_string(port) + ".pcap")).string();
    PcapWriter w(sum.path);
    PortGenerator gen(sc, port);
    while (gen.next(p)) {
      w.write(p.ts_ns, p.frame.data(), static_cast<uint32_t>(p.frame.size()));
      if (sum.packets == 0) sum.first_ts_ns = p.ts_ns;
      sum.last_ts_ns = p.ts_ns;
      ++sum.packets;
      sum.bytes += p.frame.size();
    }
    w.close();
    result.push_back(sum);
  }
  return result;
}

}  // namespace rocelb
