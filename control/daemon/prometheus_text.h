// The daemon's own metrics in the Prometheus text exposition format
// (version 0.0.4), appended by /metrics after the switch's counters:
//
//   rocelb_daemon_up                                   gauge, always 1
//   rocelb_daemon_dataplane_connected                  gauge, 0|1
//   rocelb_daemon_config_applies_total                 counter, texts the switch accepted
//   rocelb_daemon_config_apply_failures_total          counter, texts refused (by
//                                                      validation here or by the switch)
//   rocelb_daemon_config_reloads_total                 counter, reloads triggered
//                                                      (SIGHUP or a change of the file)
//   rocelb_daemon_last_apply_success_timestamp_seconds gauge, Unix time, 0 = never
//
// Each with its # HELP and # TYPE lines; names and help are declared once,
// in the table in prometheus_text.cc.
#pragma once

#include <cstdint>
#include <string>

namespace rocelb {

inline constexpr const char* kDaemonMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

struct DaemonMetrics {
  bool dataplane_connected = false;
  uint64_t config_applies = 0;
  uint64_t config_apply_failures = 0;
  uint64_t config_reloads = 0;
  double last_apply_success_unix_s = 0;  // 0: never
};

std::string format_daemon_metrics(const DaemonMetrics& m);

}  // namespace rocelb
