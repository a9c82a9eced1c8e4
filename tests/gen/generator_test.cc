// The generator: frames parsed back with the switch's own parser (opcodes,
// PSNs, ACK requests, addresses), exact timing, merge order on a port, copies,
// pcap output and determinism; and the bundled scenarios load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "tools/gen/generator.h"
#include "tools/gen/scenario.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;

const ConfigParams& default_config() {
  static const ConfigParams cfg =
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName));
  return cfg;
}

ScenarioParams load(const std::string& text, std::optional<uint64_t> seed = std::nullopt) {
  return load_scenario_text(text, "test.yaml", default_config(), seed);
}

ParsedPacket parse(const GenPacket& p) {
  ParsedPacket pp;
  const auto n = static_cast<uint32_t>(p.frame.size());
  EXPECT_EQ(parse_frame(p.frame.data(), n, n, pp), ParseResult::ok);
  return pp;
}

// A fresh, empty directory under the test temp dir.
std::string temp_dir(const std::string& name) {
  fs::path d =
      fs::path(::testing::TempDir()) / ("rocelb_gen_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Header bytes before the payload for RoCEv2/IPv4 without VLAN: Ethernet 14,
// IPv4 20, UDP 8, BTH 12; plus ICRC 4 after it.
constexpr uint32_t kV4Overhead = 14 + 20 + 8 + 12 + 4;

TEST(Generator, WriteMessageOpcodesPsnsAndAckReq) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, sport: 50000, dest_qp: 0x21,\n"
      "     message: 64KiB, mtu: 1024, rate: 100G, psn: 100, dscp: 26, ecn: ect0}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 64u);
  for (size_t i = 0; i < pkts.size(); ++i) {
    SCOPED_TRACE(i);
    const GenPacket& p = pkts[i];
    EXPECT_EQ(p.port, 0);
    EXPECT_EQ(p.flow, 0u);
    EXPECT_EQ(p.copy, 0u);
    EXPECT_EQ(p.seq, i);
    ParsedPacket pp = parse(p);
    ASSERT_TRUE(pp.has_bth);
    EXPECT_TRUE(pp.is_rocev2);
    EXPECT_EQ(pp.ip_version, 4);
    EXPECT_EQ(pp.dport, 4791);
    EXPECT_EQ(pp.sport, 50000);
    EXPECT_EQ(pp.dscp, 26);
    EXPECT_EQ(pp.ecn, 2);
    EXPECT_EQ(pp.num_vlans, 0);
    EXPECT_EQ(pp.bth_dest_qp, 0x21u);
    EXPECT_EQ(pp.bth_psn, 100u + i);
    EXPECT_EQ(pp.bth_pkey, 0xffff);
    EXPECT_EQ(pp.bth_ack_req, i == 63);
    uint8_t want = i == 0    ? kRoceOpRcWriteFirst
                   : i == 63 ? kRoceOpRcWriteLast
                             : kRoceOpRcWriteMiddle;
    EXPECT_EQ(pp.bth_opcode, want);
    EXPECT_EQ(std::vector<uint8_t>(pp.dst_mac, pp.dst_mac + 6),
              (std::vector<uint8_t>{2, 0, 0, 0, 0, 0}));
    EXPECT_EQ(std::vector<uint8_t>(pp.src_mac, pp.src_mac + 6),
              (std::vector<uint8_t>{2, 0, 0, 0, 1, 0}));
    EXPECT_EQ(std::vector<uint8_t>(pp.src_ip, pp.src_ip + 4), (std::vector<uint8_t>{10, 0, 0, 2}));
    EXPECT_EQ(std::vector<uint8_t>(pp.dst_ip, pp.dst_ip + 4), (std::vector<uint8_t>{10, 2, 0, 2}));
    // No UDP checksum over IPv4.
    EXPECT_EQ(load_be16(p.frame.data() + pp.l4_offset + 6), 0);
    // Frame size: the first carries a RETH.
    EXPECT_EQ(p.frame.size(), kV4Overhead + 1024 + (i == 0 ? kRethLen : 0));
  }
  // RETH of the FIRST packet: VA, R_Key (the dest QP), DMA length (the message).
  ParsedPacket first = parse(pkts[0]);
  const uint8_t* reth = pkts[0].frame.data() + first.bth_offset + kBthLen;
  EXPECT_EQ(load_be32(reth) * (uint64_t(1) << 32) + load_be32(reth + 4), kRethBaseVa);
  EXPECT_EQ(load_be32(reth + 8), 0x21u);
  EXPECT_EQ(load_be32(reth + 12), 65536u);
}

TEST(Generator, SpacingIsTheWireTimeAtTheFlowRate) {
  // At 1 Gb/s a bit takes exactly 1 ns: every gap is (bytes + 20) * 8 ns.
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 64KiB, mtu: 1024, rate: 1G,\n"
      "     start: 3us}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 64u);
  EXPECT_EQ(pkts[0].t_ns, 3000u);
  EXPECT_EQ(pkts[0].ts_ns, sc.base_time_ns + 3000u);
  for (size_t i = 1; i < pkts.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(pkts[i].t_ns - pkts[i - 1].t_ns, (pkts[i - 1].frame.size() + 20) * 8);
    EXPECT_EQ(pkts[i].ts_ns - pkts[i].t_ns, sc.base_time_ns);
  }
  EXPECT_EQ(pkts[1].t_ns - pkts[0].t_ns, (1098u + 20) * 8);  // FIRST: 1024 + RETH
  EXPECT_EQ(pkts[2].t_ns - pkts[1].t_ns, (1082u + 20) * 8);
}

TEST(Generator, SpacingDoesNotDriftWhenNotWholeNanoseconds) {
  // At 100 Gb/s a 1082-byte frame takes 88.16 ns: timestamps are the exact
  // start times rounded down, so they never drift from the true schedule.
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 64KiB, mtu: 1024, rate: 100G}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 0);
  uint64_t bits = 0;
  for (const GenPacket& p : pkts) {
    EXPECT_EQ(p.t_ns, bits / 100);  // bits * 1e9 / 100e9
    bits += wire_bits(p.frame.size());
  }
  EXPECT_EQ(pkts[1].t_ns, 89u);  // (1098 + 20) * 8 / 100 = 89.44
}

