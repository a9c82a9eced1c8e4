// The replay run in-process: exact departure times in virtual time, the
// ingress wire rule, counters.json, byte-identical reruns, bad inputs, the
// clock's span, FIFO inputs, and outputs that land all together or not at all.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "dataplane/run/replay_run.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "test_support.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kT0 = 1'767'225'600'000'000'000ull;  // 2026-01-01, in ns

struct Frame {
  uint64_t ts_ns;
  std::vector<uint8_t> bytes;
};

// A RoCEv2 frame from host `in_port` to `dst` with `payload` bytes.
std::vector<uint8_t> roce(uint16_t in_port, uint32_t dst, uint16_t sport, uint32_t payload,
                          uint32_t psn = 0) {
  FrameSpec s;
  s.dst_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(in_port)};
  s.src_mac = {0x02, 0, 0, 0, 0x01, static_cast<uint8_t>(in_port)};
  s.src_ip = ipv4_bytes(10, 0, static_cast<uint8_t>(in_port), 2);
  s.dst_ip = ipv4_bytes(uint8_t(dst >> 24), uint8_t(dst >> 16), uint8_t(dst >> 8), uint8_t(dst));
  s.dscp = 26;
  s.ecn = 2;
  s.sport = sport;
  s.psn = psn;
  s.payload_len = payload;
  return build_frame(s);
}

class Replay : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    dir_ = fs::temp_directory_path() /
           ("rocelb-replay-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write_pcap(const std::string& name, const std::vector<Frame>& frames) {
    const std::string path = (dir_ / name).string();
    PcapWriter w(path);
    for (const auto& f : frames)
      w.write(f.ts_ns, f.bytes.data(), static_cast<uint32_t>(f.bytes.size()));
    w.close();
    return path;
  }
  static std::vector<Frame> read_pcap(const std::string& path) {
    PcapReader r(path);
    std::vector<Frame> out;
    PcapRecord rec;
    while (r.next(rec)) out.push_back({rec.ts_ns, {rec.data, rec.data + rec.caplen}});
    return out;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  // Runs a replay and returns counters.json; checks no mbuf is left in use.
  Json run(const std::vector<ReplayInput>& in, const std::string& out,
           const std::vector<std::string>& sets = {}) {
    ReplayRun e(SwitchConfig::build(test::default_params(sets)), 8191);
    e.run(in, out);
    Json j = e.counters();
    EXPECT_EQ(mbufs_in_use(e.pool()), 0u);
    return j;
  }

  fs::path dir_;
};

TEST_F(Replay, IncastSerializesOnTheEgressWireAtPortSpeed) {
  // Three hosts send one 1000-byte-payload frame each at the same instant to
  // host 3: the frames leave port 3 back to back, (len + 20) * 8 / 100G apart.
  std::vector<ReplayInput> in;
  size_t len = 0;
  for (uint16_t p = 0; p < 3; ++p) {
    auto f = roce(p, 0x0a000302, 50000 + p, 1000);
    len = f.size();
    in.push_back({p, write_pcap("in" + std::to_string(p) + ".pcap", {{kT0 + 1000, f}})});
  }
  const Json j = run(in, (dir_ / "out").string());
  const auto out3 = read_pcap((dir_ / "out" / "port3.pcap").string());
  ASSERT_EQ(out3.size(), 3u);
  const uint64_t wire_ps = (len + 20) * 80;
  EXPECT_EQ(out3[0].ts_ns, kT0 + 1000);
  EXPECT_EQ(out3[1].ts_ns, kT0 + 1000 + wire_ps / 1000);
  EXPECT_EQ(out3[2].ts_ns, kT0 + 1000 + 2 * wire_ps / 1000);
  // Lower ingress port first at equal times.
  for (int i = 0; i < 3; ++i) {
    ParsedPacket pp;
    ASSERT_EQ(parse_frame(out3[i].bytes.data(), uint32_t(out3[i].bytes.size()),
                          uint32_t(out3[i].bytes.size()), pp),
              ParseResult::ok);
    EXPECT_EQ(pp.sport, 50000 + i);
    EXPECT_EQ(pp.ttl, 63);
  }
  EXPECT_EQ(j["ports"][3]["tx_packets"], 3);
  EXPECT_EQ(j["ports"][3]["queues"][3]["watermark_bytes"], 2 * len);  // first left at once
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(j["totals"]["queued_packets"], 0);
}

