#include "dataplane/record/counters_json.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <rte_cycles.h>

#include "common/conservation_line.h"

namespace rocelb {

Json counters_to_json(const Dataplane& dp, const Snapshot& s, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  Json j;
  j["schema"] = "rocelb.counters.v1";
  Json ports = Json::array();
  uint64_t rx = 0, tx = 0, consumed = 0, generated = 0, dropped = 0;
  for (uint16_t id : cfg.port_ids) {
    const PortConfig& pc = cfg.ports[id];
    const PortCounters& c = s.port[id];
    Json p;
    p["id"] = id;
    p["name"] = pc.name;
    p["speed_bps"] = pc.speed_bps;
    p["link"] = dp.link_up(id) ? "up" : "down";  // link state (a replay's --event, a device)
    p["link_changes"] = dp.link_changes(id);
    for (int k = 0; k < kNumPortCounters; ++k) p[std::string(kPortCounterInfo[k].name)] = c.c[k];
    Json drops;
    for (int k = 1; k < kNumDropReasons; ++k)  // 0 is parse_ok
      drops[std::string(kDropInfo[k].name)] = c.drops[k];
    p["drops"] = drops;
    p["drops_total"] = c.total_drops();
    Json queues = Json::array();
    const PortTx& t = dp.tx(id);
    for (int q = 0; q < kNumTrafficClasses; ++q) {
      const QueueCounters& qc = s.queue[id][q];
      const QueueGauges& qg = s.queue_gauges[id][q];
      Json jq;
      jq["tc"] = q;
      for (const QueueCounterInfo& info : kQueueCounters)
        jq[std::string(info.name)] = qc.*(info.field);
      for (const QueueGaugeInfo& info : kQueueGauges) jq[std::string(info.name)] = qg.*(info.field);
      for (const WredCounterInfo& info : kWredCounters)
        jq[std::string(info.name)] = qc.wred.*(info.field);
      queues.push_back(jq);
    }
    p["queues"] = queues;
    Json pfc;  // received PFC, per priority (what this port honoured)
    for (const PfcRxCounterInfo& info : kPfcRxCounters) {
      Json per = Json::array();
      for (int prio = 0; prio < kPfcPriorities; ++prio)
        per.push_back(t.pause.counters(prio, now_ns).*(info.field));
      pfc[std::string(info.name)] = per;
    }
    Json wd = Json::array();  // the PFC watchdog of each class
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      const PfcWatchdogCounters wc = t.watchdog[c].counters();
      Json jw;
      jw["tc"] = c;
      jw["state"] = watchdog_state_name(t.watchdog[c].state());
      for (const PfcWatchdogCounterInfo& info : kPfcWatchdogCounters)
        jw[std::string(info.name)] = wc.*(info.field);
      wd.push_back(jw);
    }
    for (const PfcTxCounterInfo& info : kPfcTxCounters) {  // PFC this port sent, per priority
      Json per = Json::array();
      for (int prio = 0; prio < kPfcPriorities; ++prio)
        per.push_back(dp.pfc().counters(id, static_cast<uint8_t>(prio), now_ns).*(info.field));
      pfc[std::string(info.name)] = per;
    }
    p["pfc"] = pfc;
    p["pfc_watchdog"] = wd;
    ports.push_back(p);
    rx += c[PortCounter::rx_packets];
    tx += c[PortCounter::tx_packets];
    consumed += c.consumed();
    generated += c.generated();
    dropped += c.total_drops();
  }
  j["ports"] = ports;

