#include "tools/ctl/show_format.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/conservation_line.h"
#include "control/human_units.h"
#include "control/units.h"
#include "tools/ctl/result_fields.h"
#include "tools/ctl/table.h"

namespace rocelb {
namespace {

using json = nlohmann::json;

using namespace fields;

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// "prefix item, item, ..." wrapped before `width` columns, continuation lines
// indented under the first item.
std::string wrap_list(const std::string& prefix, const std::vector<std::string>& items,
                      size_t width = 100) {
  std::string out = prefix, line_start_pad(prefix.size(), ' ');
  size_t col = prefix.size();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (i > 0) {
      if (col + 1 + piece.size() > width) {
        out += "\n" + line_start_pad;
        col = line_start_pad.size();
      } else {
        out += " ";
        ++col;
      }
    }
    out += piece;
    col += piece.size();
  }
  return out + "\n";
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A group knob's value: *_ns as a duration, *_bytes as bytes, lists element
// by element, anything else as JSON writes it (strings bare).
std::string knob_value(const std::string& key, const json& v) {
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const auto& e : v) items.push_back(knob_value(key, e));
    return "[" + join(items, ", ") + "]";
  }
  if (v.is_number() && ends_with(key, "_ns")) return human_duration_ns(v.get<double>());
  if (v.is_number() && ends_with(key, "_bytes")) return human_bytes(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string knob_name(std::string key) {
  for (std::string_view suffix : {"_ns", "_bytes"})
    if (ends_with(key, suffix)) return key.substr(0, key.size() - suffix.size());
  return key;
}

// Nested knobs flatten to "drill.d 2".
void knob_items(const std::string& key, const json& v, std::vector<std::string>& out) {
  if (v.is_object()) {
    for (const auto& [k, sub] : v.items()) knob_items(key.empty() ? k : key + "." + k, sub, out);
    return;
  }
  out.push_back(knob_name(key) + " " + knob_value(key, v));
}

// "  NAME: knob value, ..." wrapped, single values first and lists last so
// the long lists do not strand a short knob on a line of its own.
std::string knob_lines(const std::string& name, const json& knobs) {
  std::vector<std::string> items;
  knob_items("", knobs, items);
  std::stable_partition(items.begin(), items.end(),
                        [](const std::string& i) { return i.find('[') == std::string::npos; });
  return items.empty() ? "" : wrap_list("  " + name + ": ", items);
}

// A PFC priority worth showing although it is not lossless: any counter,
// state or flag that is not at rest.
bool pfc_active(const json& prio) {
  for (const auto& [k, v] : prio.items()) {
    if (k == "priority" || k == "lossless") continue;
    if (v.is_number() && v.get<double>() != 0) return true;
    if (v.is_boolean() && v.get<bool>()) return true;
    if (k == "watchdog_state" && v.is_string() && v.get<std::string>() != "normal") return true;
  }
  return false;
}

// Time spent paused or asserting XOFF: "0" when none, else a duration.
std::string pause_time(uint64_t us) {
  return us == 0 ? "0" : human_duration_ns(1e3 * static_cast<double>(us));
}

std::string pfc_state(bool paused, bool asserted) {
  if (paused && asserted) return "paused,asserted";
  if (paused) return "paused";
  if (asserted) return "asserted";
  return "-";
}

}  // namespace

std::string format_ports(const json& r) {
  Table t({right("port"), left("name"), left("device"), right("speed"), left("admin"), left("link"),
           right("flaps"), right("rx_pkts"), right("rx_bytes"), right("tx_pkts"), right("tx_bytes"),
           right("drops"), right("queued"), right("tx_load"), right("util"), left("paused"),
           left("asserted")});
  for (const auto& p : r.at("ports")) {
    const uint64_t speed = u64(p, "speed_bps");
    const double load = f64(p, "load_bps");
    t.add({num(u64(p, "id")), str(p, "name"), str(p, "device"), format_speed_bps(speed),
           str(p, "admin_status"), str(p, "link"), num(u64(p, "link_changes")),
           num(u64(p, "rx_packets")), human_bytes(f64(p, "rx_bytes")), num(u64(p, "tx_packets")),
           human_bytes(f64(p, "tx_bytes")), num(u64(p, "drops_total")),
           human_bytes(f64(p, "queued_bytes")), human_bits_per_s(load),
           speed ? human_percent(load / static_cast<double>(speed), 1) : "-",
           priority_list(p.at("pfc_paused")), priority_list(p.at("pfc_asserted"))});
  }
  std::string out = t.render();
  // AF_XDP ports with rocelb's steering program: where their frames went.
  Table x({right("port"), left("xdp"), left("interface"), right("rocev2"), right("rocev1"),
           right("mac_ctrl"), right("neighbor"), right("own_addr"), right("all"),
           right("to_kernel"), right("no_socket")});
  bool any = false;
  for (const auto& p : r.at("ports")) {
    if (!p.contains("xdp") || p.at("xdp").is_null()) continue;
    any = true;
    const json& d = p.at("xdp");
    const json& sw = d.at("to_switch");
    auto n = [](const json& v) { return num(v.at("packets").get<uint64_t>()); };
    x.add({num(u64(p, "id")), str(d, "mode"), str(d, "interface"), n(sw.at("rocev2")),
           n(sw.at("rocev1")), n(sw.at("mac_ctrl")), n(sw.at("neighbor")), n(sw.at("own_address")),
           n(sw.at("all")), n(d.at("to_kernel")), n(d.at("no_socket"))});
  }
  if (any) out += "\nXDP steering (frames):\n" + x.render();
  return out;
}

std::string format_queues(const json& r) {
  Table t({right("port"), left("name"), right("tc"), left("class"), left("sched"), left("state"),
           right("depth"), right("pkts"), right("watermark"), right("limit"), right("enqueued"),
           right("dequeued"), right("dropped"), right("ecn_marked")});
  for (const auto& q : r.at("queues")) {
    const std::string sched = str(q, "scheduler");
    t.add({num(u64(q, "port")), str(q, "name"), num(u64(q, "tc")),
           flag(q, "lossless") ? "lossless" : "lossy",
           sched == "strict" ? sched : sched + " " + num(u64(q, "weight")),
           flag(q, "paused") ? "paused" : "-", human_bytes(f64(q, "depth_bytes")),
           num(u64(q, "depth_packets")), human_bytes(f64(q, "watermark_bytes")),
           human_bytes(f64(q, "limit_bytes")), num(u64(q, "enqueued_packets")),
           num(u64(q, "dequeued_packets")), num(u64(q, "dropped_packets")),
           num(u64(q, "wred_ecn_marked_packets"))});
  }
  return t.render();
}

std::string format_pfc(const json& r) {
  std::string out;
  const json& enabled = r.at("pfc_enable");
  if (enabled.empty())
    out += "PFC: off (no lossless priority)\n";
  else
    out += "PFC: lossless priorities " + priority_list(enabled) + ", pause_time " +
           num(u64(r, "pause_time")) + " quanta\n";

  const json& th = r.at("thresholds");
  auto bytes = [&](const char* key) { return human_bytes(static_cast<double>(u64(th, key))); };
  const std::string mode = str(th, "mode");
  if (mode == "dynamic")
    out += "thresholds: dynamic, dynamic_th " + std::to_string(th.at("dynamic_th").get<int>()) +
           ", xon_offset " + bytes("xon_offset_bytes") + "; now xoff " + bytes("xoff_now_bytes") +
           ", xon " + bytes("xon_now_bytes");
  else
    out += "thresholds: " + mode + ", xoff " + bytes("xoff_bytes") + ", xon " + bytes("xon_bytes");
  out += "; shared buffer " + bytes("shared_buffer_bytes") + ", lossless traffic holds " +
         bytes("total_held_bytes") + "\n";

  const json& wd = r.at("watchdog");
  if (flag(wd, "enabled"))
    out += "watchdog: on, detection " + human_duration_ns(f64(wd, "detection_time_ns")) +
           ", restoration " + human_duration_ns(f64(wd, "restoration_time_ns")) + ", action " +
           str(wd, "action") + "\n";
  else
    out += "watchdog: off\n";

  Table t({right("port"), left("name"), right("headroom"), right("prio"), left("class"),
           left("state"), right("rx_pfc"), right("rx_xon"), right("rx_paused"), right("tx_pfc"),
           right("tx_xon"), right("tx_xoff"), right("held"), right("lossless_drops"),
           left("watchdog"), right("storms"), right("restored"), right("wd_drops")});
  for (const auto& p : r.at("ports")) {
    for (const auto& pr : p.at("priorities")) {
      if (!flag(pr, "lossless") && !pfc_active(pr)) continue;
      t.add({num(u64(p, "port")), str(p, "name"), human_bytes(f64(p, "headroom_bytes")),
             num(u64(pr, "priority")), flag(pr, "lossless") ? "lossless" : "lossy",
             pfc_state(flag(pr, "paused"), flag(pr, "asserted")), num(u64(pr, "rx_frames")),
             num(u64(pr, "rx_xon_frames")), pause_time(u64(pr, "rx_pause_us")),
             num(u64(pr, "tx_frames")), num(u64(pr, "tx_xon_frames")),
             pause_time(u64(pr, "xoff_asserted_us")), human_bytes(f64(pr, "held_bytes")),
             num(u64(pr, "lossless_dropped")), str(pr, "watchdog_state"),
             num(u64(pr, "storms_detected")), num(u64(pr, "storms_restored")),
             num(u64(pr, "watchdog_drops"))});
    }
  }
  out += "\n";
  if (t.rows() == 0)
    out += "no lossless priority and no PFC activity on any port\n";
  else
    out += t.render();
  return out;
}

std::string format_ecn(const json& r) {
  std::string out = "ECN marking at " + str(r, "mark_point") + "\n";
  const json& profiles = r.at("profiles");
  if (profiles.empty()) return out + "no WRED/ECN profile: no class is marked\n";
  Table p({right("tc"), right("min"), right("max"), right("probability"), left("ecn")}, "  ");
  for (const auto& w : profiles)
    p.add({num(u64(w, "tc")), human_bytes(f64(w, "green_min_threshold_bytes")),
           human_bytes(f64(w, "green_max_threshold_bytes")),
           num(u64(w, "green_drop_probability")) + "%", str(w, "ecn")});
  out += "\nprofiles:\n" + p.render();
  Table q({right("port"), left("name"), right("tc"), right("depth"), right("marked_pkts"),
           right("marked_bytes"), right("wred_drops"), right("wred_dropped_bytes")},
          "  ");
  for (const auto& e : r.at("queues"))
    q.add({num(u64(e, "port")), str(e, "name"), num(u64(e, "tc")),
           human_bytes(f64(e, "depth_bytes")), num(u64(e, "wred_ecn_marked_packets")),
           human_bytes(f64(e, "wred_ecn_marked_bytes")), num(u64(e, "wred_dropped_packets")),
           human_bytes(f64(e, "wred_dropped_bytes"))});
  out += "\nqueues:\n" + q.render();
  return out;
}

std::string format_groups(const json& r) {
  std::string out;
  const json& groups = r.at("groups");
  if (groups.empty()) return "no next-hop groups\n";
  for (const auto& g : groups) {
    if (!out.empty()) out += "\n";
    out += "group " + str(g, "name") + ": " + str(g, "mode");
    if (g.contains("bpf"))
      out += " (" + str(g.at("bpf"), "program") + ", policy " + str(g.at("bpf"), "section") + ", " +
             str(g.at("bpf"), "run_by") + ")";
    out += "\n";
    // Plain knobs first, then each nested set of knobs ("quality") on its own lines.
    json plain = json::object(), nested = json::object();
    for (const auto& [k, v] : g.at("knobs").items()) (v.is_object() ? nested : plain)[k] = v;
    out += knob_lines("knobs", plain);
    for (const auto& [k, v] : nested.items()) out += knob_lines(k, v);
    out += "  " + num(u64(g, "decisions")) + " decisions, " + num(u64(g, "no_member")) +
           " with no member up, " + num(u64(g, "buckets_moved")) + " buckets moved\n";
    const uint64_t created = u64(g, "flowlets_created"), expired = u64(g, "flowlets_expired"),
                   collisions = u64(g, "flowlet_collisions"),
                   rerouted = u64(g, "flowlets_rerouted");
    if (str(g, "mode").starts_with("flowlet") || created || expired || collisions || rerouted)
      out += "  flowlets: " + num(created) + " created, " + num(expired) + " expired, " +
             num(collisions) + " collisions, " + num(rerouted) + " rerouted\n";
    Table t({left("via"), right("port"), right("weight"), left("state"), right("packets"),
             right("bytes"), right("share")},
            "  ");
    for (const auto& m : g.at("members"))
      t.add({str(m, "via"), num(u64(m, "port")), num(u64(m, "weight")),
             flag(m, "up") ? "up" : "down", num(u64(m, "packets")), human_bytes(f64(m, "bytes")),
             human_percent(m.at("share").get<double>())});
    out += t.render();
  }
  return out;
}

std::string format_flowlets(const json& r) {
  std::string out;
  const json& groups = r.at("groups");
  if (groups.empty()) return "no next-hop groups\n";
  for (const auto& g : groups) {
    if (!out.empty()) out += "\n";
    out += "group " + str(g, "name") + ": " + str(g, "mode");
    if (!flag(g, "uses_flowlets")) {
      out += ", does not use flowlets\n";
      continue;
    }
    out += ", " + num(u64(g, "active")) + " active flowlets (idle_time " +
           human_duration_ns(f64(g, "idle_time_ns")) + ", max_flows " + num(u64(g, "max_flows")) +
           " per worker)\n";
    const json& entries = g.at("entries");
    if (entries.empty()) {
      out += "  no flowlet entries\n";
      continue;
    }
    Table t({right("worker"), right("index"), right("member"), right("port"), left("via"),
             right("age")},
            "  ");
    for (const auto& e : entries)
      t.add({num(u64(e, "worker")), num(u64(e, "index")), num(u64(e, "member")),
             num(u64(e, "port")), str(e, "via"), human_duration_ns(f64(e, "age_ns"))});
    out += t.render();
    if (flag(g, "truncated"))
      out += "  (the " + num(entries.size()) + " youngest entries; more are not shown)\n";
  }
  return out;
}

std::string format_counters(const json& r) {
  Table t({right("port"), left("name"), right("rx_pkts"), right("rx_bytes"), right("tx_pkts"),
           right("tx_bytes"), right("queue_max"), right("ecn_marked"), right("pfc_rx"),
           right("pfc_tx"), right("drops"), left("drop reasons")});
  for (const auto& p : r.at("ports")) {
    std::vector<std::string> reasons;
    for (const auto& [k, v] : p.at("drops").items())
      if (v.get<uint64_t>() != 0) reasons.push_back(k + "=" + num(v.get<uint64_t>()));
    uint64_t queue_max = 0, marked = 0;
    for (const auto& q : p.at("queues")) {
      queue_max = std::max(queue_max, u64(q, "watermark_bytes"));
      marked += q.value("wred_ecn_marked_packets", uint64_t{0});
    }
    auto sum = [&](const char* key) {  // over the 8 priorities; absent without a PFC generator
      uint64_t s = 0;
      const json& pfc = p.at("pfc");
      if (pfc.contains(key))
        for (const auto& v : pfc.at(key)) s += v.get<uint64_t>();
      return s;
    };
    t.add({num(u64(p, "id")), str(p, "name"), num(u64(p, "rx_packets")), num(u64(p, "rx_bytes")),
           num(u64(p, "tx_packets")), num(u64(p, "tx_bytes")), num(queue_max), num(marked),
           num(sum("pfc_rx_frames")), num(sum("pfc_tx_frames")), num(u64(p, "drops_total")),
           reasons.empty() ? "-" : join(reasons, ", ")});
  }
  std::string out = t.render();
  for (const auto& g : r.at("groups")) {
    uint64_t total = 0;
    for (const auto& m : g.at("members")) total += u64(m, "bytes");
    out += "\ngroup " + str(g, "name") + " (" + str(g, "mode") + "): " + num(u64(g, "decisions")) +
           " decisions, " + num(total) + " bytes\n";
    Table mt({right("port"), left("via"), right("packets"), right("bytes"), right("share")}, "  ");
    for (const auto& m : g.at("members")) {
      const uint64_t b = u64(m, "bytes");
      mt.add({num(u64(m, "port")), str(m, "via"), num(u64(m, "packets")), num(b),
              total ? human_percent(static_cast<double>(b) / static_cast<double>(total)) : "-"});
    }
    out += mt.render();
  }
  const json& tot = r.at("totals");
  out += "\n" + conservation_line(tot, [](uint64_t v) { return num(v); }) + "\n";
  return out;
}

// A page size as the kernel names it: "4 KiB", "2 MiB", "1 GiB".
std::string page_size(uint64_t b) {
  for (const auto& [unit, name] :
       {std::pair<uint64_t, const char*>{1u << 30, " GiB"}, {1u << 20, " MiB"}, {1u << 10, " KiB"}})
    if (b >= unit && b % unit == 0) return std::to_string(b / unit) + name;
  return std::to_string(b) + " B";
}

// The memory estimate as YAML comments: the total against the limit and
// what it assumed, then each item with the key that sizes it.
std::string memory_comment(const json& m) {
  const uint64_t workers = u64(m, "workers");
  std::string out =
      "# memory: about " + human_bytes(f64(m, "total_bytes")) + " of " +
      human_bytes(f64(m, "limit_bytes")) + " (limits.max_memory); " + num(workers) +
      (workers == 1 ? " worker, " : " workers, ") + num(u64(m, "pool_mbufs")) + " mbufs" +
      (u64(m, "xdp_pools") ? " (+ " + num(u64(m, "xdp_pool_mbufs")) + " per AF_XDP port)"
                           : std::string()) +
      ", rings of " + num(u64(m, "ring_capacity")) + ", " + page_size(u64(m, "page_bytes")) +
      " pages:\n";
  Table t({left("item"), right("bytes"), left("sized by")}, "#   ");
  for (const auto& i : m.at("items"))
    t.add({str(i, "name"), human_bytes(f64(i, "bytes")),
           i.at("key").is_null() ? "-" : str(i, "key")});
  return out + t.render();
}

std::string format_config(const json& r) {
  const json& overrides = r.at("overrides");
  std::string out = "# generation " + num(u64(r, "generation")) + " of " + str(r, "source");
  if (overrides.empty()) {
    out += ", no overrides\n";
  } else {
    out += ", with " + num(overrides.size()) +
           (overrides.size() == 1 ? " override" : " overrides") + ":\n";
    for (const auto& o : overrides) out += "#   " + o.get<std::string>() + "\n";
  }
  if (r.contains("memory")) out += memory_comment(r.at("memory"));
  std::string yaml = str(r, "yaml");
  if (!yaml.empty() && yaml.back() != '\n') yaml += '\n';
  return out + yaml;
}

std::string format_metrics(const json& r) {
  std::string text = str(r, "text");
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

// Like OVS's pmd-stats-show: per worker lcore, where the cycles went.
std::string format_lcores(const json& r) {
  const json& lcores = r.at("lcores");
  if (lcores.empty()) return "no worker lcores (not a live switch)\n";
  Table t({right("worker"), right("lcore"), right("busy"), right("busy_cycles"),
           right("idle_cycles"), right("polls"), right("busy_polls"), right("rx_pkts"),
           right("tx_pkts"), right("cycles/pkt")});
  for (const auto& l : lcores) {
    const uint64_t rx = u64(l, "rx_packets");
    t.add({num(u64(l, "worker")), num(u64(l, "lcore")), human_percent(f64(l, "busy_pct") / 100, 1),
           num(u64(l, "busy_cycles")), num(u64(l, "idle_cycles")), num(u64(l, "polls")),
           num(u64(l, "busy_polls")), num(rx), num(u64(l, "tx_packets")),
           rx ? num(static_cast<uint64_t>(f64(l, "cycles_per_packet") + 0.5)) : "-"});
  }
  const double hz = f64(r, "tsc_hz");
  return t.render() + "TSC " + (hz > 0 ? std::to_string(static_cast<uint64_t>(hz / 1e6)) : "?") +
         " MHz; cycles/pkt = busy cycles per received packet\n";
}

std::string format_show(std::string_view what, const json& result) {
  if (what == "lcores") return format_lcores(result);
  if (what == "ports") return format_ports(result);
  if (what == "queues") return format_queues(result);
  if (what == "pfc") return format_pfc(result);
  if (what == "ecn") return format_ecn(result);
  if (what == "groups") return format_groups(result);
  if (what == "flowlets") return format_flowlets(result);
  if (what == "counters") return format_counters(result);
  if (what == "config") return format_config(result);
  if (what == "metrics") return format_metrics(result);
  throw std::invalid_argument("unknown show target \"" + std::string(what) + "\"");
}

}  // namespace rocelb
