// A live `rocelb-dp run` and its limits: the whole config's memory estimate
// (`show config`, limits.max_memory checked at start with the workers EAL
// gave and on every write), `set control.*` adopted by the running control
// socket (a lowered max_clients refuses newcomers and closes nobody, a
// shorter idle timeout closes idle clients from then on), and the socket's
// own counters in `show metrics`, which promtool accepts.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "control/control_client.h"
#include "live_run.h"
#include "run_command.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

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

// One line from fd ("" on EOF or after timeout_ms).
std::string read_line(int fd, int timeout_ms = 5000) {
  std::string line;
  char c;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0 || ::recv(fd, &c, 1, 0) != 1) return line;
    if (c == '\n') return line;
    line += c;
  }
}

std::string ask(int fd, const std::string& request_line) {
  if (::send(fd, request_line.data(), request_line.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request_line.size()))
    return "";
  return read_line(fd);
}

const std::string kShowPorts = R"({"verb":"show","what":"ports"})"
                               "\n";

// The value of an unlabelled or labelled sample ("name{...}" as written), or -1.
double sample(const std::string& text, const std::string& name) {
  const std::string key = "\n" + name + " ";
  const auto at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + key.size()));
}

std::string net_null_ports() {
  std::string sets;
  for (int p = 0; p < 8; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
  return sets;
}

class ControlLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelb-limits-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    sock_ = (dir_ / "sock").string();  // test::LiveRun's
  }
  void TearDown() override {
    stop();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void start(const std::string& options = "") {
    run_.reset();
    run_ = std::make_unique<test::LiveRun>(dir_, options + net_null_ports());
    ASSERT_TRUE(run_->wait_ready()) << run_->err();
  }
  void stop() {
    if (!run_) return;
    const auto r = run_->stop();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    run_.reset();
  }
  std::string metrics(ControlClient& c) {
    const ControlReply r = c.show("metrics");
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.result.at("text").get<std::string>() : "";
  }

  fs::path dir_;
  std::string sock_;
  std::unique_ptr<test::LiveRun> run_;
};

// --mbufs sizes the packet pool, and the estimate follows: a quarter of the
// default pool is a quarter of its bytes (4 KiB pages: one mbuf a page).
TEST_F(ControlLimits, MbufsSizeThePoolAndItsEstimate) {
  start();
  uint64_t full = 0;
  {
    ControlClient c(sock_, 5s);
    const ControlReply r = c.show("config");
    ASSERT_TRUE(r.ok) << r.error;
    for (const auto& i : r.result.at("memory").at("items"))
      if (i.at("name") == "packet_pool") full = i.at("bytes").get<uint64_t>();
  }
  stop();
  start(" --mbufs 8191");
  ControlClient c(sock_, 5s);
  const ControlReply r = c.show("config");
  ASSERT_TRUE(r.ok) << r.error;
  const json& m = r.result.at("memory");
  EXPECT_EQ(m.at("pool_mbufs"), 8191);
  uint64_t small = 0;
  for (const auto& i : m.at("items"))
    if (i.at("name") == "packet_pool") small = i.at("bytes").get<uint64_t>();
  ASSERT_GT(full, 0u);
  // The same per-lcore cache overhead in both; the mbufs scale by 4.
  const uint64_t caches = 192 + 128 * 8256;
  EXPECT_EQ((full - caches) / 4 / 4096, (small - caches) / 4096) << full << " " << small;
  const auto shown =
      test::run_command(test::bin("tools/rocelbctl") + " --socket " + sock_ + " show config", dir_);
  EXPECT_NE(shown.out.find("8191 mbufs"), std::string::npos) << shown.out;
}

