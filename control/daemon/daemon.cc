#include "control/daemon/daemon.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "control/daemon/file_watcher.h"
#include "control/daemon/metrics_server.h"

namespace rocelb {

namespace {

using Clock = std::chrono::steady_clock;

sigset_t daemon_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

double unix_now_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::optional<uint64_t> generation_of(const ControlReply& reply) {
  if (!reply.ok) return std::nullopt;
  const auto g = reply.result.find("generation");
  if (g == reply.result.end() || !g->is_number_unsigned()) return std::nullopt;
  return g->get<uint64_t>();
}

std::string generation_text(const std::optional<uint64_t>& g) {
  return g ? std::to_string(*g) : std::string("unknown");
}

}  // namespace

DaemonSettings DaemonSettings::from(const DaemonOptions& o) {
  DaemonSettings s;
  s.config_path = o.config_path;
  s.socket_path = o.socket_path;
  s.metrics = o.metrics;
  return s;
}

void block_daemon_signals() {
  const sigset_t set = daemon_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // An ignored signal is discarded, never queued for the signalfd: undo an
  // inherited SIG_IGN (nohup ignores SIGHUP). Blocked, the default action
  // cannot run.
  for (int sig : {SIGHUP, SIGINT, SIGTERM}) ::signal(sig, SIG_DFL);
}

Daemon::Daemon(DaemonSettings settings)
    : settings_(std::move(settings)),
      keeper_(settings_.config_path),
      client_(settings_.socket_path, settings_.request_timeout),
      scraper_(settings_.socket_path, settings_.scrape_timeout) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Daemon::~Daemon() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void Daemon::wake() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void Daemon::request_stop() {
  stop_requested_ = true;
  wake();
}

void Daemon::request_reload() {
  reload_requested_ = true;
  wake();
}

DaemonMetrics Daemon::metrics() const {
  DaemonMetrics m;
  m.dataplane_connected = connected_;
  m.config_applies = applies_;
  m.config_apply_failures = apply_failures_;
  m.config_reloads = reloads_;
  m.last_apply_success_unix_s = last_success_unix_s_;
  return m;
}

std::string Daemon::unhealthy_reason() const {
  std::lock_guard lock(health_mu_);
  return unhealthy_;
}

std::string Daemon::metrics_text() {
  std::string why;
  std::string text = scraper_.fetch(&why).value_or(std::string());
  if (text.empty()) spdlog::debug("/metrics: only the daemon's metrics: {}", why);
  return text + format_daemon_metrics(metrics());
}

void Daemon::update_health(std::optional<bool> connected) {
  // Under the lock, so whoever sees connected_ change and then asks for the
  // health gets the health that goes with it.
  std::lock_guard lock(health_mu_);
  if (connected) connected_ = *connected;
  std::string reason;
  if (!connected_)
    reason = "dataplane not connected: " + connect_error_;
  else if (!apply_error_.empty())
    reason = "last config apply failed: " + apply_error_;
  else if (!keeper_.last_good())
    reason = "no config applied yet";
  unhealthy_ = std::move(reason);
}

int Daemon::run() {
  spdlog::info("rocelbd started: config {}, socket {}, metrics http://{}/metrics",
               settings_.config_path, settings_.socket_path, settings_.metrics.to_string());
  const ConfigRead first = keeper_.read();
  if (!first.ok) {
    spdlog::error("config refused: {}", first.error);
    spdlog::error("no valid config to start with: exiting");
    return 1;
  }
  pending_ = first.text;

  std::optional<FileWatcher> watcher;
  try {
    watcher.emplace(settings_.config_path, settings_.debounce);
  } catch (const std::system_error& e) {
    spdlog::error("cannot watch {} for changes: {}", settings_.config_path, e.what());
    return 1;
  }

  int signal_fd = -1;
  if (settings_.handle_signals) {
    const sigset_t set = daemon_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal_fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd < 0) {
      spdlog::error("signalfd: {}", std::strerror(errno));
      return 1;
    }
  }

  MetricsServer server(settings_.metrics,
                       {[this] { return metrics_text(); }, [this] { return unhealthy_reason(); }});
  int rc = 0;
  try {
    server.start();
    metrics_port_ = server.port();
    rc = loop(signal_fd, *watcher);
  } catch (const MetricsServerError& e) {
    spdlog::error("{}", e.what());
    rc = 1;
  }
  server.stop();
  if (signal_fd >= 0) ::close(signal_fd);
  if (rc == 0) spdlog::info("rocelbd stopped");
  return rc;
}

