#include "tools/docgen/counters_page.h"

#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "dataplane/forward/counters.h"
#include "dataplane/forward/lcore_stats.h"
#include "dataplane/record/counters_prometheus.h"
#include "dataplane/sim/roce_nic.h"
#include "dataplane/wire/parsed_packet.h"
#include "lb/lb_counters.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"
#include "pfc/pfc_watchdog.h"
#include "pfc/wred.h"

namespace rocelb {
namespace {

// One sample line of the exposition format: its family and labels.
struct Sample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
};

Sample parse_sample(const std::string& line) {
  Sample s;
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name += line[i++];
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      std::string key, value;
      while (i < line.size() && line[i] != '=') key += line[i++];
      i += 2;  // ="
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        value += line[i++];
      }
      ++i;  // closing quote
      if (i < line.size() && line[i] == ',') ++i;
      s.labels.emplace_back(key, value);
    }
  }
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The families of an exposition text, in order: name → type and help.
struct Family {
  std::string name, type, help;
  std::vector<std::string> label_keys;  // of its first sample
};

std::vector<Family> families_of(const std::string& text) {
  std::vector<Family> out;
  for (const std::string& l : lines_of(text)) {
    if (l.rfind("# HELP ", 0) == 0) {
      const size_t sp = l.find(' ', 7);
      out.push_back({l.substr(7, sp - 7), "", l.substr(sp + 1), {}});
    } else if (l.rfind("# TYPE ", 0) == 0) {
      out.back().type = l.substr(l.rfind(' ') + 1);
    } else if (!l.empty() && l[0] != '#' && !out.empty() && out.back().label_keys.empty()) {
      for (const auto& [k, v] : parse_sample(l).labels) out.back().label_keys.push_back(k);
    }
  }
  return out;
}