// The estimate of the running config: its items add up, it counts this
// switch's one worker and its pool, and follows limits.max_memory; a write
// that would take the config over the limit is refused naming its key.
TEST_F(ControlLimits, ShowConfigCarriesTheMemoryEstimate) {
  start();
  ControlClient c(sock_, 5s);
  ControlReply r = c.show("config");
  ASSERT_TRUE(r.ok) << r.error;
  const json& m = r.result.at("memory");
  uint64_t sum = 0;
  std::vector<std::string> names;
  for (const auto& i : m.at("items")) {
    sum += i.at("bytes").get<uint64_t>();
    names.push_back(i.at("name").get<std::string>());
  }
  EXPECT_EQ(sum, m.at("total_bytes").get<uint64_t>()) << m;
  EXPECT_EQ(names, (std::vector<std::string>{"group_tables", "route_tables", "neighbor_table",
                                             "egress_rings", "packet_pool", "control_replies"}));
  EXPECT_EQ(m.at("workers"), 1);  // -l 0-1: one worker lcore
  EXPECT_EQ(m.at("pool_mbufs"), 32767);
  EXPECT_EQ(m.at("ring_capacity"), 16384);
  EXPECT_EQ(m.at("limit_bytes"), 4'000'000'000u);
  const uint64_t total = m.at("total_bytes").get<uint64_t>();
  EXPECT_GT(total, 100'000'000u);  // the route tables alone
  EXPECT_LT(total, 400'000'000u);

  // rocelbctl shows it above the YAML.
  const auto shown =
      test::run_command(test::bin("tools/rocelbctl") + " --socket " + sock_ + " show config", dir_);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("# memory: about "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("#   route_tables "), std::string::npos) << shown.out;

  // A limit just above the config: a million flowlets more does not fit.
  const std::string limit = std::to_string(total + 1'000'000);
  ASSERT_TRUE(c.set("limits.max_memory", limit).ok);
  ASSERT_TRUE(c.set("groups.uplinks.mode", "flowlet_random").ok);
  r = c.set("groups.uplinks.max_flows", 1048576);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(
      r.error.rfind("rocelbctl set groups.uplinks.max_flows=1048576: groups.uplinks.max_flows: the "
                    "config needs about ",
                    0),
      0u)
      << r.error;
  EXPECT_NE(r.error.find("with 1 worker"), std::string::npos) << r.error;
  r = c.show("config");
  EXPECT_EQ(r.result.at("memory").at("limit_bytes").get<uint64_t>(), total + 1'000'000);
  EXPECT_EQ(r.result.at("yaml").get<std::string>().find("1048576"), std::string::npos);
  const std::string text = metrics(c);
  EXPECT_EQ(sample(text, R"(rocelb_control_config_writes_total{result="refused"})"), 1) << text;
  EXPECT_EQ(sample(text, R"(rocelb_control_config_writes_total{result="applied"})"), 2) << text;
}

// At start the estimate counts the workers EAL gave: 64 groups of a million
// flowlets (1 GiB a worker) fit a 2 GB limit with one worker, as the loader
// counts, but not with the three of --lcores: refused before anything is
// allocated, naming the key.
TEST_F(ControlLimits, StartCountsTheWorkersEalGave) {
  std::string groups =
      "groups={uplinks: {members: [10.1.4.2], mode: flowlet_random, "
      "max_flows: 1048576}";
  for (int i = 1; i < 64; ++i)
    groups += ", g" + std::to_string(i) +
              ": {members: [10.1.4.2], mode: flowlet_random, max_flows: 1048576}";
  groups += "}";
  const auto r = test::run_command(
      test::bin("dataplane/rocelb-dp") + " run" + net_null_ports() + " --set control.socket=" +
          sock_ + " --set limits.max_memory=2GB --set '" + groups + "' -- --lcores 0@0,1@0,2@0,3@0",
      dir_);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("groups.g1.max_flows: the config needs about 3."), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("with 3 workers (group_tables 3.22 GB"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(sock_));
}

// `set control.*` on the running switch: a lowered max_clients refuses the
// next client and closes none; a shorter idle timeout closes the idle ones
// from then on; the counters and the limits in force show in the metrics.
TEST_F(ControlLimits, RunningSocketAdoptsControlKeys) {
  start();
  const int a = raw_connect(sock_), b = raw_connect(sock_);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_NE(ask(a, kShowPorts).find("\"ok\":true"), std::string::npos);
  EXPECT_NE(ask(b, kShowPorts).find("\"ok\":true"), std::string::npos);
  ControlClient c(sock_, 5s);
  ASSERT_TRUE(c.set("control.max_clients_per_uid", 3).ok);
  ASSERT_TRUE(c.set("control.max_clients", 3).ok);
  // a, b and c stay; a fourth is refused.
  EXPECT_NE(ask(a, kShowPorts).find("\"ok\":true"), std::string::npos);
  EXPECT_NE(ask(b, kShowPorts).find("\"ok\":true"), std::string::npos);
  const int d = raw_connect(sock_);
  ASSERT_GE(d, 0);
  EXPECT_NE(read_line(d).find("too many clients (control.max_clients is 3)"), std::string::npos);
  ::close(d);

  const auto changed = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.set("control.idle_timeout", "300ms").ok);
  EXPECT_NE(read_line(a, 5000).find("closed: idle for 300ms (control.idle_timeout)"),
            std::string::npos);
  EXPECT_GE(std::chrono::steady_clock::now() - changed, 250ms);
  EXPECT_NE(read_line(b, 5000).find("closed: idle for 300ms (control.idle_timeout)"),
            std::string::npos);
  ::close(a);
  ::close(b);

  const std::string text = metrics(c);  // c reconnects if it was closed too
  EXPECT_EQ(sample(text, "rocelb_control_max_clients"), 3) << text;
  EXPECT_EQ(sample(text, "rocelb_control_max_clients_per_uid"), 3) << text;
  EXPECT_EQ(sample(text, "rocelb_control_idle_timeout_seconds"), 0.3) << text;
  EXPECT_EQ(sample(text, R"(rocelb_control_connections_refused_total{reason="max_clients"})"), 1);
  EXPECT_GE(sample(text, R"(rocelb_control_connections_closed_total{reason="idle_timeout"})"), 2);
  EXPECT_GE(sample(text, "rocelb_control_connections_accepted_total"), 3);

  // Prometheus' linter accepts the whole text, the socket's part included.
  const fs::path file = dir_ / "metrics.txt";
  std::ofstream(file) << text;
  // In its own shell: run_command's own </dev/null would win over `< file`.
  const auto lint =
      test::run_command("sh -c 'promtool check metrics < " + file.string() + "'", dir_);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out + lint.err, "");
}

}  // namespace
}  // namespace rocelb
