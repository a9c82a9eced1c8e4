#include "dataplane/mgmt/counters_prometheus.h"

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

// A counter ending in _us, as seconds.
std::string seconds_of_us(const Json& j) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.6f", static_cast<double>(j.get<uint64_t>()) / 1e6);
  return b;
}

// rocelb_<scope>_<name>[_total]; `_us` → `_seconds`.
std::string metric(std::string_view scope, std::string_view name, bool counter) {
  // The scope once: pfc_tx_frames in scope pfc is rocelb_pfc_tx_frames_total.
  if (name.size() > scope.size() && name.substr(0, scope.size()) == scope &&
      name[scope.size()] == '_')
    name.remove_prefix(scope.size() + 1);
  std::string n(name);
  if (n.size() > 3 && n.compare(n.size() - 3, 3, "_us") == 0)
    n.replace(n.size() - 3, 3, "_seconds");
  return "rocelb_" + std::string(scope) + "_" + n + (counter ? "_total" : "");
}

bool is_us(std::string_view name) {
  return name.size() > 3 && name.substr(name.size() - 3) == "_us";
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

  for (const CounterInfo& info : kPortCounterInfo) {
    const std::string name = metric("port", info.name, true);
    w.family(name, info.help, true);
    for (const auto& p : ports) w.sample(name, {{"port", port_label(p)}}, num(p.at(info.name)));
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
    const std::string name =
        counter ? metric("queue", key, true) : "rocelb_queue_" + std::string(key);
    w.family(name, help, counter);
    for (const auto& p : ports)
      for (const auto& q : p.at("queues"))
        w.sample(name, queue_labels(p, q), num(q.at(std::string(key))));
  };
  for (const QueueCounterInfo& info : kQueueCounters) queue_family(info.name, info.help, true);
  for (const QueueGaugeInfo& info : kQueueGauges) queue_family(info.name, info.help, false);
  for (const WredCounterInfo& info : kWredCounters) {
    const std::string name = metric("queue", info.name, true);
    w.family(name, info.help, true);
    for (const auto& p : ports)
      for (const auto& q : p.at("queues")) w.sample(name, queue_labels(p, q), num(q.at(info.name)));
  }

  // PFC per (port, priority): received, then sent.
  auto pfc_family = [&](std::string_view cname, std::string_view help) {
    const std::string name = metric("pfc", cname, true);
    w.family(name, help, true);
    for (const auto& p : ports) {
      const Json& per = p.at("pfc").at(std::string(cname));
      for (size_t prio = 0; prio < per.size(); ++prio)
        w.sample(name, {{"port", port_label(p)}, {"priority", std::to_string(prio)}},
                 is_us(cname) ? seconds_of_us(per[prio]) : num(per[prio]));
    }
  };
  for (const PfcRxCounterInfo& info : kPfcRxCounters) pfc_family(info.name, info.help);
  for (const PfcTxCounterInfo& info : kPfcTxCounters) pfc_family(info.name, info.help);

  for (const PfcWatchdogCounterInfo& info : kPfcWatchdogCounters) {
    const bool gauge = info.name == "storm";
    const std::string name =
        gauge ? "rocelb_pfc_watchdog_storm" : metric("pfc_watchdog", info.name, true);
    w.family(name, info.help, !gauge);
    for (const auto& p : ports)
      for (const auto& q : p.at("pfc_watchdog"))
        w.sample(name, queue_labels(p, q), num(q.at(std::string(info.name))));
  }

  // Load-balancing groups and their members.
  const Json& groups = c.at("groups");
  for (const LbCounterInfo& info : kLbCounters) {
    const std::string name = metric("group", info.name, true);
    w.family(name, info.help, true);
    for (const auto& g : groups)
      w.sample(name, {{"group", g.at("name").get<std::string>()}}, num(g.at(info.name)));
  }
  for (const MemberCounterInfo& info : kMemberCounters) {
    const std::string k(info.name);
    const std::string name = metric("group_member", k, true);
    w.family(name, info.help, true);
    for (const auto& g : groups)
      for (const auto& m : g.at("members"))
        w.sample(name,
                 {{"group", g.at("name").get<std::string>()},
                  {"member", m.at("via").get<std::string>()},
                  {"port", std::to_string(m.at("port").get<int>())}},
                 num(m.at(k)));
  }

  // Worker lcores (live only): where the cycles went.
  if (c.contains("lcores")) {
    for (const LcoreCounterInfo& info : kLcoreCounters) {
      const std::string name = metric("lcore", info.name, true);
      w.family(name, info.help, true);
      for (const auto& l : c.at("lcores"))
        w.sample(name,
                 {{"worker", std::to_string(l.at("worker").get<uint64_t>())},
                  {"lcore", std::to_string(l.at("lcore").get<int64_t>())}},
                 num(l.at(std::string(info.name))));
    }
    w.family("rocelb_lcore_tsc_hz", "TSC ticks per second: cycles / tsc_hz = seconds", false);
    w.sample("rocelb_lcore_tsc_hz", {}, num(c.at("tsc_hz")));
  }

  const Json& t = c.at("totals");
  w.family("rocelb_queued_packets", "packets held in egress queues now", false);
  w.sample("rocelb_queued_packets", {}, num(t.at("queued_packets")));
  w.family("rocelb_conserved",
           "1 when rx + generated = tx + consumed + dropped + queued holds, else 0", false);
  w.sample("rocelb_conserved", {}, num(t.at("conserved")));
  return w.take();
}

}  // namespace rocelb
