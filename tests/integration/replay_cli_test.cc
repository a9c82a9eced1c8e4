// rocelb-dp replay as a user runs it: outputs, counters.json schema, exit
// codes and one-line errors for bad input, what tshark sees on the wire,
// stdin/pipe/FIFO inputs, an output in the way, memory under a large backlog.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/pcap_file.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::run_command;

constexpr uint64_t kT0 = 1'767'225'600'000'000'000ull;

class ReplayCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-cli-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // 32 RoCEv2 QPs from host 0 to remote hosts, plus one IPv6 and one to host 3.
  std::string host0_pcap() {
    const std::string path = (dir_ / "in0.pcap").string();
    PcapWriter w(path);
    uint64_t t = kT0;
    for (int i = 0; i < 32; ++i) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, 0};
      s.src_mac = {0x02, 0, 0, 0, 1, 0};
      s.src_ip = ipv4_bytes(10, 0, 0, 2);
      s.dst_ip = ipv4_bytes(10, 2, 0, static_cast<uint8_t>(i + 1));
      s.dscp = 26;
      s.ecn = 2;
      s.sport = static_cast<uint16_t>(49152 + i);
      s.dest_qp = 0x100 + i;
      s.psn = static_cast<uint32_t>(i);
      s.opcode = kRoceOpRcWriteOnly;
      s.payload_len = 1024;
      auto f = build_frame(s);
      w.write(t, f.data(), static_cast<uint32_t>(f.size()));
      t += 100;
    }
    FrameSpec v6;
    v6.payload = FramePayload::kIpv6;
    v6.dst_mac = {0x02, 0, 0, 0, 0, 0};
    v6.src_ip = ipv6_bytes({0xfd00, 0, 0, 0, 0, 0, 0, 2});
    v6.dst_ip = ipv6_bytes({0xfd00, 0, 3, 0, 0, 0, 0, 2});
    v6.dscp = 26;
    v6.payload_len = 256;
    auto f = build_frame(v6);
    w.write(t, f.data(), static_cast<uint32_t>(f.size()));
    w.close();
    return path;
  }
  std::string replay(const std::string& args) {
    return bin("dataplane/rocelb-dp") + " replay " + args;
  }
  // A pcap of one frame from host `port` to host 3 at `ts_ns`.
  std::string one_frame_pcap(const std::string& name, uint64_t ts_ns, uint8_t port) {
    const std::string path = (dir_ / name).string();
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, port};
    s.src_ip = ipv4_bytes(10, 0, port, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.payload_len = 100;
    const auto f = build_frame(s);
    PcapWriter w(path);
    w.write(ts_ns, f.data(), static_cast<uint32_t>(f.size()));
    w.close();
    return path;
  }
  // Every file of folder `a` is in `b`, byte for byte, and nothing else.
  static void expect_same_outputs(const fs::path& a, const fs::path& b) {
    std::set<std::string> na, nb;
    for (const auto& e : fs::directory_iterator(a)) na.insert(e.path().filename().string());
    for (const auto& e : fs::directory_iterator(b)) nb.insert(e.path().filename().string());
    EXPECT_EQ(na, nb);
    for (const auto& n : na) {  // run.json names the inputs, which differ by design
      if (n != "run.json") {
        EXPECT_EQ(test::read_file(a / n), test::read_file(b / n)) << n;
      }
    }
  }

  fs::path dir_;
};

