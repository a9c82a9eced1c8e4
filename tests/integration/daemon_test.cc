// rocelbd against the real switch: `rocelb-dp run` on net_null vdevs with
// its control socket in a temp dir, and rocelbd owning a config file for
// it. (a) the file is applied at start; (b) an edit is applied within ~2 s;
// (c) a broken edit is logged with file, key path and rule, and the switch
// keeps its config; (e) /metrics, read twice with curl, is valid exposition
// text whose *_total samples never go down, and /healthz says ok; (d) a new
// switch process gets the file's config again. SIGHUP reloads, SIGTERM
// stops with 0.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <sstream>
#include <thread>

#include "../daemon/prometheus_validator.h"
#include "control/control_client.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

// A TCP port nobody listens on now: bind port 0, read it, close.
int free_tcp_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

// configs/default.yaml on net_null ports, serving `socket`, uplinks in `mode`.
std::string switch_config(const std::string& socket, const std::string& mode) {
  std::string text = test::read_file(test::src("configs/default.yaml"));
  for (int p = 0; p < 8; ++p) {
    const auto at = text.find("{id: " + std::to_string(p) + ",");
    const auto close = text.find('}', at);
    if (at == std::string::npos || close == std::string::npos) return "";
    text.insert(close, ", device: net_null" + std::to_string(p));
  }
  const auto m = text.find("mode: fixed");
  if (m == std::string::npos) return "";
  text.replace(m, 11, "mode: " + mode);
  // The socket the switch serves: the file's control.socket, or a new section.
  const auto control = text.find("\ncontrol:\n");
  if (control == std::string::npos) return text + "\ncontrol:\n  socket: " + socket + "\n";
  const auto key = text.find("  socket: ", control);
  if (key == std::string::npos) return "";
  const auto value = key + 10;
  return text.replace(value, text.find('\n', value) - value, socket);
}

// A process started in the background by /bin/sh, its pid and, once it
// ended, its exit code in files; killed if the test leaves early.
class Background {
 public:
  Background(const fs::path& dir, const std::string& name, const std::string& cmd)
      : pid_file_(dir / (name + ".pid")), rc_file_(dir / (name + ".rc")) {
    fs::remove(rc_file_);
    const std::string sh = "(" + cmd + " >" + (dir / (name + ".out")).string() + " 2>" +
                           (dir / (name + ".err")).string() + " </dev/null & echo $! >" +
                           pid_file_.string() + "; wait $!; echo $? >" + rc_file_.string() + ") &";
    if (std::system(sh.c_str()) == 0)
      wait_until([&] { return !test::read_file(pid_file_).empty(); }, 5000ms);
    pid_ = std::atoi(test::read_file(pid_file_).c_str());
  }
  ~Background() {
    if (pid_ > 0 && !ended()) ::kill(pid_, SIGKILL);
  }
  int pid() const { return pid_; }
  bool ended() const { return !test::read_file(rc_file_).empty(); }
  bool signal(int sig) const { return pid_ > 0 && ::kill(pid_, sig) == 0; }
  // The exit code once it ended within `limit`, else -1.
  int wait(std::chrono::milliseconds limit) const {
    if (!wait_until([&] { return ended(); }, limit)) return -1;
    return std::atoi(test::read_file(rc_file_).c_str());
  }

 private:
  fs::path pid_file_, rc_file_;
  int pid_ = -1;
};

