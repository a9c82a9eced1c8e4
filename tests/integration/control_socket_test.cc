// The control socket of a live `rocelb-dp run`: every verb against the real
// switch while RoCE traffic flows, 1,000 config changes under that traffic
// with nothing lost and no mbuf leaked, refused writes that change nothing,
// and clients that hoard connections or never read their replies.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "control/control_client.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/pcap_file.h"
#include "live_run.h"
#include "run_command.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A raw connection to the socket (-1 when it fails).
int raw_connect(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One request on a raw connection; true when an "ok":true line comes back.
bool raw_ok(int fd, const std::string& request_line) {
  if (::send(fd, request_line.data(), request_line.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request_line.size()))
    return false;
  std::string line;
  char c;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0 || ::recv(fd, &c, 1, 0) != 1) return false;
    if (c == '\n') return line.find("\"ok\":true") != std::string::npos;
    line += c;
  }
}

// Sends `s` without ever reading, until all is sent or nothing moves for
// 300 ms (the switch stopped reading).
void push_without_reading(int fd, const std::string& s) {
  for (size_t off = 0; off < s.size();) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    if ((n < 0 && errno != EAGAIN) || ::poll(&p, 1, 300) <= 0) return;
  }
}

// Resident memory of a process, in bytes (0 when unknown).
uint64_t rss_bytes(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

class ControlSocket : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelb-ctlsock-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Port 0 replays 64 RoCE frames to remote hosts forever (ECMP over the
    // uplinks); every other port sends nothing and drops what it is given.
    const std::string in = (dir_ / "in0.pcap").string();
    PcapWriter w(in);
    for (int i = 0; i < 64; ++i) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, 0};
      s.src_ip = ipv4_bytes(10, 0, 0, 2);
      s.dst_ip = ipv4_bytes(10, 2, static_cast<uint8_t>(i % 4), 9);
      s.dscp = 26;
      s.sport = static_cast<uint16_t>(49152 + i);
      s.payload_len = 256;
      const auto f = build_frame(s);
      w.write(1'767'225'600'000'000'000ull + i * 1000, f.data(), static_cast<uint32_t>(f.size()));
    }
    w.close();
    std::string sets = " --set 'ports[0].device=net_pcap0,rx_pcap=" + in + ",infinite_rx=1'";
    for (int p = 1; p < 8; ++p)
      sets += " --set 'ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p) +
              ",no-rx=1'";
    run_ = std::make_unique<test::LiveRun>(
        dir_, sets + " --counters-out " + (dir_ / "counters.json").string());
    sock_ = run_->sock().string();
    ASSERT_TRUE(run_->wait_ready()) << run_->err();
  }

  // Stops the switch; returns its exit code.
  int stop() { return run_->stop().exit_code; }

  void TearDown() override {
    run_.reset();  // killed if still running
    fs::remove_all(dir_);
  }

  json ok(ControlClient& c, json req) {
    const ControlReply r = c.request(std::move(req));
    EXPECT_TRUE(r.ok) << r.error;
    return r.result;
  }
  std::string refused(ControlClient& c, json req) {
    const ControlReply r = c.request(std::move(req));
    EXPECT_FALSE(r.ok) << r.result;
    return r.error;
  }

  fs::path dir_;
  std::string sock_;
  std::unique_ptr<test::LiveRun> run_;
};

