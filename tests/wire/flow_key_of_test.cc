// flow_key_of: the 5-tuple and destination QP of a RoCEv2 packet, and of
// the same packet carrying ConWeave's header, whose key is the packet's own
// with the path mixed into the source port (so a reroute moves it above
// the source ToR too).
#include <gtest/gtest.h>

#include <vector>

#include "dataplane/wire/conweave_shim.h"
#include "dataplane/wire/flow_key_of.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"

namespace rocelb {
namespace {

FlowKey key_of(const std::vector<uint8_t>& f) {
  ParsedPacket p;
  EXPECT_EQ(
      parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), p),
      ParseResult::ok);
  FlowKey k;
  flow_key_of(p, f.data(), static_cast<uint32_t>(f.size()), k);
  return k;
}

// The frame with ConWeave's header after its IPv4 header.
std::vector<uint8_t> marked(std::vector<uint8_t> f, uint8_t path) {
  ConWeaveShim s;
  s.kind = ConWeaveKind::kData;
  s.path = path;
  s.epoch = 3;
  uint8_t shim[kConWeaveShimLen];
  write_conweave_shim(shim, s);
  f.insert(f.begin() + 34, shim, shim + kConWeaveShimLen);
  uint8_t* ip = f.data() + 14;
  ip[kIpv4ProtoOffset] = kIpProtoConWeave;
  store_be16(ip + kIpv4TotalLenOffset,
             static_cast<uint16_t>(load_be16(ip + kIpv4TotalLenOffset) + kConWeaveShimLen));
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, 20));
  return f;
}

TEST(FlowKeyOf, MarkedPacketKeepsItsFlowAndMixesInThePath) {
  FrameSpec spec;
  spec.sport = 50000;
  spec.dest_qp = 0xabcdef;
  spec.payload_len = 64;
  const std::vector<uint8_t> plain = build_frame(spec);
  const FlowKey a = key_of(plain);
  EXPECT_EQ(a.proto, 17);
  EXPECT_EQ(a.sport, 50000);
  EXPECT_EQ(a.dport, kRoceV2UdpPort);
  EXPECT_EQ(a.dest_qp, 0xabcdefu);

  const FlowKey m0 = key_of(marked(plain, 0));
  EXPECT_EQ(m0.proto, 17);
  EXPECT_EQ(m0.sport, 50000);  // path 0 mixes in nothing
  EXPECT_EQ(m0.dport, kRoceV2UdpPort);
  EXPECT_EQ(m0.dest_qp, 0xabcdefu);
  EXPECT_EQ(0, std::memcmp(m0.src_ip, a.src_ip, 16));
  EXPECT_EQ(0, std::memcmp(m0.dst_ip, a.dst_ip, 16));
  const FlowKey m2 = key_of(marked(plain, 2));
  EXPECT_EQ(m2.sport, 50000 ^ 0x0202);
  EXPECT_EQ(m2.dport, kRoceV2UdpPort);

  // Too short to hold the UDP ports behind the header: addresses only.
  std::vector<uint8_t> cut = marked(plain, 2);
  cut.resize(14 + 20 + 16 + 2);
  store_be16(cut.data() + 14 + kIpv4TotalLenOffset, 20 + 16 + 2);
  store_be16(cut.data() + 14 + kIpv4ChecksumOffset, 0);
  store_be16(cut.data() + 14 + kIpv4ChecksumOffset, ipv4_header_checksum(cut.data() + 14, 20));
  const FlowKey c = key_of(cut);
  EXPECT_EQ(c.proto, kIpProtoConWeave);
  EXPECT_EQ(c.sport, 0);
}

}  // namespace
}  // namespace rocelb