  Json groups = Json::array();
  for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
    const GroupConfig& g = cfg.groups[gi];
    const LbEngineCounters& lc = s.groups[gi];
    Json jg;
    jg["name"] = g.name;
    jg["mode"] = std::string(to_string(g.spec.mode));
    for (const LbCounterInfo& info : kLbCounters) jg[std::string(info.name)] = lc.*(info.field);
    Json members = Json::array();
    for (size_t i = 0; i < g.members.size(); ++i) {
      Json jm;
      jm["via"] = to_string(g.members[i].via);
      jm["port"] = g.members[i].port;
      jm["weight"] = g.members[i].weight;
      MemberCounters mc;
      mc.packets = i < lc.member_packets.size() ? lc.member_packets[i].load() : 0;
      mc.bytes = i < lc.member_bytes.size() ? lc.member_bytes[i].load() : 0;
      for (const MemberCounterInfo& info : kMemberCounters)
        jm[std::string(info.name)] = mc.*(info.field);
      members.push_back(jm);
    }
    jg["members"] = members;
    groups.push_back(jg);
  }
  j["groups"] = groups;

  // Mode conweave, the destination ToR's reorder queues (summed over
  // workers): what ConWeave's ns-3 prints as its VOQ history.
  if (dp.config().conweave) {
    ConWeaveDestCounters cw;
    uint64_t held_now = 0;
    for (unsigned w = 0; w < dp.num_workers(); ++w) {
      const WorkerState& ws = dp.worker(w);
      held_now += ws.conweave_held;
      if (!ws.conweave || s.running) continue;  // live: the owner's, read at rest only
      const ConWeaveDestCounters& c = ws.conweave->counters();
      cw.held += c.held;
      cw.hold_full += c.hold_full;
      cw.flush_by_tail += c.flush_by_tail;
      cw.flush_by_timeout += c.flush_by_timeout;
      cw.table_collisions += c.table_collisions;
      cw.epoch_while_held += c.epoch_while_held;
    }
    Json jc;
    jc["held_packets"] = cw.held;
    jc["held_now"] = held_now;
    jc["hold_full"] = cw.hold_full;
    jc["flushed_by_tail"] = cw.flush_by_tail;
    jc["flushed_by_timeout"] = cw.flush_by_timeout;
    jc["table_collisions"] = cw.table_collisions;
    jc["new_epoch_while_held"] = cw.epoch_while_held;
    j["conweave"] = jc;
  }

  // Live only: where each worker lcore's cycles went (lcore_stats.h).
  if (!s.lcores.empty() && dp.worker_lcore(0) >= 0) {
    j["tsc_hz"] = rte_get_tsc_hz();
    Json lcores = Json::array();
    for (size_t w = 0; w < s.lcores.size(); ++w) {
      Json jl;
      jl["worker"] = w;
      jl["lcore"] = dp.worker_lcore(static_cast<unsigned>(w));
      for (const LcoreCounterInfo& info : kLcoreCounters)
        jl[std::string(info.name)] = s.lcores[w].*(info.field);
      lcores.push_back(jl);
    }
    j["lcores"] = lcores;
  }

  Json totals;
  totals["rx_packets"] = rx;
  totals["generated_packets"] = generated;
  totals["tx_packets"] = tx;
  totals["consumed_packets"] = consumed;
  totals["dropped_packets"] = dropped;
  totals["queued_packets"] = s.queued_packets;
  totals["awaiting_device_packets"] = s.awaiting_device_packets;
  // Frames a worker held at the read (in a burst between stages), and those
  // that arrived while it was taken: the rest of the equation, never
  // negative (Dataplane::snapshot's read order). At rest there are none.
  const auto in_flight =
      static_cast<int64_t>(rx + generated) -
      static_cast<int64_t>(tx + consumed + dropped + s.queued_packets + s.awaiting_device_packets);
  totals["in_flight_packets"] = in_flight;
  totals["running"] = s.running;
  totals["conserved"] = s.running ? in_flight >= 0 : in_flight == 0;
  j["totals"] = totals;
  return j;
}

namespace {
std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
}  // namespace

std::string counters_table(const Json& j) {
  std::string out;
  out += fmt("%-4s %-10s %10s %13s %10s %13s %11s %8s  %s\n", "port", "name", "rx_pkts", "rx_bytes",
             "tx_pkts", "tx_bytes", "queue_max", "drops", "drop reasons");
  for (const auto& p : j.at("ports")) {
    std::string reasons;
    for (const auto& [k, v] : p.at("drops").items()) {
      if (v.get<uint64_t>() == 0) continue;
      if (!reasons.empty()) reasons += ", ";
      reasons += k + "=" + std::to_string(v.get<uint64_t>());
    }
    uint64_t queue_max = 0;  // the deepest any of the port's queues got, in bytes
    for (const auto& q : p.at("queues"))
      queue_max = std::max(queue_max, q.at("watermark_bytes").get<uint64_t>());
    out += fmt("%-4u %-10s %10llu %13llu %10llu %13llu %11llu %8llu  %s\n",
               p.at("id").get<unsigned>(), p.at("name").get<std::string>().c_str(),
               (unsigned long long)p.at("rx_packets").get<uint64_t>(),
               (unsigned long long)p.at("rx_bytes").get<uint64_t>(),
               (unsigned long long)p.at("tx_packets").get<uint64_t>(),
               (unsigned long long)p.at("tx_bytes").get<uint64_t>(), (unsigned long long)queue_max,
               (unsigned long long)p.at("drops_total").get<uint64_t>(),
               reasons.empty() ? "-" : reasons.c_str());
  }
  for (const auto& g : j.at("groups")) {
    uint64_t total = 0;
    for (const auto& m : g.at("members")) total += m.at("bytes").get<uint64_t>();
    out += fmt("\ngroup %s (%s): share of %llu bytes\n", g.at("name").get<std::string>().c_str(),
               g.at("mode").get<std::string>().c_str(), (unsigned long long)total);
    for (const auto& m : g.at("members")) {
      const uint64_t b = m.at("bytes").get<uint64_t>();
      out += fmt("  port %-3u via %-16s %14llu bytes  %6.2f %%\n", m.at("port").get<unsigned>(),
                 m.at("via").get<std::string>().c_str(), (unsigned long long)b,
                 total ? 100.0 * double(b) / double(total) : 0.0);
    }
  }
  const auto& t = j.at("totals");
  out += '\n';
  out += conservation_line(t, [](uint64_t v) { return std::to_string(v); });
  out += '\n';
  return out;
}

}  // namespace rocelb