TEST_F(ReplayCli, WritesEveryPortPcapAndCountersJson) {
  const std::string in = host0_pcap();
  const auto r =
      run_command(replay("--in 0=" + in + " --out-dir " + (dir_ / "out").string()), dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int p = 0; p < 8; ++p)
    EXPECT_TRUE(fs::exists(dir_ / "out" / ("port" + std::to_string(p) + ".pcap"))) << p;
  const auto j = nlohmann::json::parse(test::read_file(dir_ / "out" / "counters.json"));
  EXPECT_EQ(j["schema"], "rocelb.counters.v1");
  EXPECT_EQ(j["ports"][0]["rx_packets"], 33);
  EXPECT_EQ(j["ports"][0]["rx_rocev2"], 33);
  EXPECT_EQ(j["ports"][3]["tx_packets"], 1);
  uint64_t up = 0;
  for (int p = 4; p < 8; ++p) up += j["ports"][p]["tx_packets"].get<uint64_t>();
  EXPECT_EQ(up, 32u);
  uint64_t member_pkts = 0;
  for (const auto& m : j["groups"][0]["members"]) member_pkts += m["packets"].get<uint64_t>();
  EXPECT_EQ(member_pkts, 32u);
  EXPECT_EQ(j["totals"]["conserved"], true);
  // The console table names the ports and the uplink shares.
  EXPECT_NE(r.out.find("spine0"), std::string::npos);
  EXPECT_NE(r.out.find("group uplinks (fixed)"), std::string::npos);
  EXPECT_NE(r.out.find("balanced"), std::string::npos);
}

