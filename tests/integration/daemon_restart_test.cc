// rocelbd while the dataplane under it is killed with SIGKILL and started
// again on the same socket path: `rocelb-dp run` on net_null vdevs, rocelbd
// owning a config file for it. After an edit of the file is applied, the
// switch is killed (its socket file stays behind, stale); rocelbd notices
// (log, /metrics, /healthz), a new switch reclaims the stale socket, and
// rocelbd gives it the file's config again: the new switch ends with the
// same effective config as the killed one (`show config`). The file edited
// while no switch runs reaches the next one; a switch killed and replaced
// at once ends the same way. Nothing crashes: rocelbd and the last switch
// exit 0 on SIGTERM.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

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
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A TCP port nobody listens on now.
int free_tcp_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  ::close(fd);
  return ok ? ntohs(a.sin_port) : -1;
}

// Whether a process accepts connections on the unix socket at `path`.
bool someone_listens(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  const bool live = ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return live;
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
  const auto key = text.find("  socket: ", text.find("\ncontrol:\n"));
  if (key == std::string::npos) return "";
  const auto value = key + 10;
  return text.replace(value, text.find('\n', value) - value, socket);
}

// A process started in the background by /bin/sh; its pid and, once it
// ended, its exit code in files. Killed if the test leaves early.
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

class DaemonRestart : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelbd-restart-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    socket_ = (dir_ / "ctl.sock").string();
    config_ = (dir_ / "rocelb.yaml").string();
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  void write_config(const std::string& text) {  // as an editor saves
    const fs::path tmp = dir_ / ".rocelb.yaml.new";
    {
      std::ofstream f(tmp);
      f << text;
    }
    fs::rename(tmp, config_);
  }

  // `rocelb-dp run` on the embedded default (uplinks `fixed`), serving socket_.
  std::unique_ptr<Background> start_switch(const std::string& name) {
    std::string cmd = test::bin("dataplane/rocelb-dp") + " run";
    for (int p = 0; p < 8; ++p)
      cmd += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
    cmd += " --set control.socket=" + socket_;
    return std::make_unique<Background>(dir_, name, cmd);
  }

  nlohmann::json show(const std::string& what) {
    try {
      const ControlReply r = ControlClient(socket_, 2s).show(what);
      if (r.ok) return r.result;
    } catch (const ControlConnectError&) {
    }
    return nullptr;
  }
  // The running switch's effective config, once it is the one rocelbd applied.
  std::string applied_yaml() {
    const auto c = show("config");
    if (!c.is_object() || c.value("source", "") != "control apply") return "";
    return c.value("yaml", "");
  }
  std::string uplinks_mode() {
    const auto g = show("groups");
    if (!g.is_object() || !g.contains("groups")) return "(no reply)";
    for (const auto& grp : g["groups"])
      if (grp.value("name", "") == "uplinks") return grp.value("mode", "");
    return "(no uplinks)";
  }
  std::string daemon_log() { return test::read_file(dir_ / "rocelbd.log"); }
  bool logged(const std::string& s, size_t from = 0, std::chrono::milliseconds limit = 10000ms) {
    return wait_until([&] { return daemon_log().find(s, from) != std::string::npos; }, limit);
  }

  // One /metrics sample or /healthz status, read with curl.
  std::string get(const std::string& path, int* status = nullptr) {
    const fs::path body = dir_ / "http.body";
    fs::remove(body);
    const auto r =
        test::run_command("curl -sS --max-time 5 -o " + body.string() +
                              " -w '%{http_code}' http://127.0.0.1:" + std::to_string(port_) + path,
                          dir_);
    if (status) *status = std::atoi(r.out.c_str());
    return test::read_file(body);
  }
  double metric(const std::string& name) {
    const std::string text = get("/metrics");
    const auto at = text.find("\n" + name + " ");
    if (at == std::string::npos) return -1;
    return std::atof(text.c_str() + at + name.size() + 2);
  }
  int healthz() {
    int status = 0;
    get("/healthz", &status);
    return status;
  }

  fs::path dir_;
  std::string socket_;
  std::string config_;
  int port_ = 0;
};

