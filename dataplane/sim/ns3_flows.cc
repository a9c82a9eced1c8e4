#include "dataplane/sim/ns3_flows.h"

#include <algorithm>
#include <unordered_map>

#include "dataplane/sim/ns3_text.h"

namespace rocelb {
namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000;

[[noreturn]] void fail(const std::string& source, uint32_t line, const std::string& why) {
  throw WorkloadError(source + ":" + std::to_string(line) + ": " + why);
}

}  // namespace

bool is_ns3_flows(std::string_view text) {
  const std::vector<std::string_view> first = ns3_text::first_line(text);
  uint64_t v = 0;
  return first.size() == 1 && ns3_text::parse_uint(first[0], v);
}

Workload load_ns3_flows(const std::string& text, const std::string& source, const Topology& topo) {
  if (topo.hosts.empty()) throw WorkloadError(source + ": the topology has no hosts");
  std::unordered_map<std::string, uint32_t> host_of;
  for (size_t i = 0; i < topo.hosts.size(); ++i) host_of.emplace(topo.hosts[i].name, uint32_t(i));
  const std::string host_range = topo.hosts.front().name + ".." + topo.hosts.back().name;

  Workload w;
  w.source = source;
  w.kind = "ns3";
  uint64_t count = 0;
  uint32_t line = 0;
  size_t pos = 0;
  size_t fields = 0;  // 5 (ConWeave) or 6 (HPCC), from the first flow
  std::vector<std::string_view> tok;
  auto next_line = [&]() -> bool {
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      ++line;
      tok.clear();
      for (const ns3_text::Token& t :
           ns3_text::tokens(std::string_view(text).substr(pos, end - pos)))
        tok.push_back(t.text);
      pos = end + 1;
      if (!tok.empty()) return true;
    }
    return false;
  };
  next_line();
  if (!ns3_text::parse_uint(tok[0], count) || count > kMaxGeneratedFlows)
    fail(source, line,
         "the flow count \"" + std::string(tok[0]) + "\" must be at most " +
             std::to_string(kMaxGeneratedFlows));
  w.flows.reserve(count);
  uint64_t earliest = UINT64_MAX;
  for (uint64_t k = 0; k < count; ++k) {
    if (!next_line())
      fail(source, line,
           "the file ends after " + std::to_string(k) + " of the " + std::to_string(count) +
               " flows its first line announces");
    if (fields == 0) {
      if (tok.size() != 5 && tok.size() != 6)
        fail(source, line,
             std::to_string(tok.size()) +
                 " fields: a flow is \"src dst pg size start\" (ConWeave) or \"src dst pg "
                 "dport size start\" (HPCC)");
      fields = tok.size();
    } else if (tok.size() != fields) {
      fail(source, line,
           std::to_string(tok.size()) + " fields: the first flow has " + std::to_string(fields) +
               (fields == 5 ? " (src dst pg size start)" : " (src dst pg dport size start)"));
    }
    FabricFlow f;
    uint32_t ends[2];
    for (int e = 0; e < 2; ++e) {
      auto it = host_of.find("h" + std::string(tok[size_t(e)]));
      uint64_t id = 0;
      if (!ns3_text::parse_uint(tok[size_t(e)], id) || it == host_of.end())
        fail(source, line,
             std::string(e ? "dst " : "src ") + std::string(tok[size_t(e)]) +
                 ": not a host node of the topology (" + host_range + ")");
      ends[e] = it->second;
    }
    if (ends[0] == ends[1]) fail(source, line, "src and dst are the same host");
    f.src = ends[0];
    f.dst = ends[1];
    uint64_t pg = 0;
    if (!ns3_text::parse_uint(tok[2], pg) || pg != topo.nic.data_priority)
      fail(source, line,
           "pg " + std::string(tok[2]) + ": must be the NIC's data priority, " +
               std::to_string(topo.nic.data_priority) + " (nic.data_priority)");
    if (fields == 6) {
      uint64_t dport = 0;
      if (!ns3_text::parse_uint(tok[3], dport) || dport > 65535)
        fail(source, line, "dport " + std::string(tok[3]) + ": must be 0..65535");
    }
    const std::string_view size = tok[fields - 2];
    if (!ns3_text::parse_uint(size, f.size_bytes) || f.size_bytes > kMaxFlowBytes)
      fail(source, line,
           "size " + std::string(size) + ": must be whole bytes, at most 2147483648 (2 GiB)");
    if (f.size_bytes == 0) f.size_bytes = 1;
    const std::string_view start = tok[fields - 1];
    if (!ns3_text::parse_scaled(start, 9, f.start_ns) || f.start_ns > kMaxWorkloadTimeNs)
      fail(source, line,
           "start " + std::string(start) + ": must be seconds (\"2.000001234\"), at most 3600");
    earliest = std::min(earliest, f.start_ns);
    w.flows.push_back(f);
  }
  if (next_line())
    fail(source, line,
         "more flows than the " + std::to_string(count) + " the first line announces");
  const uint64_t shift = w.flows.empty() ? 0 : earliest / kNsPerSecond * kNsPerSecond;
  for (FabricFlow& f : w.flows) f.start_ns -= shift;
  std::stable_sort(w.flows.begin(), w.flows.end(), [](const FabricFlow& a, const FabricFlow& b) {
    return a.start_ns < b.start_ns;
  });
  for (size_t i = 0; i < w.flows.size(); ++i) w.flows[i].id = i;
  w.description =
      "ns-3 flows (" + std::string(fields == 6 ? "HPCC" : "ConWeave") + " form), " +
      std::to_string(w.flows.size()) + " flows" +
      (shift ? ", starts moved back by " + std::to_string(shift / kNsPerSecond) + "s" : "");
  return w;
}

}  // namespace rocelb
