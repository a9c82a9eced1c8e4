#include "dataplane/sim/fabric_summary.h"

#include <algorithm>

namespace rocelb {

namespace {

using Json = nlohmann::ordered_json;

uint64_t sum_array(const Json& a) {
  uint64_t s = 0;
  if (a.is_array())
    for (const Json& v : a) s += v.get<uint64_t>();
  return s;
}

}  // namespace

Json nic_totals(const std::vector<const NicCounters*>& nics) {
  NicCounters sum;
  for (const NicCounters* c : nics) {
    for (const NicCounterInfo& info : kNicCounters) sum.*(info.field) += c->*(info.field);
    for (size_t p = 0; p < sum.paused_ps.size(); ++p) sum.paused_ps[p] += c->paused_ps[p];
  }
  Json j;
  for (const NicCounterInfo& info : kNicCounters) j[std::string(info.name)] = sum.*(info.field);
  Json paused = Json::array();
  for (uint64_t ps : sum.paused_ps) paused.push_back(ps / 1'000'000);
  j["pfc_paused_us"] = paused;
  return j;
}

Json switch_totals(const std::vector<Json>& counters) {
  Json drops = Json::object();
  uint64_t drops_total = 0, marked = 0, pfc_sent = 0, pfc_received = 0, paused_us = 0, xoff_us = 0,
           rx = 0, tx = 0;
  for (const Json& c : counters) {
    for (const Json& p : c["ports"]) {
      for (auto it = p["drops"].begin(); it != p["drops"].end(); ++it) {
        const uint64_t n = it.value().get<uint64_t>();
        drops[it.key()] = (drops.contains(it.key()) ? drops[it.key()].get<uint64_t>() : 0) + n;
        drops_total += n;
      }
      for (const Json& q : p["queues"]) marked += q.value("wred_ecn_marked_packets", uint64_t{0});
      const Json& pfc = p["pfc"];
      pfc_sent += sum_array(pfc["pfc_tx_frames"]);
      pfc_received += sum_array(pfc["pfc_rx_frames"]);
      paused_us += sum_array(pfc["pfc_rx_pause_us"]);
      xoff_us += sum_array(pfc["xoff_asserted_us"]);
    }
    rx += c["totals"]["rx_packets"].get<uint64_t>();
    tx += c["totals"]["tx_packets"].get<uint64_t>();
  }
  Json j;
  j["rx_packets"] = rx;
  j["tx_packets"] = tx;
  j["drops_total"] = drops_total;
  j["drops"] = drops;
  j["ecn_marked_packets"] = marked;
  j["pfc_frames_sent"] = pfc_sent;
  j["pfc_frames_received"] = pfc_received;
  j["pfc_paused_us"] = paused_us;
  j["pfc_xoff_asserted_us"] = xoff_us;
  return j;
}

Json memory_cost(const MemoryFacts& m) {
  Json j;
  uint64_t sw_total = 0, sw_max = 0, host_total = 0, host_max = 0;
  Json per_switch = Json::object();
  for (const auto& [name, b] : m.switch_bytes) {
    sw_total += b;
    sw_max = std::max(sw_max, b);
    per_switch[name] = b;
  }
  for (uint64_t b : m.host_bytes) {
    host_total += b;
    host_max = std::max(host_max, b);
  }
  const uint64_t pool = m.pool_mbufs * m.pool_mbuf_bytes;
  const uint64_t n_sw = m.switch_bytes.size(), n_h = m.host_bytes.size();
  j["switches"] = {{"count", n_sw},
                   {"bytes_total", sw_total},
                   {"bytes_each_mean", n_sw ? sw_total / n_sw : 0},
                   {"bytes_each_max", sw_max},
                   {"bytes", per_switch},
                   {"counted",
                    "route, group and neighbor tables as allocated; egress rings and pause "
                    "inboxes as far as they can become resident (a ring of a class no DSCP "
                    "maps to: its header)"}};
  j["packet_pool"] = {{"mbufs", m.pool_mbufs},
                      {"max_mbufs", m.pool_max_mbufs},
                      {"mbuf_bytes", m.pool_mbuf_bytes},
                      {"bytes", pool},
                      {"bytes_per_switch", n_sw ? pool / n_sw : 0},
                      {"counted",
                       "buffers made by the end of the run (the pool grows with the "
                       "packets in flight), each with its header and data room"}};
  j["hosts"] = {{"count", n_h},
                {"bytes_total", host_total},
                {"bytes_each_mean", n_h ? host_total / n_h : 0},
                {"bytes_each_max", host_max},
                {"counted",
                 "each NIC model's state at the end of the run: its queue pairs, "
                 "their buffers, maps and queues"}};
  return j;
}

Json fabric_summary(const RunFacts& f, const std::vector<FlowRecord>& flows,
                    const std::vector<Json>& counters,
                    const std::vector<const NicCounters*>& nics) {
  Json j;
  j["schema"] = "rocelb.fabric.summary.v1";
  Json run;
  run["topology"] = f.topology;
  run["workload"] = f.workload;
  run["seed"] = f.seed;
  run["command"] = f.command_line;
  run["simulated_ns"] = f.sim_ns;
  run["events"] = f.events;
  j["run"] = run;
  // What the run cost this machine: the only figures a rerun changes.
  Json cost;
  cost["wall_s"] = f.wall_s;
  cost["events_per_wall_s"] = f.wall_s > 0 ? static_cast<double>(f.events) / f.wall_s : 0.0;
  cost["simulated_ms_per_wall_s"] =
      f.wall_s > 0 ? static_cast<double>(f.sim_ns) / 1e6 / f.wall_s : 0.0;
  cost["peak_rss_mb"] = f.peak_rss_kb / 1024;
  cost["memory"] = memory_cost(f.memory);
  cost["threads"] = f.threads;
  cost["windows"] = f.windows;
  cost["lookahead_ns"] = static_cast<double>(f.lookahead_ps) / 1000.0;
  cost["frames_between_threads"] = f.frames_between_threads;
  j["cost"] = cost;
  uint64_t finished = 0;
  for (const FlowRecord& r : flows) finished += r.finish_ns ? 1 : 0;
  j["flows"] = {
      {"total", flows.size()}, {"finished", finished}, {"unfinished", flows.size() - finished}};
  j["slowdown"] = slowdown_summary(flows);
  j["slowdown"]["ideal_fct"] = f.ideal_fct;
  j["switches"] = switch_totals(counters);
  j["nics"] = nic_totals(nics);
  j["frames_on_wires_at_end"] = f.frames_on_wires_at_end;
  return j;
}

}  // namespace rocelb