class DaemonLive : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelbd-it-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    socket_ = (dir_ / "ctl.sock").string();
    config_ = (dir_ / "rocelb.yaml").string();
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // As an editor saves: a new file renamed over the old one.
  void write_config(const std::string& text) {
    const fs::path tmp = dir_ / ".rocelb.yaml.new";
    {
      std::ofstream f(tmp);
      f << text;
    }
    fs::rename(tmp, config_);
  }

  // Starts `rocelb-dp run` and waits until its control socket answers;
  // *up says whether it did.
  std::unique_ptr<Background> start_switch(const std::string& name, bool* up) {
    std::string cmd = test::bin("dataplane/rocelb-dp") + " run";
    for (int p = 0; p < 8; ++p)
      cmd += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
    cmd += " --set control.socket=" + socket_;
    auto b = std::make_unique<Background>(dir_, name, cmd);
    *up = wait_until(
        [&] {
          try {
            return ControlClient(socket_, 1s).show("config").ok;
          } catch (const ControlConnectError&) {
            return false;
          }
        },
        20000ms);
    EXPECT_TRUE(*up) << test::read_file(dir_ / (name + ".err"));
    return b;
  }

  nlohmann::json show(const std::string& what) {
    try {
      const ControlReply r = ControlClient(socket_, 5s).show(what);
      if (r.ok) return r.result;
    } catch (const ControlConnectError&) {
    }
    return nullptr;
  }
  std::string uplinks_mode() {
    const auto g = show("groups");
    if (!g.is_object() || !g.contains("groups")) return "(no reply)";
    for (const auto& grp : g["groups"])
      if (grp.value("name", "") == "uplinks") return grp.value("mode", "");
    return "(no uplinks)";
  }
  uint64_t generation() {
    const auto c = show("config");
    return c.is_object() ? c.value("generation", uint64_t{0}) : 0;
  }
  std::string daemon_log() { return test::read_file(dir_ / "rocelbd.log"); }
  bool logged(const std::string& s, std::chrono::milliseconds limit = 5000ms) {
    return wait_until([&] { return daemon_log().find(s) != std::string::npos; }, limit);
  }

  struct Http {
    int status = 0;
    std::string content_type;
    std::string body;
  };
  Http get(const std::string& path) {
    const fs::path body = dir_ / "http.body";
    fs::remove(body);
    const auto r = test::run_command(
        "curl -sS --max-time 10 -o " + body.string() +
            " -w '%{http_code} %{content_type}' http://127.0.0.1:" + std::to_string(port_) + path,
        dir_);
    Http h;
    std::istringstream in(r.out);
    in >> h.status;
    std::getline(in >> std::ws, h.content_type);
    h.body = test::read_file(body);
    return h;
  }

  fs::path dir_;
  std::string socket_;
  std::string config_;
  int port_ = 0;
};