// A counters JSON as counters_to_json() lays it out, every value 0: one
// port with one queue and one watchdog class, one group with one member,
// one worker lcore.
Json zero_counters() {
  Json p;
  p["id"] = 0;
  p["name"] = "port0";
  p["speed_bps"] = uint64_t{100'000'000'000};
  p["link"] = "up";
  p["link_changes"] = 0;
  for (const CounterInfo& i : kPortCounterInfo) p[std::string(i.name)] = 0;
  Json drops = Json::object();
  for (int k = 1; k < kNumDropReasons; ++k) drops[std::string(kDropInfo[k].name)] = 0;
  p["drops"] = drops;
  p["drops_total"] = 0;
  Json q;
  q["tc"] = 0;
  for (const QueueCounterInfo& i : kQueueCounters) q[std::string(i.name)] = 0;
  for (const QueueGaugeInfo& i : kQueueGauges) q[std::string(i.name)] = 0;
  for (const WredCounterInfo& i : kWredCounters) q[std::string(i.name)] = 0;
  p["queues"] = Json::array({q});
  Json pfc = Json::object();
  const Json per_priority = Json::array({0, 0, 0, 0, 0, 0, 0, 0});
  for (const PfcRxCounterInfo& i : kPfcRxCounters) pfc[std::string(i.name)] = per_priority;
  for (const PfcTxCounterInfo& i : kPfcTxCounters) pfc[std::string(i.name)] = per_priority;
  p["pfc"] = pfc;
  Json wd;
  wd["tc"] = 0;
  wd["state"] = "ok";
  for (const PfcWatchdogCounterInfo& i : kPfcWatchdogCounters) wd[std::string(i.name)] = 0;
  p["pfc_watchdog"] = Json::array({wd});

  Json m;
  m["via"] = "10.0.0.2";
  m["port"] = 0;
  m["weight"] = 1;
  for (const MemberCounterInfo& i : kMemberCounters) m[std::string(i.name)] = 0;
  Json g;
  g["name"] = "group0";
  g["mode"] = "fixed";
  for (const LbCounterInfo& i : kLbCounters) g[std::string(i.name)] = 0;
  g["members"] = Json::array({m});

  Json l;
  l["worker"] = 0;
  l["lcore"] = 1;
  for (const LcoreCounterInfo& i : kLcoreCounters) l[std::string(i.name)] = 0;

  Json c;
  c["schema"] = "rocelb.counters.v1";
  c["ports"] = Json::array({p});
  c["groups"] = Json::array({g});
  c["tsc_hz"] = 1;
  c["lcores"] = Json::array({l});
  Json t;
  for (const char* k :
       {"rx_packets", "generated_packets", "tx_packets", "consumed_packets", "dropped_packets",
        "queued_packets", "awaiting_device_packets", "in_flight_packets"})
    t[k] = 0;
  t["running"] = false;
  t["conserved"] = true;
  c["totals"] = t;
  return c;
}

// What the exporter makes of one counter: its family (with the labels
// that tell its samples apart; a label whose value is the counter's own
// name is shown with that value) and the family's type. "" when the
// exporter does not show it.
class MetricFinder {
 public:
  MetricFinder() : zero_(zero_counters()), base_(counters_prometheus(zero_)) {
    for (const std::string& l : lines_of(base_)) base_lines_.insert(l);
    for (const Family& f : families_of(base_)) types_.emplace_back(f.name, f.type);
  }

  // set: makes the counter non-zero in a copy of the zero counters.
  std::string find(std::string_view counter, const std::function<void(Json&)>& set) {
    Json c = zero_;
    set(c);
    std::string found;
    for (const std::string& l : lines_of(counters_prometheus(c))) {
      if (l.empty() || l[0] == '#' || base_lines_.count(l)) continue;
      const Sample s = parse_sample(l);
      std::string cell = "`" + s.name;
      if (!s.labels.empty()) {
        cell += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i) cell += ',';
          cell += s.labels[i].first;
          if (s.labels[i].second == counter) cell += "=\"" + s.labels[i].second + "\"";
        }
        cell += '}';
      }
      cell += '`';
      for (const auto& [name, type] : types_)
        if (name == s.name && type != "counter") cell += " (" + type + ")";
      if (!found.empty() && found != cell)
        throw std::runtime_error(std::string(counter) + ": shown as two metrics");
      found = cell;
      shown_.insert(s.name);
    }
    return found;
  }

  // Families of counters_prometheus() that no counter table row became.
  std::vector<Family> others() const {
    std::vector<Family> out;
    for (const Family& f : families_of(base_))
      if (!shown_.count(f.name)) out.push_back(f);
    return out;
  }

 private:
  Json zero_;
  std::string base_;
  std::set<std::string> base_lines_;
  std::vector<std::pair<std::string, std::string>> types_;
  std::set<std::string> shown_;
};

// Markdown table cells: | and < > would break the table or read as HTML.
std::string cell(std::string_view text) {
  std::string o;
  for (char ch : text) {
    if (ch == '|')
      o += "\\|";
    else if (ch == '<')
      o += "&lt;";
    else if (ch == '>')
      o += "&gt;";
    else
      o += ch;
  }
  return o;
}

struct Row {
  std::string name, metric, help;
};

struct Section {
  std::string title, text;
  std::vector<Row> rows;
  bool prometheus = true;
};

std::string anchor(std::string_view title) {
  std::string a;
  for (char ch : title) {
    if (ch >= 'A' && ch <= 'Z')
      a += static_cast<char>(ch - 'A' + 'a');
    else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_')
      a += ch;
    else if (ch == ' ')
      a += '-';
  }
  return a;
}

}  // namespace