TEST(Generator, MessagesContinuePsnsAndGapFollowsEachMessage) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 2500, mtu: 1024, messages: 3,\n"
      "     rate: 1G, gap: 10us, psn: 0xfffffd}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 9u);  // 3 per message: 1024, 1024, 452
  const uint8_t want_ops[] = {kRoceOpRcWriteFirst, kRoceOpRcWriteMiddle, kRoceOpRcWriteLast};
  for (size_t i = 0; i < pkts.size(); ++i) {
    SCOPED_TRACE(i);
    ParsedPacket pp = parse(pkts[i]);
    EXPECT_EQ(pp.bth_psn, (0xfffffdu + i) & 0xffffff);  // wraps after 0xffffff
    EXPECT_EQ(pp.bth_opcode, want_ops[i % 3]);
    EXPECT_EQ(pp.bth_ack_req, i % 3 == 2);
    if (i % 3 == 2) {
      EXPECT_EQ(pp.bth_pad, 0);  // 452 is a multiple of 4
      EXPECT_EQ(pkts[i].frame.size(), kV4Overhead + 452);
    }
    if (i % 3 == 0) {
      const uint8_t* reth = pkts[i].frame.data() + pp.bth_offset + kBthLen;
      EXPECT_EQ(load_be32(reth + 4), uint32_t(kRethBaseVa + (i / 3) * 2500));
      EXPECT_EQ(load_be32(reth + 12), 2500u);
    }
  }
  // Message 2 starts when message 1 has left the wire, plus the gap.
  uint64_t end_of_first = pkts[2].t_ns + wire_bits(pkts[2].frame.size());
  EXPECT_EQ(pkts[3].t_ns, end_of_first + 10'000);
  EXPECT_EQ(pkts[3].t_ns - pkts[2].t_ns, (kV4Overhead + 452 + 20) * 8 + 10'000);
}

TEST(Generator, OnePacketMessagesAreOnly) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 1000, mtu: 1024, messages: 2}\n"
      "  - {in_port: 1, src: 10.0.1.2, dst: 10.2.0.2, message: 1, op: send}\n");
  std::vector<GenPacket> w = generate_port(sc, 0);
  ASSERT_EQ(w.size(), 2u);
  for (const GenPacket& p : w) {
    ParsedPacket pp = parse(p);
    EXPECT_EQ(pp.bth_opcode, kRoceOpRcWriteOnly);
    EXPECT_TRUE(pp.bth_ack_req);
    EXPECT_EQ(p.frame.size(), kV4Overhead + kRethLen + 1000);
  }
  std::vector<GenPacket> s = generate_port(sc, 1);
  ASSERT_EQ(s.size(), 1u);
  ParsedPacket pp = parse(s[0]);
  EXPECT_EQ(pp.bth_opcode, kRoceOpRcSendOnly);
  EXPECT_TRUE(pp.bth_ack_req);
  EXPECT_EQ(pp.bth_pad, 3);
  EXPECT_EQ(s[0].frame.size(), kV4Overhead + 1 + 3);
}

