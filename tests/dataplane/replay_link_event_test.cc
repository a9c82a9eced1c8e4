// Scheduled link faults in a replay (--event TIME:PORT:down|up): an uplink
// that goes down carries nothing while down, its flows move to the other
// members and come back after, flows elsewhere do not move; a host port
// that goes down drops what was queued for it and what is sent to it
// (link_down) and loses what its host sends meanwhile, and the PFC bytes
// those frames held are released; bad --event values are refused with the
// value and the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "dataplane/run/link_event.h"
#include "dataplane/run/replay_run.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "test_support.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kT0 = 1'767'225'600'000'000'000ull;  // 2026-01-01, in ns
constexpr uint64_t kUs = 1000, kMs = 1'000'000;

std::vector<uint8_t> roce(uint16_t in_port, const IpBytes& dst, uint16_t sport, uint32_t payload,
                          uint32_t psn) {
  FrameSpec s;
  s.dst_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(in_port)};
  s.src_mac = {0x02, 0, 0, 0, 0x01, static_cast<uint8_t>(in_port)};
  s.src_ip = ipv4_bytes(10, 0, static_cast<uint8_t>(in_port), 2);
  s.dst_ip = dst;
  s.dscp = 26;
  s.ecn = 2;
  s.sport = sport;
  s.dest_qp = 0x100u + sport;
  s.psn = psn;
  s.payload_len = payload;
  return build_frame(s);
}

struct Out {
  uint64_t t_ns;  // from time zero
  ParsedPacket pp;
};

class ReplayLinkEvent : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    dir_ = fs::temp_directory_path() /
           ("rocelb-link-event-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Json run(const std::vector<ReplayInput>& in, const std::vector<std::string>& events,
           const std::vector<std::string>& sets = {}) {
    ReplayRun e(SwitchConfig::build(test::default_params(sets)), 8191);
    e.set_link_events(parse_link_events(events, e.dataplane().config()));
    e.run(in, (dir_ / "out").string());
    Json j = e.counters();
    EXPECT_EQ(mbufs_in_use(e.pool()), 0u);
    for (uint16_t port : e.dataplane().config().port_ids)
      for (int p = 0; p < kPfcPriorities; ++p)
        EXPECT_EQ(e.dataplane().pfc().held_bytes(port, static_cast<uint8_t>(p)), 0u)
            << "port " << port << " priority " << p << " still holds PFC bytes";
    return j;
  }
  std::vector<Out> output(int port) {
    PcapReader r((dir_ / "out" / ("port" + std::to_string(port) + ".pcap")).string());
    std::vector<Out> out;
    PcapRecord rec;
    while (r.next(rec)) {
      Out o{rec.ts_ns - kT0, {}};
      EXPECT_EQ(parse_frame(rec.data, rec.caplen, rec.caplen, o.pp), ParseResult::ok);
      out.push_back(o);
    }
    return out;
  }

  void uplink_down_and_up(const std::string& mode, bool others_stay);

  fs::path dir_;
};

// 64 flows from host 0, one frame every 2 us for 10 ms, over the four
// uplinks; uplink port 4 is down from 2 ms to 5 ms. `others_stay`: the mode
// promises that flows of the up members do not move (resilient hashing);
// plain ECMP (fixed) rehashes over the up members and may move them.
void ReplayLinkEvent::uplink_down_and_up(const std::string& mode, bool others_stay) {
  constexpr int kFlows = 64, kFrames = 5000;
  {
    PcapWriter w((dir_ / "in0.pcap").string());
    for (int i = 0; i < kFrames; ++i) {
      const auto f = roce(0, ipv4_bytes(10, 2, uint8_t(i % kFlows), 9),
                          uint16_t(49152 + i % kFlows), 256, uint32_t(i / kFlows));
      w.write(kT0 + uint64_t(i) * 2 * kUs, f.data(), uint32_t(f.size()));
    }
    w.close();
  }
  const Json j = run({{0, (dir_ / "in0.pcap").string()}}, {"5ms:spine0:up", "2ms:port4:down"},
                     {"groups.uplinks.mode=" + mode});  // events in any order

  // Which uplink each flow used in each phase.
  enum Phase { kBefore, kDown, kAfter };
  std::map<int, int> uplink[3];  // flow -> port
  int moved[3] = {0, 0, 0}, during_down_on_4 = 0;
  uint64_t out_total = 0;
  for (int port = 4; port < 8; ++port) {
    for (const Out& o : output(port)) {
      ++out_total;
      const Phase ph = o.t_ns < 2 * kMs ? kBefore : o.t_ns < 5 * kMs ? kDown : kAfter;
      if (ph == kDown && port == 4) ++during_down_on_4;
      const int flow = o.pp.sport - 49152;
      auto [it, fresh] = uplink[ph].emplace(flow, port);
      if (!fresh && it->second != port) ++moved[ph];
    }
  }
  EXPECT_EQ(during_down_on_4, 0) << "frames left a port whose link was down";
  for (int ph = 0; ph < 3; ++ph) EXPECT_EQ(moved[ph], 0) << "a flow changed uplink in phase " << ph;
  int others_moved = 0;
  for (const auto& [flow, port] : uplink[kBefore])
    others_moved += port != 4 && uplink[kDown][flow] != port;
  RecordProperty(mode + "_flows_of_up_members_moved", std::to_string(others_moved));
  ASSERT_EQ(uplink[kBefore].size(), size_t{kFlows});
  ASSERT_EQ(uplink[kDown].size(), size_t{kFlows});
  ASSERT_EQ(uplink[kAfter].size(), size_t{kFlows});
  int on4 = 0;
  for (const auto& [flow, port] : uplink[kBefore]) {
    if (port == 4) {
      ++on4;
      EXPECT_NE(uplink[kDown][flow], 4) << "flow " << flow;
    } else if (others_stay) {
      EXPECT_EQ(uplink[kDown][flow], port) << "flow " << flow << " moved off an up member";
    }
    EXPECT_EQ(uplink[kAfter][flow], port) << "flow " << flow << " did not come back";
  }
  EXPECT_GT(on4, 0) << "no flow used port 4 before the fault: the test proves nothing";

  // Nothing lost: at 2 us per frame nothing was queued on port 4 at 2 ms.
  EXPECT_EQ(out_total, uint64_t{kFrames});
  EXPECT_EQ(j["totals"]["rx_packets"], kFrames);
  EXPECT_EQ(j["totals"]["dropped_packets"], 0);
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(j["ports"][4]["link_changes"], 2);
  EXPECT_EQ(j["ports"][4]["link"], "up");
  EXPECT_EQ(j["ports"][5]["link_changes"], 0);
  ASSERT_EQ(j["link_events"].size(), 2u);
  EXPECT_EQ(j["link_events"][0]["t_ns"], 2 * kMs);
  EXPECT_EQ(j["link_events"][0]["link"], "down");
  EXPECT_EQ(j["link_events"][1]["port"], 4);
}

