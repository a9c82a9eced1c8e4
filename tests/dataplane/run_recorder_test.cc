// What a replay records when asked (run_recorder.h), in-process: the
// per-packet notes a pcapng annotation is made of, the pcapng blocks
// themselves, event lines kept or dropped by the filter, the timeline's
// queue peak against the watermark, and the filter's one-line errors. Runs
// under ASan+UBSan with the other dataplane tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "dataplane/run/replay_run.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/pcap_file.h"
#include "test_support.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kT0 = 1'767'225'600'000'000'000ull;

std::vector<uint8_t> roce_to_host3(uint16_t in_port, uint32_t psn) {
  FrameSpec s;
  s.dst_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(in_port)};
  s.src_mac = {0x02, 0, 0, 0, 0x01, static_cast<uint8_t>(in_port)};
  s.src_ip = ipv4_bytes(10, 0, static_cast<uint8_t>(in_port), 2);
  s.dst_ip = ipv4_bytes(10, 0, 3, 2);
  s.dscp = 26;
  s.ecn = 2;
  s.sport = static_cast<uint16_t>(49152 + in_port);
  s.dest_qp = 0x40 + in_port;
  s.psn = psn;
  s.payload_len = 1024;
  return build_frame(s);
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The comments of a pcapng file's Enhanced Packet Blocks, in order (empty
// string: no comment), after checking the section and interface blocks.
std::vector<std::string> pcapng_comments(const std::string& b) {
  std::vector<std::string> out;
  size_t at = 0;
  int blocks = 0;
  while (at + 12 <= b.size()) {
    const auto* p = reinterpret_cast<const uint8_t*>(b.data() + at);
    const uint32_t type = load_le32(p), len = load_le32(p + 4);
    EXPECT_EQ(len % 4, 0u);
    EXPECT_EQ(load_le32(p + len - 4), len) << "block " << blocks;
    if (blocks == 0) {
      EXPECT_EQ(type, 0x0A0D0D0Au);
      EXPECT_EQ(load_le32(p + 8), 0x1A2B3C4Du);
    } else if (blocks == 1) {
      EXPECT_EQ(type, 1u);
      EXPECT_EQ(load_le16(p + 8), 1u);  // Ethernet
    } else {
      EXPECT_EQ(type, 6u);
      const uint32_t caplen = load_le32(p + 20);
      size_t opt = 28 + ((caplen + 3) & ~3u);
      std::string comment;
      while (opt + 4 <= len - 4) {
        const uint16_t code = load_le16(p + opt), olen = load_le16(p + opt + 2);
        if (code == 0) break;
        if (code == 1) comment.assign(reinterpret_cast<const char*>(p + opt + 4), olen);
        opt += 4 + ((olen + 3u) & ~3u);
      }
      out.push_back(comment);
    }
    at += len;
    ++blocks;
  }
  EXPECT_EQ(at, b.size());
  return out;
}

class Recorder : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    dir_ = fs::temp_directory_path() /
           ("rocelb-recorder-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Two hosts, 60 frames each at their full rate, into host 3: a queue.
    for (uint16_t port : {0, 1}) {
      const std::string path = (dir_ / ("in" + std::to_string(port) + ".pcap")).string();
      PcapWriter w(path);
      for (uint32_t i = 0; i < 60; ++i) {
        const auto f = roce_to_host3(port, i);
        w.write(kT0 + i * 100, f.data(), static_cast<uint32_t>(f.size()));
      }
      w.close();
      in_.push_back({port, path});
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  Json run(const RecordOptions& rec, const std::string& out) {
    ReplayRun e(SwitchConfig::build(test::default_params()), 8191);
    e.run(in_, (dir_ / out).string(), false, rec);
    EXPECT_EQ(mbufs_in_use(e.pool()), 0u);
    EXPECT_EQ(e.dataplane().observer(), nullptr);  // detached after the run
    return e.counters();
  }

  std::vector<ReplayInput> in_;
  fs::path dir_;
};

TEST_F(Recorder, PcapngCarriesOneAnnotationPerFrame) {
  RecordOptions rec;
  rec.pcapng = true;
  const Json c = run(rec, "out");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "port3.pcap"));
  const auto comments = pcapng_comments(slurp(dir_ / "out" / "port3.pcapng"));
  ASSERT_EQ(comments.size(), 120u);
  uint64_t waited = 0;
  for (const auto& s : comments) {
    EXPECT_EQ(s.rfind("in port ", 0), 0u) << s;
    EXPECT_NE(s.find(" \xE2\x86\x92 out port 3 class 3, queue "), std::string::npos) << s;
    waited += s.find("sojourn 0 ns") == std::string::npos;
  }
  EXPECT_GT(waited, 50u);  // two hosts into one link: most frames wait
  // A port that sent nothing still gets a valid file with no packet.
  EXPECT_TRUE(pcapng_comments(slurp(dir_ / "out" / "port4.pcapng")).empty());
}

