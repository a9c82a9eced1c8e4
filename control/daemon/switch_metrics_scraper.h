// Fetches the switch's Prometheus text (`show metrics` on the control
// socket) for /metrics. Its own ControlClient, separate from the daemon's
// main loop, with a short timeout, so a scrape never waits behind an apply
// and a hung switch costs a scrape at most `timeout`. Thread-safe: httplib
// serves scrapes on several threads, a mutex takes them one at a time.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "control/control_client.h"

namespace rocelb {

class SwitchMetricsScraper {
 public:
  SwitchMetricsScraper(std::string socket_path, std::chrono::milliseconds timeout);

  // The exposition text, '\n'-terminated; nullopt when the switch cannot be
  // reached or refuses (then *why, if given, says why).
  std::optional<std::string> fetch(std::string* why = nullptr);

 private:
  std::mutex mu_;
  ControlClient client_;
};

}  // namespace rocelb