TEST_F(ReplayLinkEvent, FlowsLeaveADownUplinkAndComeBackResilientMovesNoOtherFlow) {
  uplink_down_and_up("resilient", true);
}

TEST_F(ReplayLinkEvent, FlowsLeaveADownUplinkAndComeBackUnderEcmp) {
  uplink_down_and_up("fixed", false);
}

TEST_F(ReplayLinkEvent, AHostLinkDownDropsItsQueueAndWhatIsSentToItAndLosesWhatItSends) {
  // Hosts 0 and 1 send 4000-byte frames to host 3 (a 10G port) for 1 ms:
  // a queue builds on port 3 (lossless class 3: PFC held bytes on 0 and 1).
  // Port 3 goes down at 500 us and comes back at 800 us. Host 3 sends one
  // frame to host 0 every 10 us all along.
  std::vector<ReplayInput> in;
  for (uint16_t p = 0; p < 2; ++p) {
    const std::string path = (dir_ / ("in" + std::to_string(p) + ".pcap")).string();
    PcapWriter w(path);
    for (int i = 0; i < 100; ++i) {
      const auto f = roce(p, ipv4_bytes(10, 0, 3, 2), uint16_t(1000 + p), 4000, uint32_t(i));
      w.write(kT0 + uint64_t(i) * 10 * kUs, f.data(), uint32_t(f.size()));
    }
    w.close();
    in.push_back({p, path});
  }
  {
    const std::string path = (dir_ / "in3.pcap").string();
    PcapWriter w(path);
    for (int i = 0; i < 100; ++i) {
      const auto f = roce(3, ipv4_bytes(10, 0, 0, 2), 3000, 100, uint32_t(i));
      w.write(kT0 + uint64_t(i) * 10 * kUs + 5 * kUs, f.data(), uint32_t(f.size()));
    }
    w.close();
    in.push_back({3, path});
  }
  const Json j =
      run(in, {"500us:port3:down", "800us:port3:up"},
          {"ports[3].speed=10G", "ports[0].mtu=9000", "ports[1].mtu=9000", "ports[3].mtu=9000"});
  const uint64_t link_down = j["ports"][3]["drops"]["link_down"];
  EXPECT_GT(link_down, 0u);
  // Nothing left port 3 while it was down.
  for (const Out& o : output(3))
    EXPECT_FALSE(o.t_ns >= 500 * kUs && o.t_ns < 800 * kUs) << "sent at " << o.t_ns << " ns";
  // Host 3's frames stamped 505..795 us were lost on the wire: 30 of them.
  uint64_t lost = 0;
  for (const Json& u : j["upstream"])
    if (u["port"] == 3) lost = u["frames_lost_link_down"];
  EXPECT_EQ(lost, 30u);
  EXPECT_EQ(j["ports"][3]["rx_packets"], 70);
  EXPECT_EQ(output(0).size(), 70u);
  EXPECT_EQ(j["ports"][0]["drops_total"], 0);
  EXPECT_EQ(j["ports"][1]["drops_total"], 0);
  EXPECT_EQ(j["ports"][3]["tx_packets"].get<uint64_t>() + link_down, 200u);
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(j["totals"]["queued_packets"], 0);
}

TEST_F(ReplayLinkEvent, BadEventsAreRefusedWithTheValueAndTheRule) {
  const auto cfg = SwitchConfig::build(test::default_params());
  const auto why = [&](const std::string& spec) {
    try {
      parse_link_event(spec, *cfg);
    } catch (const ReplayError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(why("2ms:port9:down").rfind("--event \"2ms:port9:down\": no port \"port9\"", 0), 0u)
      << why("2ms:port9:down");
  EXPECT_NE(why("2ms:port9:down").find("port4 (spine0)"), std::string::npos);
  EXPECT_NE(why("2:port4:down").find("time \"2\""), std::string::npos) << why("2:port4:down");
  EXPECT_NE(why("2ms:port4:off").find("must be down or up"), std::string::npos);
  EXPECT_NE(why("2ms:port4").find("expected TIME:PORT:down|up"), std::string::npos);
  EXPECT_NE(why("2ms:port4:down:x").find("expected TIME:PORT:down|up"), std::string::npos);
  const LinkEvent e = parse_link_event("1.5ms:spine1:up", *cfg);
  EXPECT_EQ(e.t_ns, 1'500'000u);
  EXPECT_EQ(e.port, 5);
  EXPECT_TRUE(e.up);
  EXPECT_EQ(parse_link_event("0:6:down", *cfg).port, 6);
}

}  // namespace
}  // namespace rocelb