TEST_F(ControlSocket, EveryVerbOnALiveSwitch) {
  ControlClient c(sock_);
  // Traffic flows.
  for (int i = 0; i < 100; ++i) {
    const json p = ok(c, {{"verb", "show"}, {"what", "ports"}});
    if (p["ports"][0]["rx_packets"].get<uint64_t>() > 1000) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const json ports = ok(c, {{"verb", "show"}, {"what", "ports"}});
  ASSERT_EQ(ports["ports"].size(), 8u);
  EXPECT_GT(ports["ports"][0]["rx_packets"].get<uint64_t>(), 1000u);
  EXPECT_EQ(ports["ports"][0]["device"].get<std::string>().rfind("net_pcap0", 0), 0u);
  EXPECT_EQ(ports["ports"][4]["admin_status"], "up");

  // Every show target answers with its documented top level.
  const std::pair<const char*, const char*> shows[] = {
      {"queues", "queues"},   {"pfc", "thresholds"},  {"ecn", "profiles"}, {"groups", "groups"},
      {"flowlets", "groups"}, {"counters", "totals"}, {"config", "yaml"},  {"metrics", "text"}};
  for (const auto& [what, key] : shows) {
    const json r = ok(c, {{"verb", "show"}, {"what", what}});
    EXPECT_TRUE(r.contains(key)) << what << ": " << r.dump().substr(0, 300);
  }
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "queues"}})["queues"].size(), 64u);
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "counters"}})["schema"], "rocelb.counters.v1");

  // set: a group's mode and knobs; flowlets appear for a flowlet mode.
  json r = ok(c, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "flowlet_random"}});
  const uint64_t gen = r["generation"];
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.idle_time"}, {"value", "500ms"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  json g = ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0];
  EXPECT_EQ(g["mode"], "flowlet_random");
  EXPECT_EQ(g["knobs"]["idle_time_ns"], 500'000'000u);
  const json fl = ok(c, {{"verb", "show"}, {"what", "flowlets"}})["groups"][0];
  EXPECT_TRUE(fl["uses_flowlets"].get<bool>());
  EXPECT_GT(fl["active"].get<uint64_t>(), 0u);
  EXPECT_LE(fl["entries"].size(), 64u);

  // WRED, PFC thresholds and pfc_enable, the watchdog, a port's speed.
  ok(c, {{"verb", "set"}, {"key", "qos.wred.3.green_min_threshold"}, {"value", "100KB"}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "ecn"}})["profiles"][0]["green_min_threshold_bytes"],
            100'000u);
  // xon must stay below xoff: the loader checks the pair after each set.
  EXPECT_NE(refused(c, {{"verb", "set"}, {"key", "qos.pfc.xoff"}, {"value", "1MB"}})
                .find("qos.pfc.xon: \"1.2MB\": xon must be below xoff (1MB)"),
            std::string::npos);
  ok(c, {{"verb", "set"}, {"key", "qos.pfc.xon"}, {"value", "800KB"}});
  ok(c, {{"verb", "set"}, {"key", "qos.pfc.xoff"}, {"value", "1MB"}});
  ok(c, {{"verb", "set"}, {"key", "qos.pfc_enable"}, {"value", json::array({3, 4})}});
  json pfc = ok(c, {{"verb", "show"}, {"what", "pfc"}});
  EXPECT_EQ(pfc["pfc_enable"], json::array({3, 4}));
  EXPECT_EQ(pfc["thresholds"]["xoff_bytes"], 1'000'000u);
  EXPECT_EQ(pfc["thresholds"]["xoff_now_bytes"], 1'000'000u);
  EXPECT_TRUE(pfc["ports"][0]["priorities"][4]["lossless"].get<bool>());
  ok(c, {{"verb", "set"}, {"key", "qos.pfc_watchdog.action"}, {"value", "alert"}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "pfc"}})["watchdog"]["action"], "alert");
  ok(c, {{"verb", "set"}, {"key", "ports[5].speed"}, {"value", "40G"}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"][5]["speed_bps"], 40'000'000'000u);
  // Routes and neighbors.
  ok(c, {{"verb", "set"}, {"key", "neighbors[4].mac"}, {"value", "02:aa:00:00:00:04"}});

  // A refused set changes nothing and says why, with the key path.
  const uint64_t before = ok(c, {{"verb", "show"}, {"what", "config"}})["generation"];
  const std::string why =
      refused(c, {{"verb", "set"}, {"key", "qos.wred.3.green_min_threshold"}, {"value", "2MB"}});
  EXPECT_NE(why.find("qos.wred.3.green_max_threshold"), std::string::npos) << why;
  EXPECT_NE(refused(c, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", 7}})
                .find("groups.uplinks.mode"),
            std::string::npos);
  EXPECT_NE(refused(c, {{"verb", "set"}, {"key", "ports[0].device"}, {"value", "net_null9"}})
                .find("ports[0].device changed"),
            std::string::npos);
  const json cfg = ok(c, {{"verb", "show"}, {"what", "config"}});
  EXPECT_EQ(cfg["generation"], before);
  EXPECT_GT(before, gen);

  // apply: the effective config as a whole file goes back in unchanged.
  const std::string yaml = cfg["yaml"];
  r = ok(c, {{"verb", "apply"}, {"config", yaml}});
  EXPECT_EQ(r["generation"], before + 1);
  g = ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0];
  EXPECT_EQ(g["mode"], "flowlet_random");
  const std::string bad_apply = refused(c, {{"verb", "apply"}, {"config", "ports: 7\n"}});
  EXPECT_NE(bad_apply.find("control apply: ports"), std::string::npos) << bad_apply;

  // clear counters: show starts again from zero; metrics never do.
  const uint64_t rx_before = ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"][0]["rx_packets"];
  ok(c, {{"verb", "clear"}, {"what", "counters"}});
  const uint64_t rx_after = ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"][0]["rx_packets"];
  EXPECT_LT(rx_after, rx_before);
  const std::string metrics = ok(c, {{"verb", "show"}, {"what", "metrics"}})["text"];
  const std::string line = "rocelb_port_rx_packets_total{port=\"0\"} ";
  const auto at = metrics.find(line);
  ASSERT_NE(at, std::string::npos);
  EXPECT_GE(std::stoull(metrics.substr(at + line.size())), rx_before);

  c.close();
  EXPECT_EQ(stop(), 0) << run_->err();
  const json counters = json::parse(test::read_file(dir_ / "counters.json"));
  EXPECT_EQ(counters["totals"]["conserved"], true);
  EXPECT_EQ(counters["ports"][0]["drops_total"], 0u);
  EXPECT_NE(test::read_file(dir_ / "out").find("mbufs still in use: 0"), std::string::npos);
}

TEST_F(ControlSocket, AThousandChangesUnderTrafficLoseNothing) {
  ControlClient c(sock_);
  const char* modes[] = {"fixed",
                         "wcmp",
                         "resilient",
                         "flowlet_random",
                         "flowlet_quality",
                         "per_packet_quality",
                         "per_packet_random",
                         "drill"};
  uint64_t last_gen = 0;
  for (int i = 0; i < 1000; ++i) {
    json req;
    switch (i % 5) {
      case 0:
        req = {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", modes[(i / 5) % 8]}};
        break;
      case 1:
        req = {{"verb", "set"},
               {"key", "qos.wred.3.green_min_threshold"},
               {"value", std::to_string(100 + i % 7 * 10) + "KB"}};
        break;
      case 2:
        req = {{"verb", "set"}, {"key", "qos.pfc.xoff"}, {"value", i % 2 ? "1.6MB" : "1.4MB"}};
        break;
      case 3:
        req = {{"verb", "set"}, {"key", "ports[6].speed"}, {"value", i % 2 ? "100G" : "50G"}};
        break;
      default:
        req = {{"verb", "set"},
               {"key", "qos.pfc_watchdog.detection_time"},
               {"value", i % 2 ? "200ms" : "100ms"}};
    }
    const ControlReply r = c.request(req);
    ASSERT_TRUE(r.ok) << i << ": " << r.error;
    ASSERT_GT(r.result["generation"].get<uint64_t>(), last_gen);
    last_gen = r.result["generation"];
  }
  const json cfg = ok(c, {{"verb", "show"}, {"what", "config"}});
  EXPECT_EQ(cfg["generation"], last_gen);
  // Each key once: a key set again replaces its earlier value.
  EXPECT_EQ(cfg["overrides"].size(), 8u + 1 + 5);
  const uint64_t rx = ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"][0]["rx_packets"];
  EXPECT_GT(rx, 10'000u);
  c.close();
  EXPECT_EQ(stop(), 0) << run_->err();
  const json counters = json::parse(test::read_file(dir_ / "counters.json"));
  EXPECT_EQ(counters["totals"]["conserved"], true);
  EXPECT_EQ(counters["totals"]["dropped_packets"], 0u) << counters["ports"][0]["drops"].dump();
  EXPECT_EQ(counters["totals"]["tx_packets"].get<uint64_t>() +
                counters["totals"]["queued_packets"].get<uint64_t>(),
            counters["totals"]["rx_packets"].get<uint64_t>());
  EXPECT_NE(test::read_file(dir_ / "out").find("mbufs still in use: 0"), std::string::npos)
      << test::read_file(dir_ / "out");
}

// One uid (root, here) holds at most control.max_clients_per_uid (default
// max_clients - 1 = 15) connections: the 16th slot stays for someone else,
// and rocelbctl prints the switch's reason instead of "Broken pipe".
TEST_F(ControlSocket, IdleConnectionsOfOneUidCannotFillTheSocket) {
  const std::string show_ports = R"({"verb":"show","what":"ports"})"
                                 "\n";
  std::vector<int> held;
  for (int i = 0; i < 15; ++i) {
    held.push_back(raw_connect(sock_));
    ASSERT_GE(held.back(), 0) << i;
    ASSERT_TRUE(raw_ok(held.back(), show_ports)) << i;
  }
  const test::CommandResult r =
      test::run_command(test::bin("tools/rocelbctl") + " --socket " + sock_ + " show ports", dir_);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "rocelbctl: the switch at " + sock_ +
                       " refused this client: too many clients of uid " +
                       std::to_string(geteuid()) + " (control.max_clients_per_uid is 15)\n");
  ControlClient c(sock_);
  EXPECT_THROW(c.show("ports"), ControlRefusedError);
  // One connection fewer: served again.
  ::close(held.back());
  held.pop_back();
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    try {
      served = c.show("ports").ok;
    } catch (const ControlRefusedError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // not seen closed yet
    }
  }
  EXPECT_TRUE(served);
  for (int fd : held) ::close(fd);
}

// What one 64 KiB write of pipelined `show metrics` made the switch hold
// (266 MB before the bound), and more clients doing the same: the switch
// keeps one reply per client and serves the others meanwhile.
TEST_F(ControlSocket, ClientsThatNeverReadDoNotGrowTheSwitch) {
  ControlClient c(sock_);
  ok(c, {{"verb", "show"}, {"what", "metrics"}});  // warm: the first reply's memory
  const uint64_t before = rss_bytes(run_->pid());
  ASSERT_GT(before, 0u);
  std::string burst;
  while (burst.size() < 65536)
    burst += R"({"verb":"show","what":"metrics"})"
             "\n";
  std::vector<int> hogs;
  for (int i = 0; i < 8; ++i) {
    hogs.push_back(raw_connect(sock_));
    ASSERT_GE(hogs.back(), 0);
    push_without_reading(hogs.back(), burst);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ok(c, {{"verb", "show"}, {"what", "ports"}});  // still served
    const uint64_t now = rss_bytes(run_->pid());
    ASSERT_LT(now, before + (32u << 20))
        << "after " << i + 1 << " clients: " << before << " -> " << now << " bytes";
  }
  for (int fd : hogs) ::close(fd);
}

TEST_F(ControlSocket, ClientOfAMissingSocketSaysWhichAndWhy) {
  ControlClient c((dir_ / "nope.sock").string());
  try {
    c.request({{"verb", "show"}, {"what", "ports"}});
    FAIL();
  } catch (const ControlConnectError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "nope.sock").string() + ": No such file or directory");
  }
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// Mode bpf, live: the uplinks' policy swapped under traffic between the
// example policies (each swap a new epoch: the old program's flow state
// goes with it), a policy the validator refuses leaves the running one, and
// nothing is lost or leaked.
TEST_F(ControlSocket, BpfPolicySwapsUnderTrafficLoseNothing) {
  ControlClient c(sock_);
  ok(c, {{"verb", "set"},
         {"key", "groups.uplinks.bpf.program"},
         {"value", test::bin("lb/bpf/ecmp.o")}});
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  json g = ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0];
  EXPECT_EQ(g["mode"], "bpf");
  EXPECT_EQ(g["bpf"]["section"], "ecmp");
  EXPECT_EQ(g["bpf"]["run_by"], "jit");
  const char* policies[] = {"drill", "letflow", "qp_message_spray", "least_queue", "ecmp"};
  for (int i = 0; i < 50; ++i) {
    ok(c, {{"verb", "set"},
           {"key", "groups.uplinks.bpf.program"},
           {"value", test::bin(std::string("lb/bpf/") + policies[i % 5] + ".o")}});
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string why = refused(c, {{"verb", "set"},
                                      {"key", "groups.uplinks.bpf.program"},
                                      {"value", test::bin("tests/bpf/bad_loop.o")}});
  EXPECT_NE(why.find("groups.uplinks.bpf.program: "), std::string::npos) << why;
  EXPECT_NE(why.find("refused by the validator"), std::string::npos) << why;
  g = ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0];
  EXPECT_EQ(g["bpf"]["section"], "ecmp");  // the last one that loaded still runs
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const json ports = ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"];
  uint64_t uplinks = 0;
  for (int p = 4; p < 8; ++p) uplinks += ports[p]["tx_packets"].get<uint64_t>();
  EXPECT_GT(uplinks, 10'000u);
  c.close();
  EXPECT_EQ(stop(), 0) << run_->err();
  const json counters = json::parse(test::read_file(dir_ / "counters.json"));
  EXPECT_EQ(counters["totals"]["conserved"], true);
  EXPECT_EQ(counters["totals"]["dropped_packets"], 0u) << counters["ports"][0]["drops"].dump();
  EXPECT_NE(test::read_file(dir_ / "out").find("mbufs still in use: 0"), std::string::npos)
      << test::read_file(dir_ / "out");
}