int Daemon::loop(int signal_fd, FileWatcher& watcher) {
  poll_dataplane();
  auto next_poll = Clock::now() + settings_.poll_interval;
  while (!stop_requested_) {
    auto now = Clock::now();
    int timeout = static_cast<int>(
        std::chrono::ceil<std::chrono::milliseconds>(std::max(next_poll - now, Clock::duration(0)))
            .count());
    if (const int w = watcher.timeout_ms(now); w >= 0) timeout = std::min(timeout, w);

    pollfd fds[3] = {{wake_fd_, POLLIN, 0}, {watcher.fd(), POLLIN, 0}, {signal_fd, POLLIN, 0}};
    const int n = ::poll(fds, signal_fd >= 0 ? 3 : 2, timeout);
    if (n < 0 && errno != EINTR) {
      spdlog::error("poll: {}", std::strerror(errno));
      return 1;
    }
    if (n > 0 && (fds[0].revents & POLLIN)) {
      uint64_t count;
      [[maybe_unused]] ssize_t r = ::read(wake_fd_, &count, sizeof count);
    }
    if (stop_requested_) {
      spdlog::info("stopping (requested)");
      break;
    }
    if (n > 0 && signal_fd >= 0 && (fds[2].revents & POLLIN)) {
      signalfd_siginfo si;
      bool stop = false;
      while (::read(signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGHUP) {
          reload("SIGHUP");
        } else {
          spdlog::info("stopping ({})", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
          stop = true;
        }
      }
      if (stop) break;
    }
    if (reload_requested_.exchange(false)) reload("request");
    if (n > 0 && (fds[1].revents & POLLIN)) watcher.on_readable();
    if (watcher.changed()) reload("file change");
    if (Clock::now() >= next_poll) {
      poll_dataplane();
      next_poll = Clock::now() + settings_.poll_interval;
    }
  }
  return 0;
}

void Daemon::reload(const std::string& trigger) {
  ++reloads_;
  spdlog::info("reload triggered by {}: reading {}", trigger, settings_.config_path);
  const ConfigRead r = keeper_.read();
  if (!r.ok) {
    apply_error_ = r.error;
    update_health();
    ++apply_failures_;
    spdlog::error("config refused, the running config stays: {}", r.error);
    return;
  }
  if (trigger == "file change" && apply_error_.empty() && !pending_ && keeper_.last_good() &&
      *keeper_.last_good() == r.text) {
    spdlog::info("{} is unchanged: nothing to apply", settings_.config_path);
    return;
  }
  pending_ = r.text;
  if (!connected_) {
    apply_error_.clear();
    spdlog::info("dataplane not connected: {} will be applied once it is", settings_.config_path);
    update_health();
    return;
  }
  const std::string text = *pending_;
  if (apply_text(text, trigger) != ApplyResult::kDisconnected) pending_.reset();
}

Daemon::ApplyResult Daemon::apply_text(const std::string& text, const std::string& why) {
  ControlReply reply;
  try {
    reply = client_.apply(text);
  } catch (const ControlConnectError& e) {
    lost_dataplane(e.what());
    return ApplyResult::kDisconnected;
  }
  // Health first, then the counters: whoever sees a counter move sees the
  // health that goes with it.
  if (!reply.ok) {
    apply_error_ = reply.error;
    update_health();
    ++apply_failures_;
    spdlog::error("the switch refused {} ({}), the running config stays: {}", settings_.config_path,
                  why, reply.error);
    return ApplyResult::kRefused;
  }
  const auto generation = generation_of(reply);
  if (generation) last_generation_ = generation;
  keeper_.accept(text);
  apply_error_.clear();
  update_health();
  last_success_unix_s_ = unix_now_s();
  ++applies_;
  spdlog::info("applied {} ({}): generation {}", settings_.config_path, why,
               generation_text(generation));
  return ApplyResult::kApplied;
}

void Daemon::sync_after_connect(const std::string& why) {
  if (pending_) {
    const std::string text = *pending_;
    const ApplyResult r = apply_text(text, why);
    if (r == ApplyResult::kDisconnected) return;  // pending_ stays for the next switch
    pending_.reset();
    if (r == ApplyResult::kApplied) return;
  }
  // A new switch runs whatever it started with: give it the last good text.
  if (keeper_.last_good()) {
    const std::string text = *keeper_.last_good();
    apply_text(text, why + ", last good config");
  }
}

void Daemon::lost_dataplane(const std::string& reason) {
  connect_error_ = reason;
  connect_warned_ = true;
  update_health(false);
  spdlog::warn("lost the dataplane: {}; reconnecting every {} ms", reason,
               settings_.poll_interval.count());
}

void Daemon::poll_dataplane() {
  const bool was_connected = connected_;
  ControlReply reply;
  try {
    reply = client_.show("config");
  } catch (const ControlConnectError& e) {
    if (was_connected) {
      lost_dataplane(e.what());
      poll_dataplane();  // a new switch may be up already
      return;
    }
    const bool news = !connect_warned_ || connect_error_ != e.what();
    connect_error_ = e.what();
    connect_warned_ = true;
    update_health();
    if (news)
      spdlog::warn("dataplane not reachable: {}; retrying every {} ms", e.what(),
                   settings_.poll_interval.count());
    return;
  }
  if (!reply.ok) spdlog::warn("show config refused: {}", reply.error);
  const auto generation = generation_of(reply);

  if (!was_connected) {
    connect_warned_ = false;
    const bool reconnect = ever_connected_;
    ever_connected_ = true;
    last_generation_ = generation;
    update_health(true);
    spdlog::info("{} to the dataplane at {} (generation {})",
                 reconnect ? "reconnected" : "connected", settings_.socket_path,
                 generation_text(generation));
    sync_after_connect(reconnect ? "dataplane reconnected" : "start");
    return;
  }
  if (generation && last_generation_ && *generation < *last_generation_) {
    spdlog::warn(
        "the dataplane's config generation went back from {} to {}: a new switch "
        "process; reapplying",
        *last_generation_, *generation);
    last_generation_ = generation;
    sync_after_connect("dataplane restarted");
    return;
  }
  if (generation) last_generation_ = generation;
}

}  // namespace rocelb
