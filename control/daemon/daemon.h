// rocelbd's main loop: one thread, one poll() over the config file's
// inotify fd, a signalfd (SIGHUP, SIGINT, SIGTERM), a wake-up eventfd
// (request_stop/request_reload from other threads) and a timer.
//
//   start     read + validate the config file (invalid: run() returns 1,
//             there is nothing to fall back on), serve /metrics, connect to
//             the switch and apply the file; a switch that is not there yet
//             is retried every poll_interval.
//   reload    on SIGHUP or a change of the file (debounced): read +
//             validate; invalid → logged with the loader's message
//             (file: key.path: value: rule), the running config stays;
//             valid → `apply`. A refusal by the switch is logged verbatim.
//             A file change whose text is what already runs applies nothing.
//   restart   every poll_interval `show config`; a broken connection is
//             retried every poll_interval, and once a switch answers again
//             it gets the newest valid text not yet applied, else the last
//             good one. A generation lower than the last one seen means a
//             new switch process too.
//   stop      SIGINT/SIGTERM or request_stop(): run() returns 0.
//
// Counters (DaemonMetrics) and health are readable from any thread; they
// back /metrics and /healthz (healthy: connected and the last apply, or
// validation, succeeded).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "control/control_client.h"
#include "control/daemon/config_keeper.h"
#include "control/daemon/daemon_options.h"
#include "control/daemon/prometheus_text.h"
#include "control/daemon/switch_metrics_scraper.h"

namespace rocelb {

class FileWatcher;

struct DaemonSettings {
  std::string config_path;
  std::string socket_path;
  ListenAddress metrics;  // port 0: any free port (tests read metrics_port())
  // Take SIGHUP/SIGINT/SIGTERM through a signalfd. The caller must have
  // blocked them in every thread first: block_daemon_signals() before
  // starting any thread.
  bool handle_signals = true;
  std::chrono::milliseconds poll_interval{1000};  // show config; reconnect attempts
  std::chrono::milliseconds debounce{100};        // of file changes
  std::chrono::milliseconds request_timeout{10000};
  std::chrono::milliseconds scrape_timeout{2000};

  static DaemonSettings from(const DaemonOptions& o);
};

// Blocks SIGHUP, SIGINT and SIGTERM in the calling thread (and so in every
// thread it starts later), for the daemon's signalfd, and resets them to
// SIG_DFL (an inherited SIG_IGN would discard them).
void block_daemon_signals();

class Daemon {
 public:
  explicit Daemon(DaemonSettings settings);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // 0: stopped by a signal or request_stop(); 1: could not start (invalid
  // initial config, /metrics address not usable, inotify failed).
  int run();

  // From any thread.
  void request_stop();
  void request_reload();                                   // as SIGHUP
  uint16_t metrics_port() const { return metrics_port_; }  // 0 until /metrics serves
  DaemonMetrics metrics() const;
  std::string unhealthy_reason() const;  // empty: healthy
  std::string metrics_text();            // the /metrics body

 private:
  enum class ApplyResult { kApplied, kRefused, kDisconnected };

  int loop(int signal_fd, FileWatcher& watcher);
  void reload(const std::string& trigger);
  void poll_dataplane();
  void sync_after_connect(const std::string& why);
  ApplyResult apply_text(const std::string& text, const std::string& why);
  void lost_dataplane(const std::string& reason);
  void update_health(std::optional<bool> connected = std::nullopt);
  void wake();

  DaemonSettings settings_;
  ConfigKeeper keeper_;
  ControlClient client_;  // the main loop's; the scraper has its own
  SwitchMetricsScraper scraper_;
  int wake_fd_ = -1;

  // Main loop only.
  std::optional<std::string> pending_;  // valid text not yet applied
  std::optional<uint64_t> last_generation_;
  bool ever_connected_ = false;
  bool connect_warned_ = false;
  std::string connect_error_ = "not tried yet";
  std::string apply_error_;  // of the last apply or validation; empty if it succeeded

  // Any thread.
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> reload_requested_{false};
  std::atomic<uint16_t> metrics_port_{0};
  std::atomic<bool> connected_{false};
  std::atomic<uint64_t> applies_{0};
  std::atomic<uint64_t> apply_failures_{0};
  std::atomic<uint64_t> reloads_{0};
  std::atomic<double> last_success_unix_s_{0};
  mutable std::mutex health_mu_;
  std::string unhealthy_ = "starting";
};

}  // namespace rocelb