TEST_F(ReplayCli, BadInputExitsTwoWithOneLineAndWritesNothing) {
  const std::string in = host0_pcap();
  const std::string out = (dir_ / "out").string();
  {
    std::ofstream f(dir_ / "bad.yaml");
    f << "ports:\n  - {id: 0, speed: 100G, mac: 02:00:00:00:00:00}\nroutes:\n"
         "  - {prefix: 10.0.0.0/33, port: 0}\n";
  }
  {
    std::ofstream f(dir_ / "text.pcap");
    f << "hello";
  }
  // A valid header followed by zeros: zero-length records at time 0.
  {
    const std::string head = test::read_file(in).substr(0, 24);
    std::ofstream f(dir_ / "zeros.pcap", std::ios::binary);
    f << head << std::string(16 << 20, '\0');
  }
  const std::string early = one_frame_pcap("early.pcap", 1'000'000'000, 1);  // 1970
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--in 0=" + in + " --set groups.uplinks.mode=magic", "groups.uplinks.mode"},
      {"--in 0=" + in + " --set nosuchkey=1", "nosuchkey: unknown key"},
      {"--in 0=" + in + " --config " + (dir_ / "bad.yaml").string(),
       "routes[0].prefix: \"10.0.0.0/33\": prefix length must be 0..32"},
      {"--in 9=" + in, "port 9 is not in the config"},
      {"--in x=" + in, "is not a port id"},
      {"--in 0=" + (dir_ / "nope.pcap").string(), "nope.pcap"},
      {"--in 0=" + (dir_ / "text.pcap").string(), "text.pcap"},
      {"--config " + (dir_ / "missing.yaml").string() + " --in 0=" + in, "missing.yaml"},
      {"--in 0=" + (dir_ / "zeros.pcap").string(),
       "--in 0=" + (dir_ / "zeros.pcap").string() + ": record at byte offset 24 has caplen 0"},
      {"--in 1=" + early + " --in 0=" + in, "a replay spans at most 100 days"},
      {"--in 0=- --in 1=-", "--in 1=-: stdin is already the input of --in 0=-"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = run_command(replay(c.args + " --out-dir " + out), dir_);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST_F(ReplayCli, TsharkDissectsWhatTheSwitchSends) {
  if (access("/usr/bin/tshark", X_OK) != 0) GTEST_SKIP() << "tshark not installed";
  const std::string in = host0_pcap();
  ASSERT_EQ(
      run_command(replay("--quiet --in 0=" + in + " --out-dir " + (dir_ / "out").string()), dir_)
          .exit_code,
      0);
  // Every uplink frame: Ethernet from the switch port's MAC to the spine's,
  // IPv4 TTL 63 with a good checksum, UDP 4791, an InfiniBand BTH.
  int frames = 0;
  for (int p = 4; p < 8; ++p) {
    const auto r = run_command(
        "tshark -r " + (dir_ / "out" / ("port" + std::to_string(p) + ".pcap")).string() +
            " -o ip.check_checksum:TRUE -d udp.port==4791,infiniband -T fields -E separator=, "
            "-e eth.src -e eth.dst -e ip.ttl -e ip.checksum.status -e ip.dsfield.dscp "
            "-e udp.dstport -e infiniband.bth.opcode",
        dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    char expect[128];
    std::snprintf(expect, sizeof expect, "02:00:00:00:00:%02x,02:00:00:00:02:%02x,63,1,26,4791,10",
                  p, p);
    while (std::getline(lines, line)) {
      ++frames;
      EXPECT_EQ(line, expect);
    }
  }
  EXPECT_EQ(frames, 32);
  // The IPv6 frame to host 3: hop limit 63.
  const auto r6 = run_command(
      "tshark -r " + (dir_ / "out" / "port3.pcap").string() + " -T fields -e ipv6.hlim -e eth.dst",
      dir_);
  EXPECT_EQ(r6.out, "63\t02:00:00:00:01:03\n");
}

// Inputs read once, front to back: stdin, a pipe from process substitution,
// a FIFO. Each gives what the same file gives.
TEST_F(ReplayCli, StdinPipesAndFifosAreInputs) {
  const std::string in = host0_pcap();
  const std::string rest = " --quiet --in 3=" + one_frame_pcap("in3.pcap", kT0 + 50, 3);
  ASSERT_EQ(
      run_command(replay("--in 0=" + in + rest + " --out-dir " + (dir_ / "file").string()), dir_)
          .exit_code,
      0);
  // Before: each input was opened twice, and a stream has no second start.
  const std::string dp = "timeout 60 " + replay("");
  struct Case {
    std::string name, command;
  };
  const std::string fifo = (dir_ / "in.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<Case> cases = {
      {"stdin", "{ cat " + in + " | " + dp + "--in 0=-" + rest + " --out-dir " +
                    (dir_ / "stdin").string() + "; }"},
      {"pipe", "bash -c '" + dp + "--in 0=<(cat " + in + ")" + rest + " --out-dir " +
                   (dir_ / "pipe").string() + "'"},
      {"fifo", "{ timeout 60 sh -c 'cat " + in + " > " + fifo + "' & " + dp + "--in 0=" + fifo +
                   rest + " --out-dir " + (dir_ / "fifo").string() + "; wait; }"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = run_command(c.command, dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_same_outputs(dir_ / "file", dir_ / c.name);
  }
}

TEST_F(ReplayCli, ADirectoryInTheWayExitsTwoAndLandsNothing) {
  const std::string in = host0_pcap();
  const fs::path out = dir_ / "out";
  fs::create_directories(out / "port3.pcap");
  std::ofstream(out / "counters.json") << "{}";
  const auto r = run_command(replay("--in 0=" + in + " --out-dir " + out.string()), dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "rocelb-dp: " + (out / "port3.pcap").string() +
                       " is a directory: an output replaces a file, never a directory; nothing "
                       "was written\n");
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"counters.json", "port3.pcap"}));
  EXPECT_TRUE(test::read_file(out / "counters.json") == "{}") << "counters.json was replaced";
}

// Peak RSS of every child waited for so far, in KiB.
long children_max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_maxrss;
}

TEST_F(ReplayCli, MemoryStaysBoundedWhateverTheBacklog) {
  // 96 MiB of jumbo frames stamped at one instant: all backlog at once.
  const std::string one = one_frame_pcap("one.pcap", kT0, 0);
  const std::string big = (dir_ / "big.pcap").string();
  {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.payload_len = 8900;
    const auto f = build_frame(s);
    PcapWriter w(big);
    for (size_t bytes = 0; bytes < (96u << 20); bytes += f.size())
      w.write(kT0, f.data(), static_cast<uint32_t>(f.size()));
    w.close();
  }
  ASSERT_EQ(
      run_command(replay("--quiet --in 0=" + one + " --out-dir " + (dir_ / "a").string()), dir_)
          .exit_code,
      0);
  const long base = children_max_rss_kib();
  const auto r =
      run_command(replay("--quiet --in 0=" + big + " --out-dir " + (dir_ / "b").string()), dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const long grown = children_max_rss_kib() - base;
  EXPECT_LT(grown, 40 << 10) << grown << " KiB more than a one-frame run";
}

}  // namespace
}  // namespace rocelb
