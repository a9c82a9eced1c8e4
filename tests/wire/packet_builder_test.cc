// packet_builder: layouts, lengths and padding; checksums and the ICRC checked
// with independent, deliberately simple implementations written here; one
// frame compared byte for byte with a frame built by scapy.
#include "dataplane/wire/packet_builder.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/ipv6.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/udp.h"

namespace rocelb {
namespace {

using Bytes = std::vector<uint8_t>;

// --- independent references ------------------------------------------------

// One's-complement sum of 16-bit words, the textbook way.
uint32_t ref_sum(const uint8_t* p, size_t n, uint32_t s = 0) {
  for (size_t i = 0; i < n; i += 2) {
    s += static_cast<uint32_t>(p[i]) << 8;
    if (i + 1 < n) s += p[i + 1];
  }
  return s;
}
uint16_t ref_fold(uint32_t s) {
  while (s > 0xffff) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}

// CRC-32 one bit at a time (reflected polynomial 0xEDB88320).
uint32_t ref_crc32(const Bytes& data) {
  uint32_t crc = 0xffffffff;
  for (uint8_t b : data) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

// The ICRC of a frame whose L3 header starts at l3 and whose BTH is at bth:
// copy, mask, prepend eight 0xff bytes, CRC, compare with the last 4 bytes.
uint32_t ref_icrc(const Bytes& f, size_t l3, size_t bth, int kind /*4, 6, 1=GRH*/) {
  Bytes m(f.begin() + l3, f.end() - 4);
  size_t b = bth - l3;
  if (kind == 4) {
    m[1] = 0xff;           // TOS
    m[8] = 0xff;           // TTL
    m[10] = m[11] = 0xff;  // header checksum
  } else {
    m[0] |= 0x0f;               // traffic class
    m[1] = m[2] = m[3] = 0xff;  // traffic class, flow label
    m[7] = 0xff;                // hop limit
  }
  if (kind != 1) m[b - 2] = m[b - 1] = 0xff;  // UDP checksum
  m[b + 4] = 0xff;                            // BTH resv8a
  Bytes all(8, 0xff);
  all.insert(all.end(), m.begin(), m.end());
  return ref_crc32(all);
}

uint32_t stored_icrc(const Bytes& f) {
  return load_le32(f.data() + f.size() - 4);
}

// --- checks ----------------------------------------------------------------

TEST(PacketBuilder, MatchesScapyFrame) {
  // scapy: Ether(dst='02:00:00:00:00:02', src='02:00:00:00:00:01')/
  //   IP(src='10.0.0.1', dst='10.0.0.2', ttl=64, flags='DF', id=0, tos=0x6a)/
  //   UDP(sport=49152, dport=4791, chksum=0)/
  //   BTH(opcode=4, dqpn=0x11, psn=0x100, pkey=0xffff, ackreq=1)/Raw(bytes(range(8)))
  // (scapy.contrib.roce computes the ICRC itself.)
  const Bytes want = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
                      0x01, 0x08, 0x00, 0x45, 0x6a, 0x00, 0x34, 0x00, 0x00, 0x40, 0x00,
                      0x40, 0x11, 0x26, 0x4d, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00,
                      0x02, 0xc0, 0x00, 0x12, 0xb7, 0x00, 0x20, 0x00, 0x00, 0x04, 0x00,
                      0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x01, 0x00, 0x00,
                      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xa4, 0xbe, 0xab, 0xdb};
  FrameSpec s;
  s.dscp = 26;
  s.ecn = 2;
  s.psn = 0x100;
  s.ack_req = true;
  s.payload_len = 8;
  EXPECT_EQ(build_frame(s), want);
  EXPECT_EQ(build_rocev2(0x0a000001, 0x0a000002, 49152, 0x11, 0x100, kRoceOpRcSendOnly, 8).size(),
            want.size());
}

TEST(PacketBuilder, Ipv4RoceLayoutAndChecksums) {
  FrameSpec s;
  s.vlans = {{kEthertypeQinQ, 6, true, 300}, {kEthertypeVlan, 2, false, 4095}};
  s.ipv4_options = {0x94, 0x04, 0x00, 0x00, 0x01};  // padded to 8
  s.ttl = 17;
  s.ip_id = 0xbeef;
  s.dscp = 24;
  s.ecn = 1;
  s.payload_len = 1021;  // pad 3
  s.udp_checksum = true;
  s.opcode = kRoceOpRcWriteFirst;
  s.reth_va = 0x0102030405060708;
  s.reth_rkey = 0xa0b0c0d0;
  Bytes f = build_frame(s);
  // Tags.
  EXPECT_EQ(load_be16(&f[12]), 0x88a8);
  EXPECT_EQ(load_be16(&f[14]), (6u << 13) | (1u << 12) | 300u);
  EXPECT_EQ(load_be16(&f[16]), 0x8100);
  EXPECT_EQ(load_be16(&f[18]), (2u << 13) | 4095u);
  EXPECT_EQ(load_be16(&f[20]), 0x0800);
  // IPv4 header at 22, 28 bytes.
  const uint8_t* ip = &f[22];
  EXPECT_EQ(ip[0], 0x47);
  EXPECT_EQ(ip[1], 24 << 2 | 1);
  uint32_t l4 = 8 + 12 + 16 + 1021 + 3 + 4;
  EXPECT_EQ(load_be16(ip + 2), 28 + l4);
  EXPECT_EQ(load_be16(ip + 4), 0xbeef);
  EXPECT_EQ(load_be16(ip + 6), 0x4000);
  EXPECT_EQ(ip[8], 17);
  EXPECT_EQ(ip[9], 17);
  EXPECT_EQ(ip[24], 0x01);
  EXPECT_EQ(ip[25], 0x00);  // padding
  EXPECT_EQ(ref_fold(ref_sum(ip, 28)), 0xffff);
  EXPECT_TRUE(ipv4_checksum_ok(ip));
  EXPECT_EQ(f.size(), 22 + 28 + l4);
  // UDP at 50.
  const uint8_t* u = &f[50];
  EXPECT_EQ(load_be16(u), 49152);
  EXPECT_EQ(load_be16(u + 2), 4791);
  EXPECT_EQ(load_be16(u + 4), l4);
  uint32_t ps = ref_sum(ip + 12, 8);
  ps += 17 + l4;
  EXPECT_EQ(ref_fold(ref_sum(u, l4, ps)), 0xffff);
  // BTH at 58, RETH at 70, payload at 86.
  EXPECT_EQ(f[58], kRoceOpRcWriteFirst);
  EXPECT_EQ(f[59], 3 << 4);  // pad count
  EXPECT_EQ(load_be64(&f[70]), 0x0102030405060708u);
  EXPECT_EQ(load_be32(&f[78]), 0xa0b0c0d0u);
  EXPECT_EQ(load_be32(&f[82]), 1021u);  // DMA length defaults to the payload
  EXPECT_EQ(f[86], 0);
  EXPECT_EQ(f[86 + 255], 255);
  EXPECT_EQ(f[86 + 1021], 0);  // pad
  EXPECT_EQ(stored_icrc(f), ref_icrc(f, 22, 58, 4));
}

TEST(PacketBuilder, Ipv4UdpChecksumOffByDefault) {
  Bytes f = build_frame(FrameSpec{});
  EXPECT_EQ(load_be16(&f[40]), 0);
  EXPECT_EQ(f.size(), 60u);  // 58 padded
  EXPECT_EQ(f[58], 0);
  EXPECT_EQ(stored_icrc(Bytes(f.begin(), f.begin() + 58)),
            ref_icrc(Bytes(f.begin(), f.begin() + 58), 14, 42, 4));
}

TEST(PacketBuilder, Ipv6RoceWithExtensions) {
  FrameSpec s;
  s.payload = FramePayload::kIpv6;
  s.src_ip = ipv6_bytes({0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10});
  s.dst_ip = ipv6_bytes({0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x20});
  s.dscp = 26;
  s.ecn = 2;
  s.flow_label = 0xfedcb;
  s.ttl = 5;
  s.ipv6_ext = {{kIpv6ExtHopByHop, 8},
                {kIpv6ExtRouting, 16},
                {kIpv6ExtAh, 24},
                {kIpv6ExtFragment, 8, 0x1fff, true},
                {kIpv6ExtDestOptions, 272}};
  s.opcode = kRoceOpRcAck;
  s.aeth_syndrome = 0x1f;
  s.aeth_msn = 0x123456;
  s.payload_len = 0;
  Bytes f = build_frame(s);
  const uint8_t* ip = &f[14];
  EXPECT_EQ(load_be32(ip), 0x60000000u | (uint32_t{26 << 2 | 2} << 20) | 0xfedcb);
  uint32_t ext = 8 + 16 + 24 + 8 + 272;
  uint32_t l4 = 8 + 12 + 4 + 4;
  EXPECT_EQ(load_be16(ip + 4), ext + l4);
  EXPECT_EQ(ip[6], 0);
  EXPECT_EQ(ip[7], 5);
  // Chain: HBH -> routing -> AH -> fragment -> dest options -> UDP.
  const uint8_t* e = ip + 40;
  EXPECT_EQ(e[0], 43);
  EXPECT_EQ(e[1], 0);
  EXPECT_EQ(e[2], 1);  // PadN
  EXPECT_EQ(e[3], 4);
  e += 8;
  EXPECT_EQ(e[0], 51);
  EXPECT_EQ(e[1], 1);
  EXPECT_EQ(e[3], 0);  // segments left
  e += 16;
  EXPECT_EQ(e[0], 44);
  EXPECT_EQ(e[1], 4);  // 24 / 4 - 2
  e += 24;
  EXPECT_EQ(e[0], 60);
  EXPECT_EQ(load_be16(e + 2), 0xfff9);
  e += 8;
  EXPECT_EQ(e[0], 17);
  EXPECT_EQ(e[1], 33);
  // 270 option bytes: one 257-byte option, then PadN of 13 (not > 7 bytes:
  // two options).
  uint32_t walked = 2;
  while (walked < 272) {
    ASSERT_NE(e[walked], 0) << "no Pad1 expected here";
    walked += 2u + e[walked + 1];
  }
  EXPECT_EQ(walked, 272u);
  const uint8_t* u = ip + 40 + ext;
  EXPECT_EQ(load_be16(u + 4), l4);
  uint32_t ps = ref_sum(ip + 8, 32);
  ps += 17 + l4;
  EXPECT_EQ(ref_fold(ref_sum(u, l4, ps)), 0xffff);
  EXPECT_NE(load_be16(u + 6), 0);
  // AETH right after the BTH.
  EXPECT_EQ(u[8 + 12], 0x1f);
  EXPECT_EQ(load_be24(u + 8 + 13), 0x123456u);
  EXPECT_EQ(stored_icrc(f), ref_icrc(f, 14, 14 + 40 + ext + 8, 6));
}

TEST(PacketBuilder, Ipv6UdpChecksumAlwaysComputed) {
  FrameSpec s;
  s.payload = FramePayload::kIpv6;
  s.dport = 1234;
  s.payload_len = 7;  // odd
  Bytes f = build_frame(s);
  const uint8_t* ip = &f[14];
  const uint8_t* u = ip + 40;
  uint32_t ps = ref_sum(ip + 8, 32) + 17 + 15;
  EXPECT_EQ(ref_fold(ref_sum(u, 15, ps)), 0xffff);
  EXPECT_EQ(f.size(), 14 + 40 + 15u);
}

TEST(PacketBuilder, RoceV1) {
  FrameSpec s;
  s.payload = FramePayload::kRoceV1;
  s.src_ip = ipv6_bytes({0xfe80, 0, 0, 0, 0x0200, 0, 0, 1});
  s.dst_ip = ipv6_bytes({0xfe80, 0, 0, 0, 0x0200, 0, 0, 2});
  s.dscp = 3;
  s.ecn = 1;
  s.flow_label = 7;
  s.ttl = 1;
  s.opcode = kRoceOpUdSendOnlyImm;
  s.deth_qkey = 0x80010000;
  s.deth_src_qp = 0xabcdef;
  s.imm_data = 0xcafef00d;
  s.payload_len = 256;
  Bytes f = build_frame(s);
  EXPECT_EQ(load_be16(&f[12]), 0x8915);
  const uint8_t* g = &f[14];
  EXPECT_EQ(load_be32(g), 0x60000000u | (uint32_t{3 << 2 | 1} << 20) | 7);
  uint32_t pay = 12 + 8 + 4 + 256 + 0 + 4;
  EXPECT_EQ(load_be16(g + 4), pay);
  EXPECT_EQ(g[6], 0x1b);
  EXPECT_EQ(g[7], 1);
  EXPECT_EQ(f.size(), 14 + 40 + pay);
  const uint8_t* b = g + 40;
  EXPECT_EQ(b[0], 0x65);
  EXPECT_EQ(load_be32(b + 12), 0x80010000u);  // DETH
  EXPECT_EQ(load_be24(b + 17), 0xabcdefu);
  EXPECT_EQ(load_be32(b + 20), 0xcafef00du);  // ImmDt
  EXPECT_EQ(stored_icrc(f), ref_icrc(f, 14, 54, 1));
}

TEST(PacketBuilder, IcrcCanBeLeftOut) {
  FrameSpec s;
  s.payload_len = 100;
  s.icrc = false;
  Bytes f = build_frame(s);
  EXPECT_EQ(f.size(), 14 + 20 + 8 + 12 + 100u);
}

TEST(PacketBuilder, CnpHasZeroReservedBytes) {
  FrameSpec s;
  s.opcode = kRoceOpCnp;
  s.payload_len = kCnpPayloadLen;
  Bytes f = build_frame(s);
  ASSERT_EQ(f.size(), 14 + 20 + 8 + 12 + 16 + 4u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(f[54 + i], 0);
  EXPECT_EQ(stored_icrc(f), ref_icrc(f, 14, 42, 4));
}

TEST(PacketBuilder, ArpAndRaw) {
  FrameSpec s;
  s.payload = FramePayload::kArp;
  s.arp_op = 2;
  s.arp_sha = {1, 2, 3, 4, 5, 6};
  s.arp_spa = 0xc0a80001;
  s.arp_tha = {7, 8, 9, 10, 11, 12};
  s.arp_tpa = 0xc0a80002;
  Bytes f = build_frame(s);
  const Bytes want_arp = {0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x02, 1,  2,  3,   4,   5, 6,
                          192,  168,  0,    1,    7, 8, 9,    10,   11, 12, 192, 168, 0, 2};
  EXPECT_EQ(Bytes(f.begin() + 14, f.begin() + 42), want_arp);
  EXPECT_EQ(f.size(), 60u);
  s.payload = FramePayload::kRaw;
  s.ethertype = 0x1234;
  s.payload_len = 100;
  f = build_frame(s);
  EXPECT_EQ(load_be16(&f[12]), 0x1234);
  EXPECT_EQ(f.size(), 114u);
  EXPECT_EQ(f[14 + 99], 99);
}

TEST(PacketBuilder, PfcAndPause) {
  Bytes f = build_frame(pfc_frame_spec({0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, 0x09,
                                       {0xffff, 0, 0, 0x0100, 0, 0, 0, 0}));
  Bytes want = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55,
                0x88, 0x08, 0x01, 0x01, 0x00, 0x09, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  want.resize(60, 0);
  EXPECT_EQ(f, want);
  f = build_frame(pause_frame_spec({0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, 0xabcd));
  ASSERT_EQ(f.size(), 60u);
  EXPECT_EQ(load_be16(&f[14]), 0x0001);
  EXPECT_EQ(load_be16(&f[16]), 0xabcd);
  EXPECT_EQ(f[18], 0);
}

TEST(PacketBuilder, ReusesTheOutputVector) {
  Bytes out;
  FrameSpec s;
  s.payload_len = 1000;
  build_frame(s, out);
  const uint8_t* p = out.data();
  s.payload_len = 10;
  build_frame(s, out);
  EXPECT_EQ(out.data(), p);
  EXPECT_EQ(out.size(), 14 + 20 + 8 + 12 + 10 + 2 + 4u);
}

TEST(PacketBuilder, RejectsImpossibleSpecs) {
  auto bad = [](auto mutate) {
    FrameSpec s;
    mutate(s);
    EXPECT_THROW(build_frame(s), std::invalid_argument);
  };
  bad([](FrameSpec& s) { s.dscp = 64; });
  bad([](FrameSpec& s) { s.ecn = 4; });
  bad([](FrameSpec& s) { s.dest_qp = 1u << 24; });
  bad([](FrameSpec& s) { s.psn = 1u << 24; });
  bad([](FrameSpec& s) { s.pad = 4; });
  bad([](FrameSpec& s) { s.ipv4_options.assign(41, 1); });
  bad([](FrameSpec& s) { s.payload_len = 65536; });
  bad([](FrameSpec& s) { s.vlans = {{kEthertypeVlan, 8, false, 1}}; });
  bad([](FrameSpec& s) { s.vlans = {{kEthertypeVlan, 0, false, 4096}}; });
  bad([](FrameSpec& s) {
    s.payload = FramePayload::kIpv6;
    s.ipv6_ext = {{kIpv6ExtHopByHop, 12}};
  });
  bad([](FrameSpec& s) {
    s.payload = FramePayload::kIpv6;
    s.ipv6_ext = {{kIpv6ExtFragment, 16}};
  });
  bad([](FrameSpec& s) {
    s.payload = FramePayload::kIpv6;
    s.ipv6_ext = {{kIpv6ExtAh, 8}};
  });
  bad([](FrameSpec& s) {
    s.payload = FramePayload::kIpv6;
    s.ipv6_ext = {{6, 8}};
  });
  bad([](FrameSpec& s) {
    s.payload = FramePayload::kIpv6;
    s.flow_label = 1u << 20;
  });
  try {
    FrameSpec s;
    s.payload = FramePayload::kIpv6;
    s.ipv6_ext = {{kIpv6ExtHopByHop, 8}, {kIpv6ExtRouting, 9}};
    build_frame(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "FrameSpec.ipv6_ext[1].length: a multiple of 8 from 8 to 2048");
  }
}

// --- wire helpers ----------------------------------------------------------

TEST(Wire, ByteOrder) {
  uint8_t b[8];
  store_be32(b, 0x01020304);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(b[3], 4);
  EXPECT_EQ(load_le32(b), 0x04030201u);
  store_le16(b + 4, 0xa1b2);
  EXPECT_EQ(load_be16(b + 4), 0xb2a1);
  store_be24(b + 1, 0xabcdef);
  EXPECT_EQ(load_be24(b + 1), 0xabcdefu);
  store_be64(b, 0x1122334455667788);
  EXPECT_EQ(load_be64(b), 0x1122334455667788u);
}

TEST(Wire, Crc32) {
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(crc32(check, 9), 0xcbf43926u);  // the standard check value
  // Every length 0..300 against the bitwise reference, fed in two pieces.
  Bytes data(300);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t n = 0; n <= data.size(); ++n) {
    Bytes part(data.begin(), data.begin() + n);
    uint32_t c = crc32_update(kCrc32Init, data.data(), n / 3);
    c = ~crc32_update(c, data.data() + n / 3, n - n / 3);
    EXPECT_EQ(c, ref_crc32(part)) << n;
  }
}

TEST(Wire, Ipv4IncrementalChecksum) {
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1103515245 + 12345;
    return static_cast<uint8_t>(seed >> 16);
  };
  for (int iter = 0; iter < 2000; ++iter) {
    uint8_t h[20];
    for (uint8_t& b : h) b = rnd();
    h[0] = 0x45;
    h[8] = static_cast<uint8_t>(rnd() | 1);  // TTL > 0
    store_be16(h + 10, ipv4_header_checksum(h, 20));
    ASSERT_TRUE(ipv4_checksum_ok(h));
    ipv4_set_ecn(h, rnd() & 3);
    ASSERT_TRUE(ipv4_checksum_ok(h)) << iter;
    ASSERT_EQ(load_be16(h + 10), ipv4_header_checksum(h, 20)) << iter;
    ipv4_decrement_ttl(h);
    ASSERT_TRUE(ipv4_checksum_ok(h)) << iter;
    ASSERT_EQ(load_be16(h + 10), ipv4_header_checksum(h, 20)) << iter;
  }
  // Marking CE: ECT(0) -> CE.
  Bytes f = build_frame([] {
    FrameSpec s;
    s.ecn = kEcnEct0;
    s.dscp = 26;
    return s;
  }());
  uint8_t* ip = &f[14];
  uint32_t icrc = stored_icrc(Bytes(f.begin(), f.begin() + 58));
  ipv4_set_ecn(ip, kEcnCe);
  EXPECT_EQ(ip[1], 26 << 2 | 3);
  EXPECT_EQ(ref_fold(ref_sum(ip, 20)), 0xffff);
  // The ICRC does not cover the TOS or checksum: still valid.
  Bytes g(f.begin(), f.begin() + 58);
  EXPECT_EQ(icrc, ref_icrc(g, 14, 42, 4));
}

TEST(Wire, ExtensionAndOpcodeTables) {
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtHopByHop, 0), 8u);
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtRouting, 3), 32u);
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtDestOptions, 255), 2048u);
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtFragment, 99), 8u);
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtAh, 4), 24u);
  EXPECT_EQ(ipv6_ext_len(kIpv6ExtAh, 1), 12u);
  EXPECT_FALSE(ipv6_is_skippable_ext(kIpv6ExtEsp));
  EXPECT_FALSE(ipv6_is_skippable_ext(kIpv6NoNextHeader));
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcSendOnly), 0u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcWriteOnlyImm), 20u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcReadRequest), 16u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcReadResponseMiddle), 0u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcAck), 4u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcAtomicAck), 12u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcCompareSwap), 28u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpRcSendOnlyInv), 4u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpUcWriteOnly), 16u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpUdSendOnly), 8u);
  EXPECT_EQ(roce_ext_headers_len(kRoceOpCnp), 0u);
}

}  // namespace
}  // namespace rocelb
