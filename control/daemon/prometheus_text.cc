#include "control/daemon/prometheus_text.h"

#include <cstdio>

namespace rocelb {

namespace {

struct MetricDef {
  const char* name;
  const char* type;
  const char* help;
  double (*value)(const DaemonMetrics&);
};

constexpr MetricDef kMetrics[] = {
    {"rocelb_daemon_up", "gauge", "1 while rocelbd runs.",
     [](const DaemonMetrics&) { return 1.0; }},
    {"rocelb_daemon_dataplane_connected", "gauge",
     "1 when rocelbd reaches the switch over its control socket, else 0.",
     [](const DaemonMetrics& m) { return m.dataplane_connected ? 1.0 : 0.0; }},
    {"rocelb_daemon_config_applies_total", "counter",
     "Config texts the switch accepted from rocelbd (start, reloads, reapplies after a switch "
     "restart).",
     [](const DaemonMetrics& m) { return static_cast<double>(m.config_applies); }},
    {"rocelb_daemon_config_apply_failures_total", "counter",
     "Config texts refused, by validation in rocelbd or by the switch; the running config stayed.",
     [](const DaemonMetrics& m) { return static_cast<double>(m.config_apply_failures); }},
    {"rocelb_daemon_config_reloads_total", "counter",
     "Reloads of the config file, triggered by SIGHUP or by a change of the file.",
     [](const DaemonMetrics& m) { return static_cast<double>(m.config_reloads); }},
    {"rocelb_daemon_last_apply_success_timestamp_seconds", "gauge",
     "Unix time of the last config the switch accepted from rocelbd; 0 if none yet.",
     [](const DaemonMetrics& m) { return m.last_apply_success_unix_s; }},
};

}  // namespace

std::string format_daemon_metrics(const DaemonMetrics& m) {
  std::string out;
  char value[64];
  for (const MetricDef& d : kMetrics) {
    out += std::string("# HELP ") + d.name + " " + d.help + "\n";
    out += std::string("# TYPE ") + d.name + " " + d.type + "\n";
    // 15 digits: counters print as integers below 10^15, the timestamp to the
    // millisecond.
    std::snprintf(value, sizeof value, "%.15g", d.value(m));
    out += std::string(d.name) + " " + value + "\n";
  }
  return out;
}

}  // namespace rocelb