TEST(Generator, SendOpcodes) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 2, src: 10.0.2.2, dst: 10.2.0.2, op: send, message: 1280, mtu: 256}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 2);
  ASSERT_EQ(pkts.size(), 5u);
  const uint8_t want[] = {kRoceOpRcSendFirst, kRoceOpRcSendMiddle, kRoceOpRcSendMiddle,
                          kRoceOpRcSendMiddle, kRoceOpRcSendLast};
  for (size_t i = 0; i < 5; ++i) {
    ParsedPacket pp = parse(pkts[i]);
    EXPECT_EQ(pp.bth_opcode, want[i]);
    EXPECT_EQ(pkts[i].frame.size(), kV4Overhead + 256);  // no RETH on SEND
  }
}

TEST(Generator, VlanPriorityTagAndIpv6) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 1, src: \"fd00:0:1::2\", dst: \"fd00:9::5\", pcp: 3, ecn: ce, dscp: 10,\n"
      "     message: 512, mtu: 256}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 1);
  ASSERT_EQ(pkts.size(), 2u);
  for (const GenPacket& p : pkts) {
    ParsedPacket pp = parse(p);
    EXPECT_EQ(pp.num_vlans, 1);
    EXPECT_EQ(pp.pcp, 3);
    EXPECT_EQ(pp.vid, 0);
    EXPECT_EQ(pp.ip_version, 6);
    EXPECT_EQ(pp.dscp, 10);
    EXPECT_EQ(pp.ecn, 3);
    EXPECT_TRUE(pp.is_rocev2);
    EXPECT_EQ(pp.dst_ip[15], 5);
    EXPECT_EQ(std::vector<uint8_t>(pp.src_mac, pp.src_mac + 6),
              (std::vector<uint8_t>{2, 0, 0, 0, 1, 1}));
    // IPv6 always has a UDP checksum.
    EXPECT_NE(load_be16(p.frame.data() + pp.l4_offset + 6), 0);
  }
}