TEST_F(Replay, FramesThatWouldOverlapOnTheIngressWireArriveWhenItIsFree) {
  // Two frames stamped at the same nanosecond into a 25G port: the second
  // lands one wire time later; the 100G egress then shows that spacing.
  auto a = roce(0, 0x0a000102, 1, 1000), b = roce(0, 0x0a000102, 1, 1000, 1);
  const std::string p = write_pcap("in.pcap", {{kT0, a}, {kT0, b}});
  run({{0, p}}, (dir_ / "out").string(), {"ports[0].speed=25G"});
  const auto out = read_pcap((dir_ / "out" / "port1.pcap").string());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ts_ns, kT0);
  EXPECT_EQ(out[1].ts_ns, kT0 + (a.size() + 20) * 320 / 1000);
}

TEST_F(Replay, SameInputsGiveByteIdenticalOutputs) {
  std::vector<Frame> frames;
  for (int i = 0; i < 400; ++i)
    frames.push_back({kT0 + uint64_t(i) * 40, roce(0, 0x0a020000 + i % 37, uint16_t(49152 + i % 13),
                                                   uint32_t(64 + (i * 97) % 4000), uint32_t(i))});
  const std::string p0 = write_pcap("in0.pcap", frames);
  const std::string p1 = write_pcap("in1.pcap", frames);
  const std::vector<ReplayInput> in = {{0, p0}, {1, p1}};
  run(in, (dir_ / "a").string());
  run(in, (dir_ / "b").string());
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "a")) {
    ++files;
    EXPECT_EQ(slurp(e.path()), slurp(dir_ / "b" / e.path().filename())) << e.path().filename();
  }
  EXPECT_EQ(files, 10);  // eight ports + counters.json + run.json
  EXPECT_FALSE(fs::exists(dir_ / "a" / ".rocelb-replay"));
}

TEST_F(Replay, CountersConserveEveryPacket) {
  std::vector<Frame> frames;
  for (int i = 0; i < 200; ++i) frames.push_back({kT0 + uint64_t(i), roce(0, 0x0a000302, 7, 3000)});
  auto ttl1 = roce(0, 0x0a020001, 1, 100);
  ttl1[14 + 8] = 1;  // TTL 1 (checksum is not checked by the switch)
  frames.push_back({kT0 + 500, ttl1});
  const std::string p = write_pcap("in.pcap", frames);
  const Json j = run({{0, p}}, (dir_ / "out").string(),
                     {"qos.queue_limit=20000", "ports[0].mtu=9000", "ports[3].mtu=9000"});
  const auto& t = j["totals"];
  EXPECT_EQ(t["rx_packets"], 201);
  EXPECT_EQ(t["conserved"], true);
  EXPECT_EQ(j["ports"][0]["drops"]["ttl_expired"], 1);
  // Port 0 and port 3 run at the same speed: no queue builds, nothing drops.
  EXPECT_EQ(j["ports"][3]["drops"]["queue_full"], 0);
  EXPECT_EQ(j["ports"][3]["tx_packets"], 200);
}

TEST_F(Replay, ReportsReorderingPerQueuePair) {
  // Two QPs through ECMP (fixed): each QP stays on one uplink, so no packet
  // leaves behind a higher PSN of its QP.
  std::vector<Frame> frames;
  for (int i = 0; i < 100; ++i)
    frames.push_back({kT0 + uint64_t(i) * 50,
                      roce(0, 0x0a020001, uint16_t(1000 + i % 2), 500, uint32_t(i / 2))});
  const Json j = run({{0, write_pcap("in.pcap", frames)}}, (dir_ / "out").string());
  EXPECT_EQ(j["reordering"]["roce_packets"], 100);
  EXPECT_EQ(j["reordering"]["qps"], 1);  // same IPs and dest QP: one QP for the NIC
  // Both source ports carry PSNs of that one QP: whether a PSN lands behind
  // depends only on departure order, which is exact here (one wire, in order).
  EXPECT_EQ(j["reordering"]["reordered_packets"], 0);
}