TEST_F(DaemonRestart, ReappliesItsConfigToADataplaneRestartedAfterSigkill) {
  ASSERT_EQ(access("/usr/bin/curl", X_OK), 0) << "the test reads /metrics with curl";
  port_ = free_tcp_port();
  ASSERT_GT(port_, 0);
  write_config(switch_config(socket_, "drill"));

  auto sw = start_switch("dp1");
  ASSERT_TRUE(wait_until([&] { return show("config").is_object(); }, 20000ms))
      << test::read_file(dir_ / "dp1.err");
  Background daemon(dir_, "rocelbd",
                    test::bin("control/rocelbd") + " --config " + config_ + " --socket " + socket_ +
                        " --metrics 127.0.0.1:" + std::to_string(port_) + " --log-file " +
                        (dir_ / "rocelbd.log").string());
  ASSERT_TRUE(logged("applied " + config_ + " (start)")) << daemon_log();

  // The config changes: an edit of the file, applied by rocelbd.
  write_config(switch_config(socket_, "flowlet_quality"));
  ASSERT_TRUE(logged("applied " + config_ + " (file change)")) << daemon_log();
  const std::string running = applied_yaml();
  ASSERT_NE(running.find("mode: flowlet_quality"), std::string::npos) << running;
  ASSERT_EQ(metric("rocelb_daemon_config_applies_total"), 2);

  // SIGKILL: no clean-up, the socket file stays behind and nobody serves it.
  struct stat st {};
  size_t mark = daemon_log().size();
  ASSERT_TRUE(sw->signal(SIGKILL));
  EXPECT_EQ(sw->wait(10000ms), 128 + SIGKILL);
  ASSERT_EQ(::lstat(socket_.c_str(), &st), 0) << "a killed switch removed its socket";
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_FALSE(someone_listens(socket_));

  // rocelbd notices within its poll interval (1 s).
  EXPECT_TRUE(logged("lost the dataplane", mark, 5000ms)) << daemon_log();
  EXPECT_TRUE(wait_until([&] { return metric("rocelb_daemon_dataplane_connected") == 0; }, 5000ms));
  EXPECT_EQ(healthz(), 503);
  EXPECT_FALSE(daemon.ended()) << daemon_log();

  // A new switch on the same path reclaims the stale socket and gets the
  // file's config again.
  mark = daemon_log().size();
  sw = start_switch("dp2");
  ASSERT_TRUE(wait_until([&] { return applied_yaml() == running; }, 20000ms))
      << "the new switch runs:\n"
      << show("config").dump(2) << "\nrocelbd:\n"
      << daemon_log() << "\ndp2:\n"
      << test::read_file(dir_ / "dp2.err");
  EXPECT_TRUE(someone_listens(socket_));
  EXPECT_TRUE(logged("reconnected to the dataplane at " + socket_, mark)) << daemon_log();
  EXPECT_TRUE(logged("applied " + config_ + " (dataplane reconnected", mark)) << daemon_log();
  EXPECT_TRUE(wait_until([&] { return metric("rocelb_daemon_dataplane_connected") == 1; }, 5000ms));
  EXPECT_EQ(metric("rocelb_daemon_config_applies_total"), 3);
  EXPECT_TRUE(wait_until([&] { return healthz() == 200; }, 5000ms));

  // Killed again, and the file edited while no switch runs: the next
  // switch gets the newest text.
  mark = daemon_log().size();
  ASSERT_TRUE(sw->signal(SIGKILL));
  EXPECT_EQ(sw->wait(10000ms), 128 + SIGKILL);
  EXPECT_TRUE(logged("lost the dataplane", mark, 5000ms)) << daemon_log();
  write_config(switch_config(socket_, "per_packet_quality"));
  EXPECT_TRUE(logged("dataplane not connected: " + config_ + " will be applied once it is", mark))
      << daemon_log();
  sw = start_switch("dp3");
  ASSERT_TRUE(wait_until([&] { return uplinks_mode() == "per_packet_quality"; }, 20000ms))
      << daemon_log() << "\ndp3:\n"
      << test::read_file(dir_ / "dp3.err");
  EXPECT_TRUE(logged("applied " + config_ + " (dataplane reconnected): generation", mark))
      << daemon_log();
  const std::string edited = applied_yaml();
  EXPECT_NE(edited.find("mode: per_packet_quality"), std::string::npos) << edited;
  EXPECT_EQ(metric("rocelb_daemon_config_applies_total"), 4);

  // Killed and replaced at once, without waiting for rocelbd to notice.
  mark = daemon_log().size();
  ASSERT_TRUE(sw->signal(SIGKILL));
  EXPECT_EQ(sw->wait(10000ms), 128 + SIGKILL);
  sw = start_switch("dp4");
  ASSERT_TRUE(wait_until([&] { return applied_yaml() == edited; }, 20000ms))
      << "the new switch runs:\n"
      << show("config").dump(2) << "\nrocelbd:\n"
      << daemon_log() << "\ndp4:\n"
      << test::read_file(dir_ / "dp4.err");
  EXPECT_TRUE(logged("applied " + config_ + " (dataplane re", mark)) << daemon_log();
  EXPECT_TRUE(wait_until([&] { return metric("rocelb_daemon_config_applies_total") == 5; }, 5000ms))
      << daemon_log();
  EXPECT_TRUE(wait_until([&] { return healthz() == 200; }, 5000ms));
  EXPECT_EQ(uplinks_mode(), "per_packet_quality");

  // Nothing crashed: both stop cleanly, the switch with its mbufs back and
  // its counters balanced.
  EXPECT_FALSE(daemon.ended()) << daemon_log();
  ASSERT_TRUE(daemon.signal(SIGTERM));
  EXPECT_EQ(daemon.wait(5000ms), 0) << daemon_log();
  ASSERT_TRUE(sw->signal(SIGTERM));
  EXPECT_EQ(sw->wait(15000ms), 0) << test::read_file(dir_ / "dp4.err");
  EXPECT_NE(test::read_file(dir_ / "dp4.out").find("mbufs still in use: 0"), std::string::npos);
}

}  // namespace
}  // namespace rocelb
