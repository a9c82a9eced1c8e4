#include "tools/ctl/watch_view.h"

#include <cstdio>
#include <map>
#include <optional>

#include "control/human_units.h"
#include "tools/ctl/result_fields.h"
#include "tools/ctl/table.h"

namespace rocelb {
namespace {

using json = nlohmann::json;

using namespace fields;

// Seconds between two results of one target, when there is a usable pair.
std::optional<double> seconds_between(const json* prev, const json& cur) {
  if (!prev || prev->is_null()) return std::nullopt;
  const uint64_t t0 = u64(*prev, "time_ns"), t1 = u64(cur, "time_ns");
  if (t1 <= t0) return std::nullopt;
  return static_cast<double>(t1 - t0) / 1e9;
}

// The increase of a counter; after a clear it counts from zero.
uint64_t delta(uint64_t cur, uint64_t prev) {
  return cur >= prev ? cur - prev : cur;
}

// A rate cell: "-" when there is nothing to compare with.
struct Rates {
  std::optional<double> seconds;
  const json* prev = nullptr;  // the matching element of the previous result

  bool ok() const { return seconds && prev; }
  double per_s(const json& cur, const char* key) const {
    return static_cast<double>(delta(u64(cur, key), u64(*prev, key))) / *seconds;
  }
  std::string pps(const json& cur, const char* key) const {
    return ok() ? human_packets_per_s(per_s(cur, key)) : "-";
  }
  std::string bps(const json& cur, const char* bytes_key) const {
    return ok() ? human_bits_per_s(8.0 * per_s(cur, bytes_key)) : "-";
  }
  std::string count_per_s(const json& cur, const char* key) const {
    if (!ok()) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", per_s(cur, key));
    return buf;
  }
};

template <typename Key, typename KeyOf>
std::map<Key, const json*> by_key(const json* result, const char* list, KeyOf key_of) {
  std::map<Key, const json*> m;
  if (result && !result->is_null())
    for (const auto& e : result->at(list)) m[key_of(e)] = &e;
  return m;
}

template <typename Map, typename Key>
const json* find(const Map& m, const Key& k) {
  const auto it = m.find(k);
  return it == m.end() ? nullptr : it->second;
}

std::string ports_section(const json* prev, const json& cur) {
  const auto secs = seconds_between(prev, cur);
  const auto before = by_key<uint64_t>(prev, "ports", [](const json& p) { return u64(p, "id"); });
  Table t({right("port"), left("name"), right("rx_pps"), right("rx_bps"), right("tx_pps"),
           right("tx_bps"), right("drops/s"), right("queued"), right("util"), left("paused"),
           left("asserted")});
  for (const auto& p : cur.at("ports")) {
    const Rates r{secs, find(before, u64(p, "id"))};
    const uint64_t speed = u64(p, "speed_bps");
    t.add({num(u64(p, "id")), str(p, "name"), r.pps(p, "rx_packets"), r.bps(p, "rx_bytes"),
           r.pps(p, "tx_packets"), r.bps(p, "tx_bytes"), r.count_per_s(p, "drops_total"),
           human_bytes(f64(p, "queued_bytes")),
           speed ? human_percent(f64(p, "load_bps") / static_cast<double>(speed), 1) : "-",
           priority_list(p.at("pfc_paused")), priority_list(p.at("pfc_asserted"))});
  }
  return t.render();
}

std::string queues_section(const json* prev, const json& cur) {
  const auto secs = seconds_between(prev, cur);
  using Key = std::pair<uint64_t, uint64_t>;
  const auto before = by_key<Key>(prev, "queues", [](const json& q) {
    return Key{u64(q, "port"), u64(q, "tc")};
  });
  Table t({right("port"), left("name"), right("tc"), left("state"), right("depth"), right("pkts"),
           right("watermark"), right("enq_pps"), right("drops/s"), right("marks/s")});
  for (const auto& q : cur.at("queues")) {
    if (u64(q, "depth_bytes") == 0 && u64(q, "depth_packets") == 0 && !flag(q, "paused")) continue;
    const Rates r{secs, find(before, Key{u64(q, "port"), u64(q, "tc")})};
    t.add({num(u64(q, "port")), str(q, "name"), num(u64(q, "tc")),
           flag(q, "paused") ? "paused" : "-", human_bytes(f64(q, "depth_bytes")),
           num(u64(q, "depth_packets")), human_bytes(f64(q, "watermark_bytes")),
           r.pps(q, "enqueued_packets"), r.count_per_s(q, "dropped_packets"),
           r.count_per_s(q, "wred_ecn_marked_packets")});
  }
  if (t.rows() == 0) return "queues: all empty\n";
  return "queues holding packets:\n" + t.render();
}

std::string pfc_section(const json* prev, const json& cur) {
  const auto secs = seconds_between(prev, cur);
  using Key = std::pair<uint64_t, uint64_t>;
  std::map<Key, const json*> before;
  if (prev && !prev->is_null())
    for (const auto& p : prev->at("ports"))
      for (const auto& pr : p.at("priorities")) before[{u64(p, "port"), u64(pr, "priority")}] = &pr;
  Table t({right("port"), left("name"), right("prio"), left("class"), left("state"),
           right("rx_pfc/s"), right("tx_pfc/s"), right("held"), left("watchdog")});
  for (const auto& p : cur.at("ports")) {
    for (const auto& pr : p.at("priorities")) {
      const Rates r{secs, find(before, Key{u64(p, "port"), u64(pr, "priority")})};
      const bool paused = flag(pr, "paused"), asserted = flag(pr, "asserted");
      const bool sending = r.ok() && (u64(pr, "rx_frames") != u64(*r.prev, "rx_frames") ||
                                      u64(pr, "tx_frames") != u64(*r.prev, "tx_frames"));
      const std::string wd = str(pr, "watchdog_state");
      if (!flag(pr, "lossless") && !paused && !asserted && !sending && wd == "normal") continue;
      const char* state = paused && asserted ? "paused,asserted"
                          : paused           ? "paused"
                          : asserted         ? "asserted"
                                             : "-";
      t.add({num(u64(p, "port")), str(p, "name"), num(u64(pr, "priority")),
             flag(pr, "lossless") ? "lossless" : "lossy", state, r.count_per_s(pr, "rx_frames"),
             r.count_per_s(pr, "tx_frames"), human_bytes(f64(pr, "held_bytes")), wd});
    }
  }
  if (t.rows() == 0) return "PFC: off, no pause frames\n";
  return "PFC:\n" + t.render();
}

std::string groups_section(const json* prev, const json& cur) {
  const auto secs = seconds_between(prev, cur);
  const auto before =
      by_key<std::string>(prev, "groups", [](const json& g) { return str(g, "name"); });
  std::string out;
  for (const auto& g : cur.at("groups")) {
    const json* pg = find(before, str(g, "name"));
    const Rates gr{secs, pg};
    out += "\ngroup " + str(g, "name") + " (" + str(g, "mode") + ")";
    out += gr.ok() ? ": " + gr.count_per_s(g, "decisions") + " decisions/s\n" : "\n";
    // Members pair up by next hop: a config change may reorder them.
    std::map<std::string, const json*> pm;
    if (pg)
      for (const auto& m : pg->at("members")) pm[str(m, "via")] = &m;
    uint64_t interval_total = 0;
    for (const auto& m : g.at("members"))
      if (const json* b = find(pm, str(m, "via")))
        interval_total += delta(u64(m, "bytes"), u64(*b, "bytes"));
    Table t({left("via"), right("port"), left("state"), right("pps"), right("bps"), right("share"),
             right("since start")},
            "  ");
    for (const auto& m : g.at("members")) {
      const Rates r{secs, find(pm, str(m, "via"))};
      std::string share = "-";
      if (r.ok() && interval_total)
        share = human_percent(static_cast<double>(delta(u64(m, "bytes"), u64(*r.prev, "bytes"))) /
                              static_cast<double>(interval_total));
      t.add({str(m, "via"), num(u64(m, "port")), flag(m, "up") ? "up" : "down", r.pps(m, "packets"),
             r.bps(m, "bytes"), share, human_percent(m.at("share").get<double>())});
    }
    out += t.render();
  }
  return out;
}

}  // namespace

std::string render_watch(const WatchSample* previous, const WatchSample& current) {
  std::string out = "rocelb watch: ";
  if (const auto secs =
          previous ? seconds_between(&previous->ports, current.ports) : std::nullopt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "rates over the last %.2f s\n\n", *secs);
    out += buf;
  } else {
    out += "first sample, rates from the next refresh\n\n";
  }
  out += ports_section(previous ? &previous->ports : nullptr, current.ports);
  out += '\n';  // appended: GCC 12 warns falsely on "\n" + std::string
  out += queues_section(previous ? &previous->queues : nullptr, current.queues);
  out += '\n';
  out += pfc_section(previous ? &previous->pfc : nullptr, current.pfc);
  out += groups_section(previous ? &previous->groups : nullptr, current.groups);
  return out;
}

}  // namespace rocelb