TEST_F(Replay, ReceivedPfcPausesOnlyItsClassForTheQuantaTime) {
  // Port 3's host sends PFC for priority 3, time 65535, at t0; host 0 then
  // sends RoCE (class 3) and plain UDP (class 0) to host 3. Class 0 leaves at
  // once; class 3 waits 65535 × 512 / 100e9 s = 335.54 us.
  const auto pfc = build_frame(
      pfc_frame_spec({0x02, 0, 0, 0, 0x01, 0x03}, 1u << 3, {0, 0, 0, 0xffff, 0, 0, 0, 0}));
  auto roce3 = roce(0, 0x0a000302, 7, 512);
  FrameSpec plain;
  plain.dst_mac = {0x02, 0, 0, 0, 0, 0};
  plain.src_ip = ipv4_bytes(10, 0, 0, 2);
  plain.dst_ip = ipv4_bytes(10, 0, 3, 2);
  plain.dscp = 0;
  plain.dport = 5000;
  plain.payload_len = 512;
  const auto udp0 = build_frame(plain);
  const std::string p3 = write_pcap("in3.pcap", {{kT0, pfc}});
  const std::string p0 = write_pcap("in0.pcap", {{kT0 + 1000, roce3}, {kT0 + 2000, udp0}});
  const Json j = run({{0, p0}, {3, p3}}, (dir_ / "out").string());
  const auto out = read_pcap((dir_ / "out" / "port3.pcap").string());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ts_ns, kT0 + 2000);  // class 0 was not held
  EXPECT_EQ(out[0].bytes.size(), udp0.size());
  EXPECT_EQ(out[1].ts_ns, kT0 + 335'540);  // class 3 left when the pause ended
  EXPECT_EQ(j["ports"][3]["pfc"]["pfc_rx_frames"][3], 1);
  EXPECT_EQ(j["ports"][3]["pfc"]["pfc_rx_pause_us"][3], 335);
  EXPECT_EQ(j["ports"][3]["consumed_pfc"], 1);
  EXPECT_EQ(j["totals"]["conserved"], true);
}