// The uplinks' transmitted packets now, ports 4..7.
std::array<uint64_t, 4> uplink_tx(const json& ports) {
  std::array<uint64_t, 4> out{};
  for (int p = 0; p < 4; ++p) out[p] = ports[4 + p]["tx_packets"].get<uint64_t>();
  return out;
}

// What the uplinks sent during `ms`: ECMP spreads it, first_up puts it all
// on port 4.
class UplinkShares {
 public:
  UplinkShares(std::function<json()> ports) : ports_(std::move(ports)) {}
  // Port 4's share of what the uplinks sent in the next `ms`.
  double first_share(int ms = 300) {
    const auto a = uplink_tx(ports_());
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const auto b = uplink_tx(ports_());
    uint64_t all = 0;
    for (int p = 0; p < 4; ++p) all += b[p] - a[p];
    return all ? double(b[0] - a[0]) / double(all) : -1;
  }

 private:
  std::function<json()> ports_;
};

// A live policy swap is a real swap: what `show groups` names is what
// decides, a policy is read when it is set (not at some later unrelated
// write), and a file replaced on disk changes nothing until it is set
// again.
TEST_F(ControlSocket, APolicySetIsThePolicyThatRuns) {
  ControlClient c(sock_);
  UplinkShares shares([&] { return ok(c, {{"verb", "show"}, {"what", "ports"}})["ports"]; });
  const std::string mine = (dir_ / "policy.o").string();
  fs::copy_file(test::bin("lb/bpf/ecmp.o"), mine);
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", mine}});
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  EXPECT_LT(shares.first_share(), 0.5) << "ECMP spreads 64 flows over 4 uplinks";
  ok(c, {{"verb", "set"},
         {"key", "groups.uplinks.bpf.program"},
         {"value", test::bin("tests/bpf/first_up.o")}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"],
            "first_up");
  shares.first_share(50);  // frames the old policy queued drain
  EXPECT_GT(shares.first_share(), 0.99) << "the new program must be the one deciding";

  // Back to our copy of ecmp, then the file is replaced on disk: first by
  // garbage (an unrelated write still applies), then by another valid
  // policy (it does not run, and show still names ecmp).
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", mine}});
  std::ofstream(mine, std::ios::trunc) << "not a policy any more";
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.idle_time"}, {"value", "20us"}});
  fs::copy_file(test::bin("tests/bpf/first_up.o"), mine, fs::copy_options::overwrite_existing);
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.idle_time"}, {"value", "30us"}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"], "ecmp");
  shares.first_share(50);
  EXPECT_LT(shares.first_share(), 0.5) << "the loaded ecmp still runs";
  // Set again, the same path is read again: now first_up runs.
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", mine}});
  EXPECT_EQ(ok(c, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"],
            "first_up");
  shares.first_share(50);
  EXPECT_GT(shares.first_share(), 0.99);
  c.close();
  EXPECT_EQ(stop(), 0) << run_->err();
}

