#include "dataplane/sim/ns3_topology.h"

#include <yaml-cpp/yaml.h>

#include "control/units.h"
#include "dataplane/sim/ns3_text.h"
#include "dataplane/sim/topology_graph.h"
#include "dataplane/sim/topology_keys.h"

namespace rocelb {
namespace {

constexpr uint64_t kMaxNodes = 1'000'000;
constexpr uint64_t kMaxLinks = 4'000'000;
constexpr uint64_t kMinRateBps = 1'000'000;
constexpr uint64_t kMaxRateBps = 1'600'000'000'000;

class Reader {
 public:
  Reader(const std::string& text, const std::string& source)
      : toks_(ns3_text::tokens(text)), source_(source) {}

  [[noreturn]] void fail(uint32_t line, const std::string& why) const {
    throw TopologyError(source_ + ":" + std::to_string(line) + ": " + why);
  }
  std::string where(uint32_t line) const { return source_ + ":" + std::to_string(line); }

  // The next token, or "ends after WHAT".
  const ns3_text::Token& next(const std::string& what) {
    if (i_ == toks_.size())
      fail(toks_.empty() ? 1 : toks_.back().line, "the file ends before " + what);
    return toks_[i_++];
  }
  uint64_t uint(const std::string& what, uint64_t hi) {
    const ns3_text::Token& t = next(what);
    uint64_t v = 0;
    if (!ns3_text::parse_uint(t.text, v))
      fail(t.line, what + ": \"" + std::string(t.text) + "\" is not a whole number");
    if (v > hi)
      fail(t.line, what + ": " + std::string(t.text) + " is more than " + std::to_string(hi));
    return v;
  }
  bool done() const { return i_ == toks_.size(); }
  const ns3_text::Token& peek() const { return toks_[i_]; }

 private:
  std::vector<ns3_text::Token> toks_;
  size_t i_ = 0;
  std::string source_;
};

}  // namespace

bool is_ns3_topology(std::string_view text) {
  const std::vector<std::string_view> first = ns3_text::first_line(text);
  uint64_t v = 0;
  if (first.size() != 3) return false;
  for (std::string_view t : first)
    if (!ns3_text::parse_uint(t, v)) return false;
  return true;
}

Topology load_ns3_topology(const std::string& text, const std::string& source,
                           const std::vector<std::string>& overrides) {
  Reader r(text, source);
  const uint64_t nodes = r.uint("the node count", kMaxNodes);
  const uint64_t switches = r.uint("the switch count", nodes);
  const uint64_t links = r.uint("the link count", kMaxLinks);
  FabricGraph g;
  g.nodes.resize(nodes);
  std::vector<bool> is_switch(nodes, false);
  for (uint64_t i = 0; i < switches; ++i) {
    const uint32_t line = r.done() ? 0 : r.peek().line;
    const uint64_t id = r.uint(
        "switch id " + std::to_string(i + 1) + " of " + std::to_string(switches), UINT64_MAX);
    if (id >= nodes)
      r.fail(line,
             "switch id " + std::to_string(id) + ": the nodes are 0.." + std::to_string(nodes - 1));
    if (is_switch[id]) r.fail(line, "switch id " + std::to_string(id) + " is listed twice");
    is_switch[id] = true;
    g.nodes[id] = {"sw" + std::to_string(id), true, r.where(line)};
  }
  for (uint64_t i = 0; i < nodes; ++i)
    if (!is_switch[i])
      g.nodes[i] = {"h" + std::to_string(i), false, source + ": node " + std::to_string(i)};
  for (uint64_t k = 0; k < links; ++k) {
    const std::string what = "link " + std::to_string(k + 1) + " of " + std::to_string(links);
    const uint32_t line = r.done() ? 0 : r.peek().line;
    GraphLink e;
    e.where = r.where(line);
    const uint64_t a = r.uint(what + ": its source node", UINT64_MAX);
    const uint64_t b = r.uint(what + ": its destination node", UINT64_MAX);
    for (uint64_t id : {a, b})
      if (id >= nodes)
        r.fail(line,
               "node " + std::to_string(id) + ": the nodes are 0.." + std::to_string(nodes - 1));
    e.a = uint32_t(a);
    e.b = uint32_t(b);
    const ns3_text::Token& rate = r.next(what + ": its rate");
    if (!ns3_text::parse_rate_bps(rate.text, e.speed_bps))
      r.fail(rate.line, "rate \"" + std::string(rate.text) +
                            "\": not an ns-3 DataRate (a number and bps, Kbps, Mbps, Gbps "
                            "or Tbps)");
    if (e.speed_bps < kMinRateBps || e.speed_bps > kMaxRateBps)
      r.fail(rate.line, "rate " + std::string(rate.text) + ": must be 1Mbps .. 1.6Tbps");
    const ns3_text::Token& delay = r.next(what + ": its delay");
    if (!ns3_text::parse_time_ns(delay.text, e.delay_ns))
      r.fail(delay.line, "delay \"" + std::string(delay.text) +
                             "\": not a whole number of nanoseconds (a number and s, ms, us, "
                             "ns or ps)");
    if (e.delay_ns > topology_detail::kMaxLinkDelayNs)
      r.fail(delay.line, "delay " + std::string(delay.text) + ": must be at most 1s");
    const ns3_text::Token& error = r.next(what + ": its error rate");
    uint64_t scaled = 0;
    if (!ns3_text::parse_scaled(error.text, 9, scaled))
      r.fail(error.line, "error rate \"" + std::string(error.text) + "\": not a number");
    if (scaled != 0)
      r.fail(error.line, "error rate " + std::string(error.text) +
                             ": must be 0 (rocelb's links lose no packet at random)");
    g.links.push_back(e);
  }
  // What follows the links is ignored, as ns-3 does: ConWeave's files end
  // with notes.

  std::string nic_yaml;
  const NicParams nic =
      topology_detail::nic_params(YAML::Node(YAML::NodeType::Map), overrides, source, &nic_yaml);
  const YAML::Node base =
      load_base_switch_config("", ".", [&](const std::string& why) { throw TopologyError(why); });
  return build_graph_topology(g, base, nic, nic_yaml, overrides, source);
}

}  // namespace rocelb