// A PFC storm: host 3 keeps sending XOFF for priority 3 for 5 ms while host 0
// sends RoCE to it. With detection and restoration at 2 ms the watchdog
// declares the storm, acts, and restores the queue once the frames stop.
class PfcStorm : public Replay {
 protected:
  Json storm(const std::string& action, std::vector<Frame>* out3) {
    std::vector<Frame> pfc;
    const auto x = build_frame(
        pfc_frame_spec({0x02, 0, 0, 0, 0x01, 0x03}, 1u << 3, {0, 0, 0, 0xffff, 0, 0, 0, 0}));
    for (int i = 0; i < 50; ++i) pfc.push_back({kT0 + uint64_t(i) * 100'000, x});
    std::vector<Frame> data;
    for (int i = 0; i < 1000; ++i)
      data.push_back({kT0 + 50'000 + uint64_t(i) * 10'000, roce(0, 0x0a000302, 9, 936, i)});
    const std::string dir = "out-" + action;
    const Json j =
        run({{0, write_pcap("d-" + action + ".pcap", data)},
             {3, write_pcap("p-" + action + ".pcap", pfc)}},
            (dir_ / dir).string(),
            {"qos.pfc_watchdog.detection_time=2ms", "qos.pfc_watchdog.restoration_time=2ms",
             "qos.pfc_watchdog.poll_interval=100us", "qos.pfc_watchdog.action=" + action});
    *out3 = read_pcap((dir_ / dir / "port3.pcap").string());
    return j;
  }
};

TEST_F(PfcStorm, DropFlushesTheQueueAndRestoresAfterTheFramesStop) {
  std::vector<Frame> out;
  const Json j = storm("drop", &out);
  const Json& wd = j["ports"][3]["pfc_watchdog"][3];
  EXPECT_EQ(wd["storms_detected"], 1);
  EXPECT_EQ(wd["storms_restored"], 1);
  EXPECT_EQ(wd["state"], "normal");
  const uint64_t dropped = j["ports"][3]["drops"]["pfc_watchdog_drop"].get<uint64_t>();
  EXPECT_GT(dropped, 0u);
  // Nothing left during the storm; after restoration the flow resumes.
  ASSERT_FALSE(out.empty());
  EXPECT_GE(out.front().ts_ns, kT0 + 5'000'000);
  EXPECT_EQ(out.size() + dropped, 1000u);
  EXPECT_EQ(j["totals"]["conserved"], true);
}

TEST_F(PfcStorm, ForwardIgnoresThePauseFramesDuringTheStorm) {
  std::vector<Frame> out;
  const Json j = storm("forward", &out);
  EXPECT_EQ(j["ports"][3]["pfc_watchdog"][3]["storms_detected"], 1);
  EXPECT_EQ(j["ports"][3]["drops"]["pfc_watchdog_drop"], 0);
  EXPECT_EQ(out.size(), 1000u);  // nothing lost
  // Frames left while the storm's XOFFs were still arriving (before 5 ms).
  EXPECT_LT(out.front().ts_ns, kT0 + 2'500'000);
}

TEST_F(PfcStorm, AlertOnlyCounts) {
  std::vector<Frame> out;
  const Json j = storm("alert", &out);
  EXPECT_EQ(j["ports"][3]["pfc_watchdog"][3]["storms_detected"], 1);
  EXPECT_EQ(j["ports"][3]["drops"]["pfc_watchdog_drop"], 0);
  EXPECT_EQ(out.size(), 1000u);
  EXPECT_GE(out.front().ts_ns, kT0 + 5'000'000);  // paused all along
}

TEST_F(Replay, BadInputsWriteNothing) {
  const fs::path out = dir_ / "out";
  // Not a pcap.
  {
    std::ofstream f(dir_ / "junk.pcap");
    f << "this is not a capture file";
  }
  ReplayRun e(SwitchConfig::build(test::default_params()), 1024);
  EXPECT_THROW(e.run({{0, (dir_ / "junk.pcap").string()}}, out.string()), ReplayError);
  EXPECT_THROW(e.run({{0, (dir_ / "missing.pcap").string()}}, out.string()), ReplayError);
  // A port the config lacks.
  const std::string good = write_pcap("good.pcap", {{kT0, roce(0, 0x0a000102, 1, 10)}});
  try {
    e.run({{9, good}}, out.string());
    ADD_FAILURE() << "port 9 accepted";
  } catch (const ReplayError& err) {
    EXPECT_NE(std::string(err.what()).find("port 9 is not in the config"), std::string::npos);
  }
  EXPECT_FALSE(fs::exists(out));
  // A truncated record found mid-run: the private folder is removed.
  std::string bytes = slurp(good);
  {
    std::ofstream f(dir_ / "cut.pcap", std::ios::binary);
    f << bytes << bytes.substr(24, 30);  // a second record header and a few bytes
  }
  EXPECT_THROW(e.run({{0, (dir_ / "cut.pcap").string()}}, out.string()), ReplayError);
  EXPECT_FALSE(fs::exists(out));  // the run created it: it goes too
}

TEST_F(Replay, NonEthernetLinkTypeIsRefused) {
  // A pcap with link type 101 (raw IP).
  std::string hdr(24, '\0');
  const uint32_t magic = 0xa1b2c3d4, snap = 65535, link = 101;
  std::memcpy(&hdr[0], &magic, 4);
  hdr[4] = 2, hdr[6] = 4;
  std::memcpy(&hdr[16], &snap, 4);
  std::memcpy(&hdr[20], &link, 4);
  {
    std::ofstream f(dir_ / "raw.pcap", std::ios::binary);
    f << hdr;
  }
  ReplayRun e(SwitchConfig::build(test::default_params()), 1024);
  try {
    e.run({{0, (dir_ / "raw.pcap").string()}}, (dir_ / "out").string());
    ADD_FAILURE() << "raw IP accepted";
  } catch (const ReplayError& err) {
    EXPECT_NE(std::string(err.what()).find("not Ethernet"), std::string::npos) << err.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

constexpr uint64_t kDayNs = 86'400ull * 1'000'000'000ull;

// Items of issue 10: what a replay refuses and what it leaves behind.
class ReplayInputs : public Replay {
 protected:
  // Runs a replay that must fail; returns its message.
  std::string failure(const std::vector<ReplayInput>& in, const fs::path& out) {
    ReplayRun e(SwitchConfig::build(test::default_params()), 1024);
    try {
      e.run(in, out.string());
    } catch (const ReplayError& err) {
      return err.what();
    }
    ADD_FAILURE() << "the replay succeeded";
    return "";
  }
  static std::set<std::string> names_in(const fs::path& d) {
    std::set<std::string> n;
    for (const auto& e : fs::directory_iterator(d)) n.insert(e.path().filename().string());
    return n;
  }
};

TEST_F(ReplayInputs, InputsFurtherApartThanTheClockHoldsAreRefused) {
  // 1970 and 2026: picoseconds since the earlier one overflow 64 bits; the
  // outputs used to be stamped 1970 and the run said nothing.
  const std::string early =
      write_pcap("early.pcap", {{1'000'000'000, roce(0, 0x0a000302, 1, 100)}});
  const std::string late = write_pcap("late.pcap", {{kT0, roce(1, 0x0a000302, 2, 100)}});
  const fs::path out = dir_ / "out";
  const std::string msg = failure({{0, early}, {1, late}}, out);
  EXPECT_EQ(msg, "--in 1=" + late +
                     ": record at byte offset 24 is 20454.0 days after time zero (the first "
                     "record of --in 0=" +
                     early + "): a replay spans at most 100 days");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ReplayInputs, ALateRecordInOneInputIsRefusedAtItsOffset) {
  const auto f = roce(0, 0x0a000302, 1, 100);
  const std::string in =
      write_pcap("in.pcap", {{kT0, f}, {kT0 + 1000, f}, {kT0 + 150 * kDayNs + kDayNs / 2, f}});
  const std::string msg = failure({{0, in}}, dir_ / "out");
  const std::string offset = std::to_string(24 + 2 * (16 + f.size()));
  EXPECT_EQ(msg, "--in 0=" + in + ": record at byte offset " + offset +
                     " is 150.5 days after time zero (the first record of --in 0=" + in +
                     "): a replay spans at most 100 days");
}

TEST_F(ReplayInputs, NinetyNineDaysApartKeepExactTimes) {
  const uint64_t later = kT0 + 99 * kDayNs + 123;
  const std::string a = write_pcap("a.pcap", {{kT0, roce(0, 0x0a000302, 1, 100)}});
  const std::string b = write_pcap("b.pcap", {{later, roce(1, 0x0a000302, 2, 100)}});
  const Json j = run({{0, a}, {1, b}}, (dir_ / "out").string());
  const auto out = read_pcap((dir_ / "out" / "port3.pcap").string());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].ts_ns, kT0);
  EXPECT_EQ(out[1].ts_ns, later);
  EXPECT_EQ(j["time"]["last_ns"], later);
}

// Serves a pcap on a FIFO the way a pipe does: once, front to back. After
// the first reader has it all, any further open gets an empty stream (so
// reading an input twice fails at once instead of waiting for a writer).
class FifoServer {
 public:
  FifoServer(std::string path, std::string bytes) : path_(std::move(path)) {
    std::signal(SIGPIPE, SIG_IGN);  // a reader that gives up is an error to see, not a kill
    if (mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_);
    thread_ = std::thread([this, b = std::move(bytes)] { serve(b); });
  }
  ~FifoServer() {
    stop_ = true;
    thread_.join();
    fs::remove(path_);
  }
  const std::string& path() const { return path_; }

 private:
  void serve(const std::string& b) {
    const int fd = open(path_.c_str(), O_WRONLY);  // waits for the reader
    if (fd < 0) return;
    for (size_t done = 0; done < b.size();) {
      const ssize_t n = write(fd, b.data() + done, b.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
    while (!stop_) {  // a second reader: an empty stream
      const int again = open(path_.c_str(), O_WRONLY | O_NONBLOCK);
      if (again >= 0) close(again);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  std::string path_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(ReplayInputs, AFifoIsReadOnceLikeAFile) {
  std::vector<Frame> frames;
  for (int i = 0; i < 3000; ++i)  // more than the reader buffers at once
    frames.push_back({kT0 + uint64_t(i) * 100, roce(0, 0x0a020000 + i % 17, uint16_t(i), 200)});
  const std::string file = write_pcap("in.pcap", frames);
  run({{0, file}}, (dir_ / "from-file").string());
  {
    FifoServer fifo((dir_ / "in.fifo").string(), slurp(file));
    ReplayRun e(SwitchConfig::build(test::default_params()), 8191);
    try {
      e.run({{0, fifo.path()}}, (dir_ / "from-fifo").string());
    } catch (const ReplayError& err) {
      FAIL() << err.what();
    }
  }
  for (const auto& name : names_in(dir_ / "from-file")) {  // run.json names the input
    if (name != "run.json") {
      EXPECT_EQ(slurp(dir_ / "from-fifo" / name), slurp(dir_ / "from-file" / name)) << name;
    }
  }
}

TEST_F(ReplayInputs, ADirectoryInTheWayOfAnOutputLeavesTheFolderAsItWas) {
  const std::string in = write_pcap("in.pcap", {{kT0, roce(0, 0x0a000302, 1, 100)}});
  // Whichever output the folder's order moves first, one of the two runs
  // has moved some outputs before it meets the blocked one.
  for (const std::string blocked : {"port3.pcap", "counters.json"}) {
    SCOPED_TRACE(blocked);
    const fs::path out = dir_ / ("out-" + blocked);
    fs::create_directories(out / blocked);
    std::ofstream(out / "port0.pcap") << "old port0";
    std::ofstream(out / "notes.txt") << "mine";
    const std::string msg = failure({{0, in}}, out);
    EXPECT_NE(msg.find((out / blocked).string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
    EXPECT_EQ(names_in(out), (std::set<std::string>{"port0.pcap", "notes.txt", blocked}));
    EXPECT_EQ(slurp(out / "port0.pcap"), "old port0");
    EXPECT_TRUE(fs::is_empty(out / blocked));
  }
}

TEST_F(ReplayInputs, AFailedRunRemovesTheFoldersItCreated) {
  const std::string good = write_pcap("good.pcap", {{kT0, roce(0, 0x0a000102, 1, 10)}});
  const std::string bytes = slurp(good);
  {
    std::ofstream f(dir_ / "cut.pcap", std::ios::binary);
    f << bytes << bytes.substr(24, 30);  // a record cut short, found mid-run
  }
  const std::string cut = (dir_ / "cut.pcap").string();
  failure({{0, cut}}, dir_ / "new" / "a" / "b");
  EXPECT_FALSE(fs::exists(dir_ / "new"));
  // A folder that was there stays, as it was.
  fs::create_directories(dir_ / "kept");
  failure({{0, cut}}, dir_ / "kept" / "out");
  EXPECT_TRUE(fs::exists(dir_ / "kept"));
  EXPECT_TRUE(fs::is_empty(dir_ / "kept"));
}

}  // namespace
}  // namespace rocelb
