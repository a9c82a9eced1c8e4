#include "dataplane/run/fabric_output_estimate.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "control/human_units.h"
#include "control/units.h"
#include "dataplane/sim/ideal_fct.h"
#include "lb/lb_mode.h"

namespace rocelb {
namespace {

constexpr uint64_t kTimelineRowBytes = 31;
constexpr uint64_t kMemberRowBytes = 48;  // "...,leaf0,4,,group.uplinks.load_bps,0": measured 47
constexpr uint64_t kEventLineBytes = 220;
constexpr uint64_t kFlowRowBytes = 80;        // flows.csv, measured: 60..90
constexpr uint64_t kCounterPortBytes = 8192;  // <switch>.counters.json, measured: 6.5 KB a port

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// Per switch, per port id: whether the port has a link or a host.
std::vector<std::vector<bool>> connected_ports(const Topology& topo) {
  std::vector<std::vector<bool>> on(topo.switches.size());
  auto mark = [&](uint32_t s, uint16_t p) {
    if (on[s].size() <= p) on[s].resize(p + 1u, false);
    on[s][p] = true;
  };
  for (const FabricLink& l : topo.links) {
    mark(l.a_sw, l.a_port);
    mark(l.b_sw, l.b_port);
  }
  for (size_t k = 0; k < topo.port_count(); ++k) mark(topo.port(k).sw, topo.port(k).port);
  return on;
}

uint64_t packets_of(uint64_t size, uint32_t mtu) {
  return std::max<uint64_t>(1, (size + mtu - 1) / mtu);
}

}  // namespace

FabricOutputEstimate estimate_fabric_output(const Topology& topo, const Workload& wl,
                                            const FabricOutputPlan& plan) {
  FabricOutputEstimate e;
  const uint32_t mtu = topo.nic.mtu;
  HostPaths paths(topo);
  // The time the run surely covers: its first-phase flows cannot all finish
  // before the last of them could alone.
  uint64_t span = 0;
  for (const FabricFlow& f : wl.flows)
    if (f.phase == 0)
      span = std::max(
          span, f.start_ns + ideal_fct_ps(paths.path(f.src, f.dst), f.size_bytes, mtu) / 1000);
  if (plan.until_ns) span = std::min(span, plan.until_ns);
  e.span_ns = span;

  size_t ports = 0;
  for (const FabricSwitch& s : topo.switches) ports += s.params.ports.size();
  e.parts.push_back({"flows.csv, summary.json and the counters", "", "",
                     wl.flows.size() * kFlowRowBytes + ports * kCounterPortBytes + (64 << 10)});

  // The first flow's start: ports, queues and NICs have rows from the time
  // they carry traffic, group members from the start.
  uint64_t first = span;
  for (const FabricFlow& f : wl.flows)
    if (f.phase == 0) first = std::min(first, f.start_ns);
  if (plan.record.timeline_ns) {
    uint64_t rows = 7 * topo.port_count(), members = 0;
    const std::vector<std::vector<bool>> on = connected_ports(topo);
    for (uint32_t s = 0; s < topo.switches.size(); ++s) {
      const ConfigParams& p = topo.switches[s].params;
      const uint64_t lossless =
          static_cast<uint64_t>(std::popcount(p.qos.lossless.pfc.enable_mask));
      for (const PortParams& port : p.ports)
        if (port.id < on[s].size() && on[s][port.id]) rows += 5 + 5 * 2 + 4 * lossless;
      for (const GroupParams& g : p.groups)
        members += g.members.size() * (uses_quality(g.mode) ? 2 : 1);
    }
    const uint64_t all = span / plan.record.timeline_ns + 1;
    const uint64_t busy = (span - std::min(first, span)) / plan.record.timeline_ns + 1;
    e.parts.push_back({"timeline.csv", "--timeline " + plan.timeline_text,
                       with_commas(rows + members) + " rows every " + plan.timeline_text,
                       all * members * kMemberRowBytes + busy * rows * kTimelineRowBytes});
  }
  if (plan.record.events && plan.record.filter.empty()) {
    uint64_t lines = 0, packets = 0;
    for (const FabricFlow& f : wl.flows) {
      if (f.phase != 0 || f.start_ns >= span) continue;
      const uint64_t n = packets_of(f.size_bytes, mtu);
      const uint64_t switches = paths.path(f.src, f.dst).size() - 1;
      // The packet and its ACK: arrive, enqueue, dequeue on each switch, a
      // decision at the first leaf when it leaves the leaf.
      lines += n * 2 * (3 * switches + (switches > 1 ? 1 : 0));
      packets += n;
    }
    e.parts.push_back({"events.jsonl", "--events",
                       "about " + with_commas(lines) + " lines for " + with_commas(packets) +
                           " data packets and their ACKs",
                       lines * kEventLineBytes});
  }
  {
    // A row of every link direction: from,to (names and ports), then the
    // window's start, bytes and utilization (about 30 bytes).
    uint64_t row = 0;
    for (const FabricLink& l : topo.links)
      row += 2 * (topo.switches[l.a_sw].name.size() + topo.switches[l.b_sw].name.size() + 6 + 30);
    for (size_t k = 0; k < topo.port_count(); ++k)
      row += 2 * (topo.port_name(k).size() + topo.switches[topo.port(k).sw].name.size() + 3 + 30);
    // Windows with traffic: those the flows could fill alone, at most all.
    uint64_t windows = 0;
    for (const FabricFlow& f : wl.flows)
      if (f.phase == 0 && f.start_ns < span)
        windows +=
            ideal_fct_ps(paths.path(f.src, f.dst), f.size_bytes, mtu) / 1000 / plan.link_window_ns +
            1;
    windows = std::min(windows, span / plan.link_window_ns + 1);
    e.parts.push_back({"links.csv", "--link-window " + plan.link_window_text,
                       with_commas(windows) + " windows of " + plan.link_window_text,
                       windows * row});
  }
  for (const std::string& name : plan.host_captures) {
    const auto port = topo.port_index(name);  // h3, h3.1
    if (!port) continue;
    // Every flow of the host, whichever plane it takes: at least what the
    // port sends.
    const uint32_t h = static_cast<uint32_t>(*port % topo.hosts.size());
    uint64_t bytes = 0;
    for (const FabricFlow& f : wl.flows)
      if (f.src == h || f.dst == h)  // its data, or the ACKs it sends
        bytes += packets_of(f.size_bytes, mtu) *
                 (f.src == h ? 16 + roce_data_frame_bytes(mtu) : 16 + 62);
    e.parts.push_back({"capture-" + name + ".pcap", "--capture " + name, "its packets", bytes});
  }
  for (const OutputPart& p : e.parts) e.total += p.bytes;
  return e;
}

std::optional<std::string> fabric_output_refusal(const FabricOutputEstimate& e, uint64_t cap) {
  if (e.total <= cap) return std::nullopt;
  uint64_t own = 0;  // what no recording option shrinks
  for (const OutputPart& p : e.parts)
    if (p.option.empty()) own += p.bytes;
  if (own > cap)
    return "--max-output " + format_bytes(cap) + ": less than the run's own outputs need (" +
           e.parts.front().file + ": about " + human_bytes(static_cast<double>(own)) + ")";
  const OutputPart* blame = nullptr;
  for (const OutputPart& p : e.parts)
    if (!p.option.empty() && (!blame || p.bytes > blame->bytes)) blame = &p;
  std::vector<const OutputPart*> by_size;
  for (const OutputPart& p : e.parts) by_size.push_back(&p);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const OutputPart* a, const OutputPart* b) { return a->bytes > b->bytes; });
  std::string parts;
  for (const OutputPart* p : by_size) {
    parts +=
        (parts.empty() ? "" : "; ") + p->file + " " + human_bytes(static_cast<double>(p->bytes));
    if (!p->detail.empty()) parts += ": " + p->detail;
  }
  std::string advice = "a larger --max-output";
  if (blame) {
    if (blame->option.rfind("--timeline", 0) == 0)
      advice = "a longer --timeline interval, an earlier --until, or " + advice;
    else if (blame->option == "--events")
      advice = "--events-filter, an earlier --until, or " + advice;
    else if (blame->option.rfind("--link-window", 0) == 0)
      advice = "a longer --link-window, or " + advice;
    else
      advice = "fewer --capture, an earlier --until, or " + advice;
  }
  return (blame ? blame->option : std::string("--max-output")) + ": the run would write about " +
         human_bytes(static_cast<double>(e.total)) + " over at least " +
         human_duration_ns(static_cast<double>(e.span_ns)) + " of virtual time (" + parts +
         "), more than --max-output " + format_bytes(cap) + ": " + advice;
}

}  // namespace rocelb