TEST(Generator, MergeOrderOfTwoFlowsOnOnePort) {
  // Flow b (listed second) starts first; on ties flow a (listed first) wins.
  ScenarioParams sc = load(
      "flows:\n"
      "  - {name: a, in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, sport: 1000, message: 3072,\n"
      "     rate: 1G, start: 1us}\n"
      "  - {name: b, in_port: 0, src: 10.0.0.2, dst: 10.2.0.3, sport: 2000, message: 3072,\n"
      "     rate: 1G, start: 0us}\n"
      "  - {name: c, in_port: 0, src: 10.0.0.2, dst: 10.2.0.4, sport: 3000, message: 1024,\n"
      "     rate: 1G, start: 1us}\n"
      "  - {name: other, in_port: 1, src: 10.0.1.2, dst: 10.2.0.2, message: 1024}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 7u);
  for (size_t i = 1; i < pkts.size(); ++i) EXPECT_LE(pkts[i - 1].t_ns, pkts[i].t_ns);
  std::vector<uint32_t> flows;
  std::vector<uint64_t> times;
  for (const GenPacket& p : pkts) {
    flows.push_back(p.flow);
    times.push_back(p.t_ns);
    EXPECT_EQ(parse(p).sport, 1000 * (p.flow + 1));
  }
  // b: 0, 8944, 17760; a and c: 1000 (tie: a first); a: 9944, 18760.
  EXPECT_EQ(flows, (std::vector<uint32_t>{1, 0, 2, 1, 0, 1, 0}));
  EXPECT_EQ(times, (std::vector<uint64_t>{0, 1000, 1000, 8944, 9944, 17760, 18760}));
  EXPECT_EQ(generate_port(sc, 1).size(), 1u);
  EXPECT_TRUE(generate_port(sc, 2).empty());
}

TEST(Generator, CopiesVarySportAndDestQpWithTheSameStart) {
  ScenarioParams sc = load(
      "flows:\n"
      "  - {in_port: 3, src: 10.0.3.2, dst: 10.2.0.2, sport: 49152, dest_qp: 0x100,\n"
      "     message: 2048, mtu: 1024, rate: 1G, start: 5us, copies: 4}\n");
  std::vector<GenPacket> pkts = generate_port(sc, 3);
  ASSERT_EQ(pkts.size(), 8u);
  for (size_t i = 0; i < pkts.size(); ++i) {
    SCOPED_TRACE(i);
    const uint32_t k = static_cast<uint32_t>(i % 4);  // round: copies in order at each time
    EXPECT_EQ(pkts[i].copy, k);
    EXPECT_EQ(pkts[i].seq, i / 4);
    EXPECT_EQ(pkts[i].t_ns, i < 4 ? 5000u : 5000u + (1098 + 20) * 8);
    ParsedPacket pp = parse(pkts[i]);
    EXPECT_EQ(pp.sport, 49152 + k);
    EXPECT_EQ(pp.bth_dest_qp, 0x100 + k);
    EXPECT_EQ(pp.bth_psn, i / 4);  // each copy starts at the same PSN
  }
}

TEST(Generator, RandomSportChangesWithTheSeedOnly) {
  const std::string text =
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, sport: random, message: 1024}\n";
  uint16_t s1 = parse(generate_port(load(text, 1), 0)[0]).sport;
  EXPECT_EQ(parse(generate_port(load(text, 1), 0)[0]).sport, s1);
  EXPECT_EQ(s1, load(text).flows[0].sport);  // scenario default seed is 1
  bool differs = false;
  for (uint64_t seed = 2; seed < 6 && !differs; ++seed)
    differs = parse(generate_port(load(text, seed), 0)[0]).sport != s1;
  EXPECT_TRUE(differs);
}

