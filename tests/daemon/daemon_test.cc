// The daemon's loop against an in-process fake switch (fake_switch.h), so
// reconnects and refusals are deterministic: the file applied at start and
// on every change, a broken file or a refusal logged with the running config
// kept, a restarted switch given the last good config, a switch that comes
// late, signals, and /metrics + /healthz through a real HTTP client.
// tests/integration/daemon_test.cc does the same against the real switch.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "control/daemon/daemon.h"
#include "control/default_config.h"
#include "fake_switch.h"
#include "log_capture.h"
#include "prometheus_validator.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

std::string with_mode(const std::string& mode) {
  std::string text(embedded_default_config());
  const auto at = text.find("mode: fixed");
  if (at == std::string::npos) return text;
  return text.replace(at, 11, "mode: " + mode);
}

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelbd-unit-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_ = (dir_ / "rocelb.yaml").string();
    socket_ = (dir_ / "ctl.sock").string();
    fake_ = std::make_unique<test::FakeSwitch>(socket_);
    write(with_mode("fixed"));
  }
  void TearDown() override {
    stop();
    fake_.reset();
    fs::remove_all(dir_);
  }

  // Replaces the file the way an editor does: a new file renamed over it.
  void write(const std::string& text) {
    const std::string tmp = config_ + ".tmp";
    std::ofstream(tmp) << text;
    fs::rename(tmp, config_);
  }

  DaemonSettings settings(bool signals = false) {
    DaemonSettings s;
    s.config_path = config_;
    s.socket_path = socket_;
    s.metrics = {"127.0.0.1", 0};
    s.handle_signals = signals;
    s.poll_interval = 50ms;
    s.debounce = 20ms;
    s.request_timeout = 2000ms;
    s.scrape_timeout = 500ms;
    return s;
  }

  void start(bool signals = false) {
    daemon_ = std::make_unique<Daemon>(settings(signals));
    thread_ = std::thread([this] { rc_ = daemon_->run(); });
  }
  int stop() {
    if (thread_.joinable()) {
      daemon_->request_stop();
      thread_.join();
    }
    return rc_;
  }
  // Waits for a log line: the fake answers before the daemon logs the reply.
  bool logged(const std::string& text) {
    return wait_until([&] { return log_.contains(text); });
  }
  bool applied_count(size_t n) {
    return wait_until([&] { return fake_->applied().size() == n; });
  }

  test::LogCapture log_;
  fs::path dir_;
  std::string config_;
  std::string socket_;
  std::unique_ptr<test::FakeSwitch> fake_;
  std::unique_ptr<Daemon> daemon_;
  std::thread thread_;
  std::atomic<int> rc_{-1};
};

TEST_F(DaemonTest, AppliesTheFileAtStartAndOnEveryChange) {
  fake_->start();
  start();
  ASSERT_TRUE(applied_count(1)) << log_.text();
  EXPECT_EQ(fake_->applied()[0], with_mode("fixed"));
  EXPECT_TRUE(wait_until([&] { return daemon_->unhealthy_reason().empty(); }))
      << daemon_->unhealthy_reason();
  EXPECT_TRUE(logged("rocelbd started: config " + config_ + ", socket " + socket_));
  EXPECT_TRUE(logged("connected to the dataplane at " + socket_ + " (generation 1)"));
  EXPECT_TRUE(logged("applied " + config_ + " (start): generation 2")) << log_.text();

  write(with_mode("drill"));
  ASSERT_TRUE(applied_count(2)) << log_.text();
  EXPECT_EQ(fake_->applied()[1], with_mode("drill"));
  EXPECT_TRUE(logged("reload triggered by file change"));
  EXPECT_TRUE(wait_until([&] { return log_.contains("(file change): generation 3"); }));

  // Written again with the same text: nothing to apply.
  write(with_mode("drill"));
  EXPECT_TRUE(wait_until([&] { return log_.contains("is unchanged: nothing to apply"); }));
  EXPECT_EQ(fake_->applied().size(), 2u);

  // A reload request (SIGHUP) applies even an unchanged file.
  daemon_->request_reload();
  ASSERT_TRUE(applied_count(3)) << log_.text();
  // The fake counts an apply before the daemon has read its reply.
  ASSERT_TRUE(wait_until([&] { return daemon_->metrics().config_applies == 3; }));
  const DaemonMetrics m = daemon_->metrics();
  EXPECT_TRUE(m.dataplane_connected);
  EXPECT_EQ(m.config_applies, 3u);
  EXPECT_EQ(m.config_apply_failures, 0u);
  EXPECT_EQ(m.config_reloads, 3u);
  EXPECT_GT(m.last_apply_success_unix_s, 1.7e9);
  EXPECT_EQ(stop(), 0);
  EXPECT_TRUE(logged("rocelbd stopped"));
}