TEST_F(Recorder, EventsFollowEachPacketAndTheFilterKeepsOneQp) {
  RecordOptions rec;
  rec.events = true;
  run(rec, "all");
  std::map<std::string, int> kinds;
  {
    std::ifstream f(dir_ / "all" / "events.jsonl");
    std::string line;
    while (std::getline(f, line)) ++kinds[Json::parse(line)["ev"].get<std::string>()];
  }
  EXPECT_EQ(kinds["arrive"], 120);
  EXPECT_EQ(kinds["enqueue"], 120);
  EXPECT_EQ(kinds["dequeue"], 120);

  rec.filter = EventFilter::parse("qp=0x41,class=3");
  run(rec, "one");
  std::ifstream f(dir_ / "one" / "events.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(f, line)) {
    const Json e = Json::parse(line);
    EXPECT_EQ(e["qp"], 0x41) << line;
    EXPECT_EQ(e["class"], 3) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 120);  // enqueue and dequeue of host 1's 60 frames (arrivals have no class)
}

TEST_F(Recorder, TimelinePeakIsTheWatermarkAndTxAddsUp) {
  RecordOptions rec;
  rec.timeline_ns = 1000;
  const Json c = run(rec, "out");
  std::ifstream f(dir_ / "out" / "timeline.csv");
  std::string line;
  std::getline(f, line);
  uint64_t peak = 0, tx = 0;
  while (std::getline(f, line)) {
    std::vector<std::string> col;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) col.push_back(x);
    ASSERT_EQ(col.size(), 6u) << line;
    if (col[2] == "3" && col[3] == "3" && col[4] == "queue_peak_bytes")
      peak = std::max<uint64_t>(peak, std::stoull(col[5]));
    if (col[2] == "3" && col[3].empty() && col[4] == "tx_bytes") tx += std::stoull(col[5]);
  }
  EXPECT_EQ(peak, c["ports"][3]["queues"][3]["watermark_bytes"].get<uint64_t>());
  EXPECT_GT(peak, 10'000u);
  EXPECT_EQ(tx, c["ports"][3]["tx_bytes"].get<uint64_t>());
}

// --max-output reached mid-run: the events end at a whole line, the
// timeline at a whole interval, the run goes on and its pcaps are whole;
// the folder stays under the cap and run.json says where recording stopped.
TEST_F(Recorder, ACapStopsRecordingAtAWholeLineAndThePcapsStayWhole) {
  RecordOptions rec;
  rec.events = true;
  rec.timeline_ns = 1000;
  run(rec, "whole");
  const uint64_t events = fs::file_size(dir_ / "whole" / "events.jsonl");
  // What the run sets aside for its own outputs, and half the events.
  rec.max_output =
      replay_own_output_bound(in_, false, *SwitchConfig::build(test::default_params())) +
      events / 2;
  ReplayRun e(SwitchConfig::build(test::default_params()), 8191);
  const ReplayStats st = e.run(in_, (dir_ / "cut").string(), false, rec);
  EXPECT_EQ(mbufs_in_use(e.pool()), 0u);
  ASSERT_TRUE(st.recording_stopped);
  uint64_t total = 0;
  for (const auto& f : fs::directory_iterator(dir_ / "cut")) total += fs::file_size(f.path());
  EXPECT_LE(total, rec.max_output);
  const std::string cut = slurp(dir_ / "cut" / "events.jsonl");
  EXPECT_GT(cut.size(), events / 8);
  EXPECT_LT(cut.size(), events);
  ASSERT_EQ(cut.back(), '\n');
  EXPECT_EQ(slurp(dir_ / "whole" / "events.jsonl").rfind(cut, 0), 0u);  // a prefix of the whole
  const std::string tl = slurp(dir_ / "cut" / "timeline.csv");
  EXPECT_EQ(slurp(dir_ / "whole" / "timeline.csv").rfind(tl, 0), 0u);
  EXPECT_EQ(slurp(dir_ / "cut" / "port3.pcap"), slurp(dir_ / "whole" / "port3.pcap"));
  const Json m = Json::parse(slurp(dir_ / "cut" / "run.json"));
  EXPECT_EQ(m["recording_stopped"]["t_ns"].get<uint64_t>(), kT0 + st.recording_stopped_ns);
  EXPECT_EQ(m["recording_stopped"]["max_output_bytes"], rec.max_output);
}

TEST(EventFilterParse, BadPartsAreNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"port", "expected KEY=VALUE"},
      {"port=64", "not a number from 0 to 63"},
      {"class=8", "not a number from 0 to 7"},
      {"qp=0x1000000", "not a number from 0 to 16777215"},
      {"sport=-1", "not a number"},
      {"dst=10.0.0.256", "not an IPv4 or IPv6 address"},
      {"port=1,port=2", "\"port\" given twice"},
      {"port=1,,class=3", "empty part"},
      {"vlan=3", "unknown key"},
  };
  for (const auto& [text, why] : cases) {
    try {
      EventFilter::parse(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << text << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("--events-filter: ", 0), 0u) << e.what();
    }
  }
  const EventFilter f = EventFilter::parse("port=4,src=fd00::2,dport=4791");
  EXPECT_EQ(*f.port, 4);
  EXPECT_EQ(f.src->family, 6);
  EXPECT_EQ(*f.dport, 4791);
}

}  // namespace
}  // namespace rocelb
