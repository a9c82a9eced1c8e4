#include "dataplane/record/counters_prometheus.h"

#include <cstdio>
#include <string_view>
#include <vector>

#include "dataplane/forward/counters.h"
#include "dataplane/forward/lcore_stats.h"
#include "lb/lb_counters.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"
#include "pfc/pfc_watchdog.h"
#include "pfc/wred.h"

namespace rocelb {
namespace {

// Label values are escaped as the format says: backslash, quote, newline.
std::string escape(std::string_view v) {
  std::string o;
  for (char c : v) {
    if (c == '\\' || c == '"') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

// Help texts are escaped the same way, minus the quote.
std::string escape_help(std::string_view v) {
  std::string o;
  for (char c : v) {
    if (c == '\\')
      o += "\\\\";
    else if (c == '\n')
      o += "\\n";
    else
      o += c;
  }
  return o;
}

using Labels = std::vector<std::pair<std::string_view, std::string>>;

class Writer {
 public:
  // Starts a family: # HELP and # TYPE, once.
  void family(const std::string& name, std::string_view help, bool counter) {
    out_ += "# HELP " + name + " " + escape_help(help) + "\n";
    out_ += "# TYPE " + name + (counter ? " counter\n" : " gauge\n");
  }
  void sample(const std::string& name, const Labels& labels, const std::string& value) {
    out_ += name;
    if (labels.size()) {
      out_ += '{';
      bool first = true;
      for (const auto& [k, v] : labels) {
        if (!first) out_ += ',';
        first = false;
        out_ += std::string(k) + "=\"" + escape(v) + "\"";
      }
      out_ += '}';
    }
    out_ += ' ' + value + '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// bits / 8, exact: the integer part and up to three decimals.
std::string bytes_of_bits(uint64_t bits) {
  std::string s = std::to_string(bits / 8);
  if (const uint64_t rest = bits % 8) {
    const uint64_t thousandths = rest * 125;  // 1/8 = 0.125
    char buf[8];
    std::snprintf(buf, sizeof buf, ".%03llu", static_cast<unsigned long long>(thousandths));
    s += buf;
    while (s.back() == '0') s.pop_back();
  }
  return s;
}

std::string num(const Json& j) {
  if (j.is_boolean()) return j.get<bool>() ? "1" : "0";
  if (j.is_number_unsigned()) return std::to_string(j.get<uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  if (j.is_number()) {
    char b[64];
    std::snprintf(b, sizeof(b), "%.9g", j.get<double>());
    return b;
  }
  return "0";
}

// Prometheus wants base units: a counter kept in ns, us or ms is exported in
// seconds, its name's unit suffix becoming `_seconds`. The divisor of a
// name's unit suffix, or 0 when it has none.
uint64_t unit_divisor(std::string_view name) {
  for (const auto& [suffix, div] :
       {std::pair<std::string_view, uint64_t>{"_ns", 1000000000}, {"_us", 1000000}, {"_ms", 1000}})
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
      return div;
  return 0;
}

// v / div exactly, as a decimal with as many fraction digits as div has
// zeros (a uint64_t count of ns fits no double exactly: no rounding here).
std::string decimal(uint64_t v, uint64_t div) {
  int digits = 0;
  for (uint64_t d = div; d > 1; d /= 10) ++digits;
  char frac[24];
  std::snprintf(frac, sizeof frac, ".%0*llu", digits, static_cast<unsigned long long>(v % div));
  return std::to_string(v / div) + frac;
}

// A counter's value in base units: seconds for the _ns, _us and _ms ones.
std::string base_value(std::string_view name, const Json& j) {
  const uint64_t div = unit_divisor(name);
  if (!div || !j.is_number()) return num(j);
  if (j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0))
    return decimal(j.get<uint64_t>(), div);
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", j.get<double>() / static_cast<double>(div));
  return b;
}

// The help text of a counter in base units: "nanoseconds the worker slept"
// becomes "seconds the worker slept".
std::string base_help(std::string_view name, std::string_view help) {
  if (!unit_divisor(name)) return std::string(help);
  for (std::string_view unit : {"nanoseconds", "microseconds", "milliseconds"})
    if (help.substr(0, unit.size()) == unit)
      return "seconds" + std::string(help.substr(unit.size()));
  return std::string(help) + " (in seconds)";
}

// rocelb_<scope>_<name>[_total]; `_ns`, `_us`, `_ms` → `_seconds`.
std::string metric(std::string_view scope, std::string_view name, bool counter) {
  // The scope once: pfc_tx_frames in scope pfc is rocelb_pfc_tx_frames_total.
  if (name.size() > scope.size() && name.substr(0, scope.size()) == scope &&
      name[scope.size()] == '_')
    name.remove_prefix(scope.size() + 1);
  std::string n(name);
  if (unit_divisor(n)) n.replace(n.size() - 3, 3, "_seconds");
  return "rocelb_" + std::string(scope) + "_" + n + (counter ? "_total" : "");
}

}  // namespace

std::string counters_prometheus(const Json& c) {
  Writer w;
  const Json& ports = c.at("ports");
  auto port_label = [](const Json& p) { return std::to_string(p.at("id").get<uint64_t>()); };

  w.family("rocelb_port_info", "the port's name (value 1)", false);
  for (const auto& p : ports)
    w.sample("rocelb_port_info",
             {{"port", port_label(p)}, {"name", p.at("name").get<std::string>()}}, "1");
  // Prometheus base units are bytes: a 100G port is 12.5e9 bytes per second.
  w.family("rocelb_port_speed_bytes_per_second", "configured link speed", false);
  for (const auto& p : ports)
    w.sample("rocelb_port_speed_bytes_per_second", {{"port", port_label(p)}},
             bytes_of_bits(p.at("speed_bps").get<uint64_t>()));

  // Link state apart from admin_status (a replay's --event, a device).
  w.family("rocelb_port_link_up", "1 while the port's link is up, else 0", false);
  for (const auto& p : ports)
    w.sample("rocelb_port_link_up", {{"port", port_label(p)}},
             p.value("link", std::string("up")) == "up" ? "1" : "0");
  w.family("rocelb_port_link_changes_total", "times the port's link went down or came up", true);
  for (const auto& p : ports)
    w.sample("rocelb_port_link_changes_total", {{"port", port_label(p)}},
             num(p.value("link_changes", Json(0))));

  for (const CounterInfo& info : kPortCounterInfo) {
    const std::string name = metric("port", info.name, true);
    w.family(name, base_help(info.name, info.help), true);
    for (const auto& p : ports)
      w.sample(name, {{"port", port_label(p)}}, base_value(info.name, p.at(info.name)));
  }
  w.family("rocelb_port_dropped_packets_total", "packets dropped, by reason", true);
  for (const auto& p : ports)
    for (int k = 1; k < kNumDropReasons; ++k)
      w.sample("rocelb_port_dropped_packets_total",
               {{"port", port_label(p)}, {"reason", std::string(kDropInfo[k].name)}},
               num(p.at("drops").at(kDropInfo[k].name)));

  // Queues: counters, then gauges.
  auto queue_labels = [&](const Json& p, const Json& q) {
    return Labels{{"port", port_label(p)}, {"queue", std::to_string(q.at("tc").get<int>())}};
  };
  auto queue_family = [&](std::string_view key, std::string_view help, bool counter) {
    const std::string name = metric("queue", key, counter);
    w.family(name, base_help(key, help), counter);
    for (const auto& p : ports)
      for (const auto& q : p.at("queues"))
        w.sample(name, queue_labels(p, q), base_value(key, q.at(std::string(key))));
  };
  for (const QueueCounterInfo& info : kQueueCounters) queue_family(info.name, info.help, true);
  for (const QueueGaugeInfo& info : kQueueGauges) queue_family(info.name, info.help, false);
  for (const WredCounterInfo& info : kWredCounters) {
    const std::string name = metric("queue", info.name, true);
    w.family(name, base_help(info.name, info.help), true);
    for (const auto& p : ports)
      for (const auto& q : p.at("queues"))
        w.sample(name, queue_labels(p, q), base_value(info.name, q.at(info.name)));
  }

  // PFC per (port, priority): received, then sent.
  auto pfc_family = [&](std::string_view cname, std::string_view help) {
    const std::string name = metric("pfc", cname, true);
    w.family(name, base_help(cname, help), true);
    for (const auto& p : ports) {
      const Json& per = p.at("pfc").at(std::string(cname));
      for (size_t prio = 0; prio < per.size(); ++prio)
        w.sample(name, {{"port", port_label(p)}, {"priority", std::to_string(prio)}},
                 base_value(cname, per[prio]));
    }
  };
  for (const PfcRxCounterInfo& info : kPfcRxCounters) pfc_family(info.name, info.help);
  for (const PfcTxCounterInfo& info : kPfcTxCounters) pfc_family(info.name, info.help);

  for (const PfcWatchdogCounterInfo& info : kPfcWatchdogCounters) {
    const bool gauge = info.name == "storm";
    const std::string name =
        gauge ? "rocelb_pfc_watchdog_storm" : metric("pfc_watchdog", info.name, true);
    w.family(name, base_help(info.name, info.help), !gauge);
    for (const auto& p : ports)
      for (const auto& q : p.at("pfc_watchdog"))
        w.sample(name, queue_labels(p, q), base_value(info.name, q.at(std::string(info.name))));
  }

  // Load-balancing groups and their members.
  const Json& groups = c.at("groups");
  for (const LbCounterInfo& info : kLbCounters) {
    const std::string name = metric("group", info.name, true);
    w.family(name, base_help(info.name, info.help), true);
    for (const auto& g : groups)
      w.sample(name, {{"group", g.at("name").get<std::string>()}},
               base_value(info.name, g.at(info.name)));
  }
  for (const MemberCounterInfo& info : kMemberCounters) {
    const std::string k(info.name);
    const std::string name = metric("group_member", k, true);
    w.family(name, base_help(k, info.help), true);
    for (const auto& g : groups)
      for (const auto& m : g.at("members"))
        w.sample(name,
                 {{"group", g.at("name").get<std::string>()},
                  {"member", m.at("via").get<std::string>()},
                  {"port", std::to_string(m.at("port").get<int>())}},
                 base_value(k, m.at(k)));
  }

  // Worker lcores (live only): where the cycles went.
  if (c.contains("lcores")) {
    for (const LcoreCounterInfo& info : kLcoreCounters) {
      const std::string name = metric("lcore", info.name, true);
      w.family(name, base_help(info.name, info.help), true);
      for (const auto& l : c.at("lcores"))
        w.sample(name,
                 {{"worker", std::to_string(l.at("worker").get<uint64_t>())},
                  {"lcore", std::to_string(l.at("lcore").get<int64_t>())}},
                 base_value(info.name, l.at(std::string(info.name))));
    }
    w.family("rocelb_lcore_tsc_hz", "TSC ticks per second: cycles / tsc_hz = seconds", false);
    w.sample("rocelb_lcore_tsc_hz", {}, num(c.at("tsc_hz")));
  }

  const Json& t = c.at("totals");
  w.family("rocelb_queued_packets", "packets held in egress queues now", false);
  w.sample("rocelb_queued_packets", {}, num(t.at("queued_packets")));
  w.family("rocelb_awaiting_device_packets",
           "frames handed to a device that has not taken them yet", false);
  w.sample("rocelb_awaiting_device_packets", {}, num(t.value("awaiting_device_packets", Json(0))));
  w.family("rocelb_in_flight_packets",
           "frames a running switch's workers held while the counters were read (0 at rest)",
           false);
  w.sample("rocelb_in_flight_packets", {}, num(t.value("in_flight_packets", Json(0))));
  w.family("rocelb_conserved",
           "1 when rx + generated = tx + consumed + dropped + queued + awaiting device + in "
           "flight holds with nothing counted twice (in flight 0 at rest), else 0",
           false);
  w.sample("rocelb_conserved", {}, num(t.at("conserved")));
  return w.take();
}

ControlMetrics control_metrics(const ControlServer& server) {
  ControlMetrics m;
  m.server = server.stats();
  m.clients = server.clients();
  m.queued_bytes = server.queued_bytes();
  m.peak_queued_bytes = server.peak_queued_bytes();
  m.limits = server.options();
  m.limits.max_clients_per_uid = server.per_uid_limit();
  return m;
}

std::string control_prometheus(const ControlMetrics& m) {
  Writer w;
  const ControlServerStats& s = m.server;
  auto one = [&](const char* name, const char* help, bool counter, const std::string& value) {
    w.family(name, help, counter);
    w.sample(name, {}, value);
  };
  auto by = [&](const char* name, const char* help, std::string_view label,
                std::initializer_list<std::pair<const char*, uint64_t>> values) {
    w.family(name, help, true);
    for (const auto& [v, n] : values) w.sample(name, {{label, v}}, std::to_string(n));
  };
  auto seconds = [](uint64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", static_cast<double>(ns) / 1e9);
    return std::string(b);
  };
  one("rocelb_control_clients", "clients connected to the control socket now", false,
      std::to_string(m.clients));
  one("rocelb_control_connections_accepted_total", "connections the control socket served", true,
      std::to_string(s.accepted));
  by("rocelb_control_connections_refused_total",
     "connections refused on arrival: peer not permitted, credentials unreadable, "
     "control.max_clients or control.max_clients_per_uid reached",
     "reason",
     {{"not_permitted", s.refused_peer},
      {"no_credentials", s.refused_no_creds},
      {"max_clients", s.refused_full},
      {"max_clients_per_uid", s.refused_uid}});
  by("rocelb_control_connections_closed_total",
     "connections the switch closed on its own: a request begun or a reply unread for "
     "control.client_timeout, nothing pending for control.idle_timeout",
     "reason", {{"client_timeout", s.timeouts}, {"idle_timeout", s.idle_closed}});
  one("rocelb_control_requests_total", "requests received, bad ones included", true,
      std::to_string(s.requests));
  one("rocelb_control_bad_requests_total",
      "requests answered with an error before reaching the switch (malformed, oversize)", true,
      std::to_string(s.bad_requests));
  by("rocelb_control_config_writes_total",
     "set, apply and SIGHUP reloads: applied, or refused with the running config kept", "result",
     {{"applied", m.writes_applied}, {"refused", m.writes_refused}});
  one("rocelb_control_reply_queued_bytes", "reply bytes held for clients now, not yet sent", false,
      std::to_string(m.queued_bytes));
  one("rocelb_control_reply_queued_peak_bytes", "the most reply bytes held at once since start",
      false, std::to_string(m.peak_queued_bytes));
  one("rocelb_control_reply_queue_limit_bytes",
      "reply bytes held for all clients beyond which requests wait", false,
      std::to_string(m.limits.max_queued_bytes));
  one("rocelb_control_max_clients", "control.max_clients in force", false,
      std::to_string(m.limits.max_clients));
  one("rocelb_control_max_clients_per_uid", "control.max_clients_per_uid in force", false,
      std::to_string(m.limits.max_clients_per_uid));
  one("rocelb_control_client_timeout_seconds", "control.client_timeout in force", false,
      seconds(m.limits.client_timeout_ns));
  one("rocelb_control_idle_timeout_seconds", "control.idle_timeout in force", false,
      seconds(m.limits.idle_timeout_ns));
  return w.take();
}

std::string xdp_prometheus(const Json& ports) {
  Writer w;
  for (const char* unit : {"frames", "bytes"}) {
    const std::string name = std::string("rocelb_port_xdp_") + unit + "_total";
    const std::string help = std::string(unit) +
                             " the port's XDP steering program sent to the switch (by reason: "
                             "rocev2, rocev1, mac_ctrl, neighbor, own_address, all) or to the "
                             "kernel (passed, or no_socket: meant for the switch, none bound)";
    w.family(name, help, true);
    const char* field = unit[0] == 'f' ? "packets" : "bytes";
    for (const Json& p : ports) {
      const std::string port = std::to_string(p.at("id").get<uint64_t>());
      const Json& x = p.at("xdp");
      for (const auto& [reason, v] : x.at("to_switch").items())
        w.sample(name, {{"port", port}, {"to", "switch"}, {"reason", reason}},
                 std::to_string(v.at(field).get<uint64_t>()));
      w.sample(name, {{"port", port}, {"to", "kernel"}, {"reason", "passed"}},
               std::to_string(x.at("to_kernel").at(field).get<uint64_t>()));
      w.sample(name, {{"port", port}, {"to", "kernel"}, {"reason", "no_socket"}},
               std::to_string(x.at("no_socket").at(field).get<uint64_t>()));
    }
  }
  return w.take();
}

}  // namespace rocelb