TEST_F(DaemonTest, AnInvalidFileIsLoggedWithTheLoadersMessageAndChangesNothing) {
  fake_->start();
  start();
  ASSERT_TRUE(applied_count(1));
  write(with_mode("sideways"));
  ASSERT_TRUE(wait_until([&] { return daemon_->metrics().config_apply_failures == 1; }));
  EXPECT_TRUE(logged("[error] config refused, the running config stays: " + config_ +
                     ": groups.uplinks.mode: "))
      << log_.text();
  EXPECT_TRUE(logged("sideways"));
  EXPECT_EQ(fake_->applied().size(), 1u);
  EXPECT_EQ(fake_->generation(), 2u);
  EXPECT_EQ(daemon_->unhealthy_reason().rfind("last config apply failed: " + config_ + ": ", 0), 0u)
      << daemon_->unhealthy_reason();

  // Fixed: applied, healthy again.
  write(with_mode("drill"));
  ASSERT_TRUE(applied_count(2));
  EXPECT_TRUE(wait_until([&] { return daemon_->unhealthy_reason().empty(); }));
}

TEST_F(DaemonTest, ARefusalByTheSwitchIsLoggedVerbatimAndLastGoodStays) {
  fake_->start();
  fake_->refuse_when_containing("mode: drill");
  start();
  ASSERT_TRUE(applied_count(1));
  write(with_mode("drill"));
  ASSERT_TRUE(wait_until([&] { return daemon_->metrics().config_apply_failures == 1; }));
  EXPECT_TRUE(logged("[error] the switch refused " + config_ +
                     " (file change), the running config stays: apply: refused by the "
                     "fake switch (mode: drill)"))
      << log_.text();
  EXPECT_EQ(daemon_->unhealthy_reason(),
            "last config apply failed: apply: refused by the fake switch (mode: drill)");

  // A restarted switch gets the last good text, the one it accepted.
  fake_->stop();
  fake_->start();
  ASSERT_TRUE(applied_count(1)) << log_.text();
  EXPECT_EQ(fake_->applied()[0], with_mode("fixed"));
}

TEST_F(DaemonTest, ARestartedSwitchGetsTheLastGoodConfigAgain) {
  fake_->start();
  start();
  ASSERT_TRUE(applied_count(1));
  write(with_mode("drill"));
  ASSERT_TRUE(applied_count(2));

  fake_->stop();
  ASSERT_TRUE(wait_until([&] { return !daemon_->metrics().dataplane_connected; }));
  EXPECT_TRUE(wait_until([&] { return log_.contains("[warning] lost the dataplane: " + socket_); }))
      << log_.text();
  EXPECT_TRUE(wait_until([&] {
    return daemon_->unhealthy_reason().rfind("dataplane not connected: " + socket_, 0) == 0;
  })) << daemon_->unhealthy_reason();

  fake_->start();
  ASSERT_TRUE(applied_count(1)) << log_.text();
  EXPECT_EQ(fake_->applied()[0], with_mode("drill"));
  EXPECT_TRUE(logged("reconnected to the dataplane at " + socket_ + " (generation 1)"));
  EXPECT_TRUE(wait_until([&] {
    return log_.contains("(dataplane reconnected, last good config): generation 2");
  })) << log_.text();
  EXPECT_TRUE(wait_until([&] { return daemon_->unhealthy_reason().empty(); }));
  EXPECT_TRUE(wait_until([&] { return daemon_->metrics().config_applies == 3; }));
}

TEST_F(DaemonTest, AGenerationGoingBackMeansANewSwitch) {
  fake_->start();
  start();
  ASSERT_TRUE(applied_count(1));
  EXPECT_EQ(fake_->generation(), 2u);
  fake_->reset_generation();
  ASSERT_TRUE(applied_count(2)) << log_.text();
  EXPECT_TRUE(logged("config generation went back from 2 to 1"));
}