std::string counters_page() {
  MetricFinder finder;
  std::vector<Section> sections;
  auto port0 = [](Json& c) -> Json& { return c["ports"][0]; };

  Section port{"Port counters",
               "Per port. `counters.json`: `ports[].<counter>`. Table "
               "`ROCELB_PORT_COUNTERS`.",
               {}};
  for (const CounterInfo& i : kPortCounterInfo)
    port.rows.push_back({std::string(i.name),
                         finder.find(i.name, [&](Json& c) { port0(c)[std::string(i.name)] = 1; }),
                         std::string(i.help)});
  sections.push_back(port);

  // The parser's verdicts come first in the drop table; verdict 0 is a good
  // frame, never counted.
  Section parse{"Drop reasons: the parser",
                "Per ingress port, one for each verdict of the parser but `" +
                    std::string(kDropInfo[0].name) +
                    "` (a frame it could read). `counters.json`: "
                    "`ports[].drops.<reason>`. Table `ROCELB_PARSE_RESULTS`, each "
                    "named `parse_<verdict>`.",
                {}};
  Section forward{"Drop reasons: forwarding",
                  "Per port (which port counts each: [counters-json.md](counters-json.md)). "
                  "`counters.json`: `ports[].drops.<reason>`. Table "
                  "`ROCELB_FORWARD_DROPS`.",
                  {}};
  for (int k = 1; k < kNumDropReasons; ++k) {
    const std::string name(kDropInfo[k].name);
    (k < kNumParseResults ? parse : forward)
        .rows.push_back({name, finder.find(name, [&](Json& c) { port0(c)["drops"][name] = 1; }),
                         std::string(kDropInfo[k].help)});
  }
  sections.push_back(parse);
  sections.push_back(forward);

  auto queue_rows = [&](Section& s, std::string_view name, std::string_view help) {
    const std::string key(name);
    s.rows.push_back({key, finder.find(name, [&](Json& c) { port0(c)["queues"][0][key] = 1; }),
                      std::string(help)});
  };
  Section queue{"Egress queues",
                "Per port and traffic class (8 a port). `counters.json`: "
                "`ports[].queues[].<counter>`. Tables `ROCELB_QUEUE_COUNTERS`, "
                "`ROCELB_QUEUE_GAUGES` (gauges: values now) and `ROCELB_WRED_COUNTERS`.",
                {}};
  for (const QueueCounterInfo& i : kQueueCounters) queue_rows(queue, i.name, i.help);
  for (const QueueGaugeInfo& i : kQueueGauges) queue_rows(queue, i.name, i.help);
  for (const WredCounterInfo& i : kWredCounters) queue_rows(queue, i.name, i.help);
  sections.push_back(queue);

  Section pfc{"PFC",
              "Per port and priority: received PFC (what the port honoured, "
              "`ROCELB_PFC_RX_COUNTERS`), then sent PFC (`ROCELB_PFC_TX_COUNTERS`). "
              "`counters.json`: `ports[].pfc.<counter>[priority]`.",
              {}};
  auto pfc_row = [&](std::string_view name, std::string_view help) {
    const std::string key(name);
    pfc.rows.push_back(
        {key, finder.find(name, [&](Json& c) { port0(c)["pfc"][key][0] = 1; }), std::string(help)});
  };
  for (const PfcRxCounterInfo& i : kPfcRxCounters) pfc_row(i.name, i.help);
  for (const PfcTxCounterInfo& i : kPfcTxCounters) pfc_row(i.name, i.help);
  sections.push_back(pfc);

  Section wd{"PFC watchdog",
             "Per port and traffic class. `counters.json`: "
             "`ports[].pfc_watchdog[].<counter>`. Table `ROCELB_PFC_WATCHDOG_COUNTERS`.",
             {}};
  for (const PfcWatchdogCounterInfo& i : kPfcWatchdogCounters) {
    const std::string key(i.name);
    wd.rows.push_back({key,
                       finder.find(key, [&](Json& c) { port0(c)["pfc_watchdog"][0][key] = 1; }),
                       std::string(i.help)});
  }
  sections.push_back(wd);

  Section lb{"Load-balancing groups",
             "Per next-hop group, then per member of a group. `counters.json`: "
             "`groups[].<counter>` (`ROCELB_LB_COUNTERS`) and "
             "`groups[].members[].<counter>` (`ROCELB_MEMBER_COUNTERS`).",
             {}};
  for (const LbCounterInfo& i : kLbCounters) {
    const std::string key(i.name);
    lb.rows.push_back(
        {key, finder.find(key, [&](Json& c) { c["groups"][0][key] = 1; }), std::string(i.help)});
  }
  for (const MemberCounterInfo& i : kMemberCounters) {
    const std::string key(i.name);
    lb.rows.push_back({key,
                       finder.find(key, [&](Json& c) { c["groups"][0]["members"][0][key] = 1; }),
                       std::string(i.help)});
  }
  sections.push_back(lb);

  Section lcore{"Worker lcores",
                "Live only, per forwarding worker (`rocelbctl show lcores`). "
                "`counters.json`: `lcores[].<counter>`, with `tsc_hz`. Table "
                "`ROCELB_LCORE_COUNTERS`.",
                {}};
  for (const LcoreCounterInfo& i : kLcoreCounters) {
    const std::string key(i.name);
    lcore.rows.push_back(
        {key, finder.find(key, [&](Json& c) { c["lcores"][0][key] = 1; }), std::string(i.help)});
  }
  sections.push_back(lcore);

  Section nic{"Fabric NICs",
              "The RoCE NIC model of `rocelb-dp fabric`, summed over every NIC of the "
              "fabric: `summary.json`: `nics.<counter>`. Table `ROCELB_NIC_COUNTERS`.",
              {},
              false};
  for (const NicCounterInfo& i : kNicCounters)
    nic.rows.push_back({std::string(i.name), "", std::string(i.help)});
  sections.push_back(nic);

  // Metrics that are not a row of a counter table: port facts and totals,
  // the control socket's, the XDP steering programs'.
  Section other{"Other Prometheus metrics",
                "Metrics the exporters write that are not a row of a counter table: "
                "port facts and the conservation totals (`counters.json`: `totals`), the "
                "control socket's own figures, the XDP steering programs' counters.",
                {}};
  Json xdp_port;
  xdp_port["id"] = 0;
  const Json frames = {{"packets", 0}, {"bytes", 0}};
  xdp_port["xdp"] = {
      {"to_switch", {{"rocev2", frames}}}, {"to_kernel", frames}, {"no_socket", frames}};
  std::vector<Family> fams = finder.others();
  for (const Family& f : families_of(control_prometheus(ControlMetrics{}))) fams.push_back(f);
  for (const Family& f : families_of(xdp_prometheus(Json::array({xdp_port})))) fams.push_back(f);
  for (const Family& f : fams) {
    std::string metric = "`" + f.name;
    if (!f.label_keys.empty()) {
      metric += '{';
      for (size_t i = 0; i < f.label_keys.size(); ++i) metric += (i ? "," : "") + f.label_keys[i];
      metric += '}';
    }
    metric += '`';
    if (f.type != "counter") metric += " (" + f.type + ")";
    other.rows.push_back({"", metric, f.help});
  }

  std::string o;
  o += "# Counters and drop reasons\n\n";
  o += "<!-- Generated by tools/gen-docs from the counter tables; do not edit. -->\n\n";
  o += "Every counter rocelb keeps, with the help text the code declares for it. Each table "
       "below is one X-macro table of the code; `counters.json`, the console table, "
       "`rocelbctl show`, Prometheus (`rocelbd`'s `/metrics`) and DPDK telemetry all walk "
       "these tables, and this page is generated from them (`tools/gen-docs`; a test fails "
       "when it is out of date). The Prometheus names are those the exporter writes, found by "
       "running it: counters end in `_total`, and a counter kept in `_ns` or `_us` is exported "
       "in seconds. How the counters add up (every packet ends in exactly one place) and the "
       "layout of `counters.json`: [counters-json.md](counters-json.md).\n\n";
  for (const Section& s : sections) o += "- [" + s.title + "](#" + anchor(s.title) + ")\n";
  o += "- [" + other.title + "](#" + anchor(other.title) + ")\n";
  for (const Section& s : sections) {
    o += "\n## " + s.title + "\n\n" + s.text + "\n\n";
    if (s.prometheus) {
      o += "| counter | Prometheus | meaning |\n|---|---|---|\n";
      for (const Row& r : s.rows)
        o += "| `" + r.name + "` | " + (r.metric.empty() ? "—" : r.metric) + " | " + cell(r.help) +
             " |\n";
    } else {
      o += "| counter | meaning |\n|---|---|\n";
      for (const Row& r : s.rows) o += "| `" + r.name + "` | " + cell(r.help) + " |\n";
    }
  }
  o += "\n## " + other.title + "\n\n" + other.text + "\n\n";
  o += "| Prometheus | meaning |\n|---|---|\n";
  for (const Row& r : other.rows) o += "| " + r.metric + " | " + cell(r.help) + " |\n";
  return o;
}

}  // namespace rocelb