TEST_F(DaemonLive, OwnsTheSwitchConfigAcrossEditsErrorsAndRestarts) {
  ASSERT_EQ(access("/usr/bin/curl", X_OK), 0) << "the test reads /metrics with curl";
  port_ = free_tcp_port();
  ASSERT_GT(port_, 0);
  const std::string drill = switch_config(socket_, "drill");
  ASSERT_FALSE(drill.empty());
  write_config(drill);

  bool up = false;
  auto sw = start_switch("dp1", &up);
  ASSERT_TRUE(up);
  ASSERT_EQ(uplinks_mode(), "fixed");
  const uint64_t gen0 = generation();
  ASSERT_GT(gen0, 0u);

  Background daemon(dir_, "rocelbd",
                    test::bin("control/rocelbd") + " --config " + config_ + " --socket " + socket_ +
                        " --metrics 127.0.0.1:" + std::to_string(port_) + " --log-file " +
                        (dir_ / "rocelbd.log").string());

  // (a) Applied at start.
  ASSERT_TRUE(wait_until([&] { return uplinks_mode() == "drill"; }, 10000ms)) << daemon_log();
  EXPECT_GT(generation(), gen0);
  EXPECT_TRUE(logged("rocelbd started: config " + config_ + ", socket " + socket_ +
                     ", metrics http://127.0.0.1:" + std::to_string(port_) + "/metrics"))
      << daemon_log();
  EXPECT_TRUE(logged("applied " + config_ + " (start): generation ")) << daemon_log();

  // (b) An edit is applied, and inotify, not a timer, is what noticed it
  // (how fast is a latency, not a test's business on a loaded machine).
  write_config(switch_config(socket_, "flowlet_quality"));
  ASSERT_TRUE(wait_until([&] { return uplinks_mode() == "flowlet_quality"; }, 10000ms))
      << daemon_log();
  EXPECT_TRUE(logged("reload triggered by file change"));

  // (e) /metrics twice: valid exposition, counters never go down; healthy.
  ASSERT_TRUE(wait_until([&] { return get("/healthz").status == 200; }, 5000ms))
      << get("/healthz").body;
  EXPECT_EQ(get("/healthz").body, "ok\n");
  const Http first = get("/metrics");
  std::this_thread::sleep_for(1200ms);
  const Http second = get("/metrics");
  test::PrometheusText scrape[2];
  for (int i = 0; i < 2; ++i) {
    const Http& h = i == 0 ? first : second;
    ASSERT_EQ(h.status, 200);
    EXPECT_EQ(h.content_type, "text/plain; version=0.0.4; charset=utf-8");
    scrape[i] = test::parse_prometheus_text(h.body);
    ASSERT_TRUE(scrape[i].ok) << "scrape " << i << ": " << scrape[i].error;
    EXPECT_EQ(scrape[i].samples.at("rocelb_daemon_up"), 1);
    EXPECT_EQ(scrape[i].samples.at("rocelb_daemon_dataplane_connected"), 1);
    size_t switch_samples = 0;
    for (const auto& [key, v] : scrape[i].samples)
      if (key.rfind("rocelb_daemon_", 0) != 0) ++switch_samples;
    EXPECT_GT(switch_samples, 50u) << "the switch's counters are missing:\n" << h.body;
  }
  size_t totals = 0;
  for (const auto& [key, v] : scrape[0].samples) {
    const std::string name = key.substr(0, key.find('{'));
    if (!name.ends_with("_total")) continue;
    ++totals;
    ASSERT_TRUE(scrape[1].samples.count(key)) << key << " is gone in the second scrape";
    EXPECT_GE(scrape[1].samples.at(key), v) << key;
  }
  EXPECT_GT(totals, 20u);
  EXPECT_EQ(scrape[1].samples.at("rocelb_daemon_config_applies_total"), 2);
  EXPECT_GT(scrape[1].samples.at("rocelb_daemon_last_apply_success_timestamp_seconds"), 1.7e9);

  // (c) A broken edit: logged with file, key path and rule; nothing changes.
  const uint64_t gen_good = generation();
  std::string broken = switch_config(socket_, "sideways");
  write_config(broken);
  ASSERT_TRUE(
      logged("config refused, the running config stays: " + config_ + ": groups.uplinks.mode: "))
      << daemon_log();
  const std::string log = daemon_log();
  const auto at = log.find(config_ + ": groups.uplinks.mode: ");
  const auto line_at = log.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
  const std::string line = log.substr(line_at, log.find('\n', at) - line_at);
  EXPECT_NE(line.find("sideways"), std::string::npos) << line;
  EXPECT_NE(line.find("[error]"), std::string::npos) << log;
  EXPECT_EQ(generation(), gen_good);
  EXPECT_EQ(uplinks_mode(), "flowlet_quality");
  EXPECT_EQ(get("/healthz").status, 503);

  // Fixed again; SIGHUP reloads too.
  write_config(drill);
  ASSERT_TRUE(wait_until([&] { return uplinks_mode() == "drill"; }, 5000ms)) << daemon_log();
  ASSERT_TRUE(daemon.signal(SIGHUP));
  EXPECT_TRUE(logged("reload triggered by SIGHUP"));

  // (d) The switch dies; a new one gets the file's config again.
  ASSERT_TRUE(sw->signal(SIGTERM));
  EXPECT_EQ(sw->wait(15000ms), 0) << test::read_file(dir_ / "dp1.err");
  EXPECT_TRUE(logged("lost the dataplane"));
  EXPECT_TRUE(wait_until(
      [&] {
        const Http h = get("/metrics");
        return h.status == 200 &&
               h.body.find("\nrocelb_daemon_dataplane_connected 0\n") != std::string::npos;
      },
      5000ms));
  sw = start_switch("dp2", &up);
  ASSERT_TRUE(up);
  ASSERT_TRUE(wait_until([&] { return uplinks_mode() == "drill"; }, 5000ms)) << daemon_log();
  EXPECT_TRUE(logged("reconnected to the dataplane at " + socket_)) << daemon_log();
  EXPECT_TRUE(wait_until([&] { return get("/healthz").status == 200; }, 5000ms));

  // SIGTERM: a clean exit.
  ASSERT_TRUE(daemon.signal(SIGTERM));
  EXPECT_EQ(daemon.wait(5000ms), 0) << daemon_log();
  EXPECT_TRUE(logged("rocelbd stopped"));
  ASSERT_TRUE(sw->signal(SIGTERM));
  EXPECT_EQ(sw->wait(15000ms), 0) << test::read_file(dir_ / "dp2.err");
}

TEST_F(DaemonLive, AnInvalidFileAtStartExits1WithTheLoadersMessage) {
  write_config(switch_config(socket_, "sideways"));
  const auto r = test::run_command(test::bin("control/rocelbd") + " --config " + config_ +
                                       " --socket " + socket_ + " --metrics 127.0.0.1:1",
                                   dir_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(config_ + ": groups.uplinks.mode: "), std::string::npos) << r.err;
}

TEST_F(DaemonLive, UsageErrorsExit2) {
  const auto r = test::run_command(test::bin("control/rocelbd") + " --metrics nowhere", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "rocelbd: --metrics: \"nowhere\": no port; expected ADDR:PORT, e.g. 127.0.0.1:9790 "
            "or [::1]:9790\n");
}

}  // namespace
}  // namespace rocelb