// A policy that would keep DPDK's validator busy for days, or a FIFO given
// as the program, is refused at once; the control socket keeps answering
// and SIGTERM stops the switch.
TEST_F(ControlSocket, NoPolicyCanFreezeTheControlPlane) {
  ControlClient c(sock_);
  ok(c, {{"verb", "set"},
         {"key", "groups.uplinks.bpf.program"},
         {"value", test::bin("lb/bpf/ecmp.o")}});
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  const auto t0 = std::chrono::steady_clock::now();
  const std::string bomb = test::bin("tests/bpf/bad_branches.o");
  std::string why = refused(c, {{"verb", "set"},
                                {"key", "groups.uplinks.bpf"},
                                {"value", json{{"program", bomb}, {"section", "branches40"}}}});
  // Blamed on the write that gave the value, with the rule and the knob.
  EXPECT_EQ(why.rfind("rocelbctl set groups.uplinks.bpf=", 0), 0u) << why;
  EXPECT_NE(why.find("over bpf.validation_steps 10000000"), std::string::npos) << why;
  const std::string fifo = (dir_ / "policy.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  why = refused(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", fifo}});
  EXPECT_NE(why.find("not a regular file (a FIFO)"), std::string::npos) << why;
  why =
      refused(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", "/dev/zero"}});
  EXPECT_NE(why.find("not a regular file (a character device)"), std::string::npos) << why;
  // Seconds would mean the validator ran: it must not have.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
  // Another client is served, the running policy is still ecmp.
  ControlClient c2(sock_);
  EXPECT_EQ(ok(c2, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"], "ecmp");
  c.close();
  c2.close();
  EXPECT_EQ(stop(), 0) << run_->err();
}

// A non-root member of the control group: files it names are opened with
// its rights (a root-only policy is refused with the system's reason and
// nothing of its content), and control.* is root's to change.
TEST_F(ControlSocket, AClientsFilesOpenWithItsRightsAndControlIsRoots) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const std::string secret = (dir_ / "root_only.o").string();
  fs::copy_file(test::bin("lb/bpf/ecmp.o"), secret);
  ::chmod(secret.c_str(), 0600);
  const std::string secret_text = (dir_ / "root_only.yaml").string();
  std::ofstream(secret_text) << "password: hunter2\n";
  ::chmod(secret_text.c_str(), 0600);
  const std::string open_policy = (dir_ / "shared.o").string();
  fs::copy_file(test::bin("tests/bpf/first_up.o"), open_policy);
  ::chmod(open_policy.c_str(), 0644);
  ::chmod(dir_.c_str(), 0755);
  {
    ControlClient root(sock_);
    ok(root, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", open_policy}});
    ok(root, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  }
  const std::string replies = (dir_ / "replies.jsonl").string();
  std::ofstream{replies};
  ::chmod(replies.c_str(), 0666);  // the child writes it as nobody
  // The child: uid/gid 65534 (nobody), a member of the socket's group (root's, gid 0).
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const gid_t groups[] = {0};
    if (::setgroups(1, groups) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
    std::ofstream out(replies);
    try {
      ControlClient c(sock_);
      const std::vector<json> reqs = {
          {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", secret}},
          {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", secret_text}},
          {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", open_policy}},
          {{"verb", "set"}, {"key", "control.group"}, {"value", "users"}},
          {{"verb", "set"}, {"key", "control.max_clients"}, {"value", 4}},
      };
      for (const json& q : reqs) {
        const ControlReply r = c.request(q);
        out << json{{"ok", r.ok}, {"error", r.error}}.dump() << "\n";
      }
    } catch (const std::exception& e) {
      out << json{{"ok", false}, {"error", std::string("client: ") + e.what()}}.dump() << "\n";
    }
    out.close();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(replies);
  std::vector<json> r;
  for (std::string line; std::getline(in, line);) r.push_back(json::parse(line));
  ASSERT_EQ(r.size(), 5u) << test::read_file(replies);
  EXPECT_FALSE(r[0]["ok"].get<bool>());
  EXPECT_NE(r[0]["error"].get<std::string>().find("Permission denied"), std::string::npos) << r[0];
  EXPECT_FALSE(r[1]["ok"].get<bool>());
  EXPECT_NE(r[1]["error"].get<std::string>().find("Permission denied"), std::string::npos) << r[1];
  EXPECT_EQ(r[1]["error"].get<std::string>().find("hunter2"), std::string::npos) << r[1];
  EXPECT_TRUE(r[2]["ok"].get<bool>()) << r[2];
  EXPECT_FALSE(r[3]["ok"].get<bool>());
  EXPECT_NE(r[3]["error"].get<std::string>().find("changing control.* needs root"),
            std::string::npos)
      << r[3];
  EXPECT_FALSE(r[4]["ok"].get<bool>());
  // Root may: the same file and the same key.
  ControlClient c(sock_);
  ok(c, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", secret}});
  ok(c, {{"verb", "set"}, {"key", "control.max_clients"}, {"value", 8}});
  c.close();
  EXPECT_EQ(stop(), 0) << run_->err();
}

// A client's groups are those it connected with (the socket's record of
// them), not those of whatever process holds its pid when the request is
// handled: a member of the control group connects and hands the connection
// to its child, exits, and another process with other groups takes its pid.
// The child's request must still be opened with the member's groups only.
TEST_F(ControlSocket, AClientsGroupsAreThoseItConnectedWith) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  if (::access("/proc/sys/kernel/ns_last_pid", W_OK) != 0)
    GTEST_SKIP() << "needs /proc/sys/kernel/ns_last_pid to give a process a chosen pid";
  constexpr gid_t kOtherGroup = 4242;  // only the pid's new holder is in it
  const std::string group_only = (dir_ / "group_only.o").string();
  fs::copy_file(test::bin("tests/bpf/first_up.o"), group_only);
  ASSERT_EQ(::chown(group_only.c_str(), 0, kOtherGroup), 0);
  ASSERT_EQ(::chmod(group_only.c_str(), 0640), 0);
  ::chmod(dir_.c_str(), 0755);
  {
    ControlClient root(sock_);
    ok(root, {{"verb", "set"},
              {"key", "groups.uplinks.bpf.program"},
              {"value", test::bin("lb/bpf/ecmp.o")}});
    ok(root, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  }
  const std::string reply_file = (dir_ / "reply.json").string();
  std::ofstream{reply_file};
  ::chmod(reply_file.c_str(), 0666);  // the child writes it as nobody
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  // A: nobody, a member through group 0 (the socket's); connects, forks B
  // with the connection, exits.
  const pid_t a = ::fork();
  ASSERT_GE(a, 0);
  if (a == 0) {
    const gid_t groups[] = {0};
    if (::setgroups(1, groups) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
    const int fd = raw_connect(sock_);
    if (fd < 0) _exit(4);
    if (::fork() == 0) {  // B
      char c;
      if (::read(go[0], &c, 1) != 1) _exit(5);
      const std::string req =
          json{{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", group_only}}
              .dump() +
          "\n";
      if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != ssize_t(req.size())) _exit(6);
      std::string line;
      for (char ch; ::recv(fd, &ch, 1, 0) == 1 && ch != '\n';) line += ch;
      std::ofstream(reply_file) << line << "\n";
      _exit(0);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(a, &status, 0), a);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // C takes A's pid, with kOtherGroup among its groups (other processes may
  // take the pid first: try again).
  pid_t c = -1;
  for (int attempt = 0; attempt < 50 && c != a; ++attempt) {
    if (c > 0) {
      ::kill(c, SIGKILL);
      ::waitpid(c, nullptr, 0);
    }
    std::ofstream("/proc/sys/kernel/ns_last_pid") << (a - 1);
    c = ::fork();
    ASSERT_GE(c, 0);
    if (c == 0) {
      const gid_t groups[] = {kOtherGroup};
      if (::setgroups(1, groups) != 0) _exit(3);
      ::pause();
      _exit(0);
    }
  }
  struct Reap {
    pid_t pid;
    ~Reap() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  } reap_c{c};
  if (c != a) GTEST_SKIP() << "another process kept taking pid " << a;
  // C's groups are in place before B speaks.
  ASSERT_TRUE(run_->wait_until(
      [&] {
        std::ifstream st("/proc/" + std::to_string(c) + "/status");
        for (std::string l; std::getline(st, l);)
          if (l.rfind("Groups:", 0) == 0) return l.find(std::to_string(kOtherGroup)) != l.npos;
        return false;
      },
      10, 10));
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  ASSERT_TRUE(run_->wait_until([&] { return !test::read_file(reply_file).empty(); }, 30));
  const json r = json::parse(test::read_file(reply_file));
  EXPECT_FALSE(r["ok"].get<bool>()) << r;
  EXPECT_NE(r.value("error", "").find("Permission denied"), std::string::npos) << r;
  ControlClient root(sock_);
  EXPECT_EQ(ok(root, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"],
            "ecmp");
  root.close();
  ::close(go[0]);
  ::close(go[1]);
  EXPECT_EQ(stop(), 0) << run_->err();
}

// A policy a non-root client names is read when it names it, with its
// rights, even while its group is in another mode: a later write by root
// (mode bpf, bpf.jit) uses what was read then, and never opens that path
// with root's rights. Otherwise a member names a root-only policy (or a
// link it later points there) and root's next `set groups.<g>.mode bpf`
// loads and runs it.
TEST_F(ControlSocket, APolicyIsReadWithTheRightsOfWhoeverNamedIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const fs::path vault = dir_ / "vault";  // root's only
  fs::create_directories(vault);
  ::chmod(vault.c_str(), 0700);
  const std::string secret = (vault / "secret.o").string();
  fs::copy_file(test::bin("lb/bpf/ecmp.o"), secret);
  const std::string own = (dir_ / "own.o").string();  // the member's, readable
  fs::copy_file(test::bin("tests/bpf/first_up.o"), own);
  ::chmod(own.c_str(), 0644);
  const std::string link = (dir_ / "policy.o").string();
  fs::create_symlink(own, link);
  ::chmod(dir_.c_str(), 0777);  // the member may repoint the link
  const std::string replies = (dir_ / "replies.jsonl").string();
  std::ofstream{replies};
  ::chmod(replies.c_str(), 0666);
  auto as_member = [&](const std::vector<json>& reqs) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const gid_t groups[] = {0};
      if (::setgroups(1, groups) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
      std::ofstream out(replies, std::ios::app);
      try {
        ControlClient c(sock_);
        for (const json& q : reqs) {
          const ControlReply r = c.request(q);
          out << json{{"ok", r.ok}, {"error", r.error}}.dump() << "\n";
        }
      } catch (const std::exception& e) {
        out << json{{"ok", false}, {"error", std::string("client: ") + e.what()}}.dump() << "\n";
      }
      out.close();  // _exit runs no destructor
      _exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    std::vector<json> r;
    std::ifstream in(replies);
    for (std::string line; std::getline(in, line);) r.push_back(json::parse(line));
    std::ofstream(replies, std::ios::trunc);
    return r;
  };
  // The group is in mode fixed: nothing would load the policy yet.
  auto r = as_member({{{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", secret}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0]["ok"].get<bool>()) << "a root-only policy named in mode fixed";
  EXPECT_NE(r[0]["error"].get<std::string>().find("Permission denied"), std::string::npos) << r[0];
  // Its own policy through a link it then points at root's policy.
  r = as_member({{{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", link}}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0]["ok"].get<bool>()) << r[0];
  fs::remove(link);
  fs::create_symlink(secret, link);
  ControlClient root(sock_);
  ok(root, {{"verb", "set"}, {"key", "groups.uplinks.mode"}, {"value", "bpf"}});
  auto section = [&] {
    return ok(root, {{"verb", "show"}, {"what", "groups"}})["groups"][0]["bpf"]["section"];
  };
  EXPECT_EQ(section(), "first_up") << "what the member could read when it named it";
  ok(root, {{"verb", "set"}, {"key", "groups.uplinks.bpf.jit"}, {"value", false}});
  EXPECT_EQ(section(), "first_up") << "a knob of the policy does not read the file again";
  // Root naming the path itself reads it, with root's rights.
  ok(root, {{"verb", "set"}, {"key", "groups.uplinks.bpf.program"}, {"value", link}});
  EXPECT_EQ(section(), "ecmp");
  root.close();
  EXPECT_EQ(stop(), 0) << run_->err();
}

}  // namespace
}  // namespace rocelb