TEST(Generator, PcapsMatchFramesAndAreDeterministic) {
  const std::string text =
      "base_time: 1767225600s\n"
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 8KiB, copies: 3}\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.9, message: 4KiB, start: 50ns}\n"
      "  - {in_port: 6, src: 10.1.6.2, dst: 10.0.1.2, message: 4KiB, op: send}\n";
  ScenarioParams sc = load(text);
  std::string d1 = temp_dir("det1");
  std::string d2 = temp_dir("det2");
  std::vector<PortSummary> s1 = write_port_pcaps(sc, d1);
  std::vector<PortSummary> s2 = write_port_pcaps(load(text), d2);
  ASSERT_EQ(s1.size(), 2u);
  EXPECT_EQ(s1[0].port, 0);
  EXPECT_EQ(s1[1].port, 6);
  EXPECT_EQ(s1[0].packets, 3u * 8 + 4);
  EXPECT_EQ(s1[1].packets, 4u);
  EXPECT_EQ(s1[0].path, (fs::path(d1) / "port0.pcap").string());
  EXPECT_FALSE(fs::exists(fs::path(d1) / "port1.pcap"));
  for (size_t i = 0; i < s1.size(); ++i) {
    std::string a = file_bytes(s1[i].path);
    std::string b = file_bytes(s2[i].path);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b) << s1[i].path << " vs " << s2[i].path;
    EXPECT_EQ(s1[i].bytes, s2[i].bytes);
  }

  // The pcap holds exactly generate_port()'s frames and timestamps.
  for (const PortSummary& s : s1) {
    std::vector<GenPacket> want = generate_port(sc, s.port);
    PcapReader r(s.path);
    EXPECT_TRUE(r.nanosecond());
    EXPECT_EQ(r.linktype(), kLinktypeEthernet);
    PcapRecord rec;
    size_t n = 0;
    uint64_t bytes = 0;
    while (r.next(rec)) {
      ASSERT_LT(n, want.size());
      EXPECT_EQ(rec.ts_ns, want[n].ts_ns);
      ASSERT_EQ(rec.caplen, want[n].frame.size());
      EXPECT_EQ(rec.origlen, rec.caplen);
      EXPECT_TRUE(std::equal(rec.data, rec.data + rec.caplen, want[n].frame.begin()));
      bytes += rec.caplen;
      ++n;
    }
    EXPECT_EQ(n, want.size());
    EXPECT_EQ(s.packets, n);
    EXPECT_EQ(s.bytes, bytes);
    EXPECT_EQ(s.first_ts_ns, want.front().ts_ns);
    EXPECT_EQ(s.last_ts_ns, want.back().ts_ns);
    EXPECT_EQ(s.first_ts_ns, 1767225600ull * 1000000000ull);
  }
  fs::remove_all(d1);
  fs::remove_all(d2);
}

TEST(Generator, UnwritableOutputThrowsPcapError) {
  ScenarioParams sc =
      load("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 1024}\n");
  std::string d = temp_dir("unwritable");
  fs::create_directories(fs::path(d) / "port0.pcap");  // a directory where the file should go
  EXPECT_THROW(write_port_pcaps(sc, d), PcapError);
  fs::remove_all(d);
}

TEST(BundledScenarios, LoadAndStaySmall) {
  struct Case {
    const char* file;
    uint64_t packets;
    std::vector<uint16_t> ports;
  };
  const Case cases[] = {
      {"demo.yaml", 8000, {0, 1, 2, 3}},
      {"incast.yaml", 11721, {0, 1, 2}},  // 3 × 4 MB: enough to cross XOFF
      {"elephants.yaml", 4 * 3907, {0, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    ScenarioParams sc = load_scenario_file(
        std::string(ROCELB_SOURCE_DIR) + "/configs/scenarios/" + c.file, default_config());
    EXPECT_EQ(sc.total_packets(), c.packets);
    EXPECT_EQ(sc.ports(), c.ports);
  }
}

TEST(BundledScenarios, DemoSpreadsDistinctSportsOverFourHosts) {
  ScenarioParams sc = load_scenario_file(
      std::string(ROCELB_SOURCE_DIR) + "/configs/scenarios/demo.yaml", default_config());
  std::vector<uint16_t> sports;
  for (const FlowParams& f : sc.flows) {
    EXPECT_EQ(f.copies, 8u);
    EXPECT_EQ(f.op, RoceOp::kWrite);
    EXPECT_EQ(f.message_bytes, 256'000u);
    EXPECT_EQ(f.mtu, 1024u);
    EXPECT_EQ(f.rate_bps, 100'000'000'000ull);
    EXPECT_EQ(f.start_ns, 0u);
    EXPECT_EQ(f.dst.b[0], 10);
    EXPECT_EQ(f.dst.b[1], 2);  // 10.2.x.y: routed to the uplinks
    for (uint32_t k = 0; k < f.copies; ++k) sports.push_back(uint16_t(f.sport + k));
  }
  std::sort(sports.begin(), sports.end());
  EXPECT_EQ(std::adjacent_find(sports.begin(), sports.end()), sports.end());
  EXPECT_EQ(sports.size(), 32u);
}

}  // namespace
}  // namespace rocelb