TEST_F(DaemonTest, ASwitchThatComesLateGetsTheNewestValidFile) {
  start();
  ASSERT_TRUE(wait_until([&] { return log_.contains("dataplane not reachable: " + socket_); }))
      << log_.text();
  EXPECT_TRUE(wait_until([&] {
    return daemon_->unhealthy_reason().rfind("dataplane not connected: ", 0) == 0;
  })) << daemon_->unhealthy_reason();
  write(with_mode("drill"));
  ASSERT_TRUE(wait_until([&] { return log_.contains("will be applied once it is"); }));
  std::this_thread::sleep_for(200ms);
  // Retries are not logged one by one.
  const std::string text = log_.text();
  size_t warnings = 0;
  for (size_t at = 0; (at = text.find("dataplane not reachable", at)) != std::string::npos; ++at)
    ++warnings;
  EXPECT_EQ(warnings, 1u) << text;

  fake_->start();
  ASSERT_TRUE(applied_count(1)) << log_.text();
  EXPECT_EQ(fake_->applied()[0], with_mode("drill"));
  EXPECT_TRUE(wait_until([&] { return daemon_->unhealthy_reason().empty(); }));
}

TEST_F(DaemonTest, AnInvalidConfigAtStartExits1) {
  write(with_mode("sideways"));
  start();
  thread_.join();
  EXPECT_EQ(rc_, 1);
  EXPECT_TRUE(logged("[error] config refused: " + config_ + ": groups.uplinks.mode: "))
      << log_.text();
}

TEST_F(DaemonTest, MetricsAndHealthOverHttp) {
  fake_->start();
  start();
  ASSERT_TRUE(applied_count(1));
  ASSERT_TRUE(wait_until([&] { return daemon_->unhealthy_reason().empty(); }));
  ASSERT_TRUE(wait_until([&] { return daemon_->metrics_port() != 0; }));
  httplib::Client http("127.0.0.1", daemon_->metrics_port());

  auto r = http.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  auto p = test::parse_prometheus_text(r->body);
  ASSERT_TRUE(p.ok) << p.error << "\n" << r->body;
  EXPECT_EQ(p.samples.at("rocelb_fake_scrapes_total{switch=\"fake \\\"one\\\"\"}"), 1);
  EXPECT_EQ(p.samples.at("rocelb_daemon_up"), 1);
  EXPECT_EQ(p.samples.at("rocelb_daemon_dataplane_connected"), 1);
  EXPECT_EQ(p.samples.at("rocelb_daemon_config_applies_total"), 1);
  r = http.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok\n");

  fake_->stop();
  ASSERT_TRUE(wait_until([&] { return !daemon_->metrics().dataplane_connected; }));
  r = http.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  p = test::parse_prometheus_text(r->body);
  ASSERT_TRUE(p.ok) << p.error << "\n" << r->body;
  EXPECT_EQ(p.samples.count("rocelb_fake_scrapes_total{switch=\"fake \\\"one\\\"\"}"), 0u);
  EXPECT_EQ(p.samples.at("rocelb_daemon_dataplane_connected"), 0);
  EXPECT_EQ(p.samples.at("rocelb_daemon_config_applies_total"), 1);
  r = http.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body.rfind("dataplane not connected: " + socket_, 0), 0u) << r->body;

  // The scraper's connection recovers with the switch.
  fake_->start();
  ASSERT_TRUE(applied_count(1));
  r = http.Get("/metrics");
  ASSERT_TRUE(r);
  p = test::parse_prometheus_text(r->body);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.samples.count("rocelb_fake_scrapes_total{switch=\"fake \\\"one\\\"\"}"), 1u)
      << r->body;
}

// Signals as rocelbd's main() takes them: blocked in every thread, read
// from a signalfd by the loop.
TEST_F(DaemonTest, SighupReloadsAndSigtermStops) {
  block_daemon_signals();  // before any thread of this test starts
  fake_->start();
  start(/*signals=*/true);
  ASSERT_TRUE(applied_count(1));
  ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
  ASSERT_TRUE(applied_count(2)) << log_.text();
  EXPECT_TRUE(logged("reload triggered by SIGHUP"));
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
  thread_.join();
  EXPECT_EQ(rc_, 0);
  EXPECT_TRUE(logged("stopping (SIGTERM)"));
}

}  // namespace
}  // namespace rocelb
