// Issue 4's incast, through the real binaries: three hosts send 4 MB of RoCE
// (DSCP 26, ECT(0)) each at 100 Gb/s to host 3 (configs/scenarios/incast.yaml).
// With PFC on priority 3 (the default switch) nothing is dropped: ports 0-2
// send PFC for priority 3, the senders honour it, and the pauses end with
// XON once the burst drains. With qos.pfc_enable=[] the same input tail-drops.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "pfc/pfc_frame.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

class PfcIncast : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("rocelb-incast-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const auto r = test::run_command(test::bin("tools/rocelb-gen") + " --scenario " +
                                         test::src("configs/scenarios/incast.yaml") +
                                         " --out-dir " + (dir_ / "in").string(),
                                     dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static nlohmann::json replay(const std::string& name, const std::string& sets) {
    std::string cmd = test::bin("dataplane/rocelb-dp") + " replay --quiet";
    for (int p = 0; p < 3; ++p)
      cmd += " --in " + std::to_string(p) + "=" + (dir_ / "in").string() + "/port" +
             std::to_string(p) + ".pcap";
    cmd += " --out-dir " + (dir_ / name).string() + " " + sets;
    const auto r = test::run_command(cmd, dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(test::read_file(dir_ / name / "counters.json"));
  }

  struct PfcSeen {
    int frames = 0, xoff = 0, xon = 0;
    bool last_is_xon = false;
  };
  static PfcSeen pfc_frames(const std::string& name, int port) {
    PcapReader r((dir_ / name / ("port" + std::to_string(port) + ".pcap")).string());
    PcapRecord rec;
    PfcSeen s;
    while (r.next(rec)) {
      ParsedPacket p;
      if (parse_frame(rec.data, rec.caplen, rec.caplen, p) != ParseResult::ok) continue;
      if (p.kind != L3Kind::kMacControl || p.mac_control_opcode != kPfcOpcode) continue;
      EXPECT_EQ(p.pfc_class_enable, 1u << 3) << "only priority 3 is lossless";
      ++s.frames;
      (p.pfc_quanta[3] ? s.xoff : s.xon)++;
      s.last_is_xon = p.pfc_quanta[3] == 0;
    }
    return s;
  }

  static inline fs::path dir_;
};

TEST_F(PfcIncast, LosslessWithPfcAndTheSendersArePaused) {
  const auto j = replay("pfc", "");
  uint64_t drops = 0;
  for (const auto& p : j["ports"]) drops += p["drops_total"].get<uint64_t>();
  EXPECT_EQ(drops, 0u);
  EXPECT_EQ(j["ports"][3]["tx_packets"], 3 * 3907);  // every RoCE packet reached host 3
  EXPECT_EQ(j["totals"]["conserved"], true);
  for (int p = 0; p < 3; ++p) {
    SCOPED_TRACE(p);
    const PfcSeen s = pfc_frames("pfc", p);
    EXPECT_GE(s.xoff, 1);
    EXPECT_GE(s.xon, 1);
    EXPECT_TRUE(s.last_is_xon) << "the pause must end once the burst drains";
    EXPECT_EQ(j["ports"][p]["generated_pfc_frames"], s.frames);
    EXPECT_EQ(j["ports"][p]["pfc"]["pfc_tx_frames"][3], s.frames);
    EXPECT_EQ(j["ports"][p]["pfc"]["lossless_dropped"][3], 0);
    EXPECT_GT(j["ports"][p]["pfc"]["xoff_asserted_us"][3].get<uint64_t>(), 0u);
    EXPECT_GT(j["upstream"][p]["paused_us"][3].get<uint64_t>(), 0u);
    EXPECT_EQ(j["upstream"][p]["paused_us"][0], 0);  // only priority 3 was held
  }
  EXPECT_EQ(pfc_frames("pfc", 3).frames, 0);  // host 3 is not the congestion source
  // The egress queue went above XOFF's share (3 × 1.6 MB) without tail drop.
  EXPECT_GT(j["ports"][3]["queues"][3]["watermark_bytes"].get<uint64_t>(), 4'000'000u);
}

TEST_F(PfcIncast, WithoutPfcTheSameInputTailDrops) {
  const auto j = replay("lossy", "--set 'qos.pfc_enable=[]'");
  EXPECT_GT(j["ports"][3]["drops"]["queue_full"].get<uint64_t>(), 0u);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(pfc_frames("lossy", p).frames, 0);
  EXPECT_EQ(j["totals"]["conserved"], true);
}

TEST_F(PfcIncast, TsharkSeesPfcForPriority3) {
  if (access("/usr/bin/tshark", X_OK) != 0) GTEST_SKIP() << "tshark not installed";
  replay("tshark", "");
  const auto r = test::run_command(
      "tshark -r " + (dir_ / "tshark" / "port0.pcap").string() +
          " -Y macc.opcode==0x0101 -T fields -E separator=, -e eth.dst -e macc.cbfc.enbv.c3 "
          "-e macc.cbfc.pause_time.c3",
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "01:80:c2:00:00:01,1,65535");
  EXPECT_NE(r.out.find("01:80:c2:00:00:01,1,0\n"), std::string::npos) << r.out;  // XON
}

}  // namespace
}  // namespace rocelb
