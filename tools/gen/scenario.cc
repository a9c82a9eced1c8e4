#include "tools/gen/scenario.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "control/bounded_file.h"
#include "control/key_reader.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

using Node = YAML::Node;

constexpr uint64_t kMaxQp = 0xffffff;
constexpr uint64_t kMaxTotalPackets = 100'000'000;
// Upper bound of a frame's bytes beyond its RoCE payload (Ethernet, 802.1Q,
// IPv6, UDP, BTH, RETH, pad, ICRC) plus preamble and inter-frame gap.
constexpr uint64_t kMaxFrameOverheadBytes = 14 + 4 + 40 + 8 + 12 + 16 + 3 + 4 + 20;
constexpr uint16_t kRandomSportLow = 49152;

// A uniform integer in [lo, hi] by rejection, so the result depends only on
// the mt19937_64 sequence (std::uniform_int_distribution is not portable).
uint64_t draw(std::mt19937_64& rng, uint64_t lo, uint64_t hi) {
  uint64_t span = hi - lo + 1;  // hi > lo here, never the full 64-bit range
  uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return lo + x % span;
}

std::string format_seconds(uint64_t ns) {
  std::ostringstream os;
  os << ns / 1'000'000'000ull << '.';
  std::string frac = std::to_string(ns % 1'000'000'000ull);
  os << std::string(9 - frac.size(), '0') << frac << " s";
  return os.str();
}

// The reads of a scenario's keys that need the switch config.
class Switch {
 public:
  Switch(const KeyReader& r, const ConfigParams& config) : r_(r), config_(config) {}

  // in_port: a port of the switch.
  uint16_t port(const KeyReader::Map& m) const {
    uint16_t id = 0;
    m.read("in_port", id);
    if (!config_.find_port(id)) {
      std::string ids;
      for (const auto& q : config_.ports) ids += (ids.empty() ? "" : ", ") + std::to_string(q.id);
      r_.fail_value(m.at("in_port"), m.require("in_port"),
                    "not a port of the switch (its ports: " + ids + ")");
    }
    return id;
  }

  const ConfigParams& config() const { return config_; }

 private:
  const KeyReader& r_;
  const ConfigParams& config_;
};

IpAddr read_ip(const KeyReader& r, const KeyReader::Map& m, std::string_view key) {
  const Node n = m.require(key);
  IpAddr a;
  if (!parse_ip(r.scalar(n, m.at(key), "an IP address"), a))
    r.fail_value(m.at(key), n, "not an IP address");
  return a;
}

// Refuses flows whose last packet would leave beyond kMaxScenarioNs, using an
// upper bound of each packet's wire time.
void check_duration(const KeyReader& r, const FlowParams& f, const std::string& path) {
  using u128 = unsigned __int128;
  u128 bits_per_msg = u128(f.message_bytes + f.packets_per_message() * kMaxFrameOverheadBytes) * 8;
  u128 end = u128(f.start_ns) + u128(f.messages) * bits_per_msg * 1'000'000'000ull / f.rate_bps +
             u128(f.messages - 1) * f.gap_ns;
  if (end > kMaxScenarioNs)
    r.fail(path,
           "the flow would last until t=" +
               (end > UINT64_MAX ? std::string("beyond 2^64 ns") : format_seconds(uint64_t(end))) +
               ", beyond the limit of 30 days (2592000 s)");
}

// named: whether the flow has a name key (default names are not checked for
// duplicates).
FlowParams read_flow(const KeyReader& r, const Switch& sw, const KeyReader::Map& m, size_t index,
                     bool& named) {
  FlowParams f;
  f.name = "flow" + std::to_string(index);
  for (std::string_view key : {"in_port", "src", "dst"}) m.require(key);
  // First the keys other rules depend on.
  f.in_port = sw.port(m);
  m.read("copies", f.copies);

  named = m.read("name", f.name);
  f.src = read_ip(r, m, "src");
  f.dst = read_ip(r, m, "dst");
  if (m.word("sport")) {
    f.random_sport = true;
  } else if (m.read("sport", f.sport) && uint64_t(f.sport) + f.copies - 1 > 65535) {
    r.fail_value(m.at("sport"), *m.get("sport"),
                 "with copies: " + std::to_string(f.copies) + " the last copy's sport " +
                     std::to_string(uint64_t(f.sport) + f.copies - 1) + " would exceed 65535");
  }
  for (std::string_view key : {"dest_qp", "src_qp"}) {
    uint32_t& qp = key == "dest_qp" ? f.dest_qp : f.src_qp;
    if (m.read(key, qp) && qp + uint64_t(f.copies) - 1 > kMaxQp)
      r.fail_value(m.at(key), *m.get(key),
                   "with copies: " + std::to_string(f.copies) +
                       " the last copy's QP would exceed 0xffffff (24 bits)");
  }
  m.read("dscp", f.dscp);
  if (std::string ecn; m.read("ecn", ecn))
    f.ecn = ecn == "not_ect" ? 0 : ecn == "ect1" ? 1 : ecn == "ect0" ? 2 : 3;
  if (uint8_t pcp = 0; m.read("pcp", pcp)) f.pcp = pcp;
  if (uint16_t vid = 0; m.read("vlan", vid)) f.vlan = vid;
  if (std::string op; m.read("op", op))
    f.op = op == "write"          ? RoceOp::kWrite
           : op == "send"         ? RoceOp::kSend
           : op == "read_request" ? RoceOp::kReadRequest
                                  : RoceOp::kReadResponse;
  m.read("message", f.message_bytes);
  m.read("messages", f.messages);
  if (m.read("mtu", f.mtu) && f.mtu != 256 && f.mtu != 512 && f.mtu != 1024 && f.mtu != 2048 &&
      f.mtu != 4096)
    r.fail_value(m.at("mtu"), *m.get("mtu"), "must be 256, 512, 1024, 2048 or 4096");
  m.read("rate", f.rate_bps);
  m.read("start", f.start_ns);
  m.read("gap", f.gap_ns);
  m.read("psn", f.psn);

  if (f.src.family != f.dst.family)
    r.fail_value(m.at("dst"), m.require("dst"),
                 std::string("must be ") + (f.src.is_v4() ? "IPv4" : "IPv6") + " like src " +
                     to_string(f.src));

  f.dst_mac = sw.config().find_port(f.in_port)->mac;
  const NeighborParams* nb = sw.config().find_neighbor(f.src);
  if (nb && nb->port == f.in_port) {
    f.src_mac = nb->mac;
  } else {
    f.src_mac.b = {0x02, 0x00, 0x00, 0x00, 0xff, static_cast<uint8_t>(f.in_port)};
  }
  check_duration(r, f, m.path());
  return f;
}

PfcSourceParams read_pfc(const KeyReader& r, const Switch& sw, const KeyReader::Map& m,
                         size_t index) {
  PfcSourceParams p;
  p.name = "pfc" + std::to_string(index);
  m.require("in_port");
  m.read("name", p.name);
  p.in_port = sw.port(m);
  if (const auto v = m.get("priorities")) {
    if (!v->IsSequence() || v->size() == 0)
      r.fail_type(m.at("priorities"), *v, "a non-empty list of priorities");
    p.class_enable = 0;
    m.each("priorities", [&](const Node& n, const std::string& path, const std::string& pattern) {
      const uint64_t prio = r.uint(n, path, r.spec(pattern));
      if (p.class_enable & (1u << prio)) r.fail_value(path, n, "duplicate priority");
      p.class_enable = static_cast<uint8_t>(p.class_enable | (1u << prio));
    });
  }
  m.read("quanta", p.quanta);
  m.read("start", p.start_ns);
  m.read("interval", p.interval_ns);
  m.read("count", p.count);
  using u128 = unsigned __int128;
  u128 end = u128(p.start_ns) + u128(p.count - 1) * p.interval_ns;
  if (end > kMaxScenarioNs)
    r.fail(m.path(),
           "the last PFC frame would be sent at t=" +
               (end > UINT64_MAX ? std::string("beyond 2^64 ns") : format_seconds(uint64_t(end))) +
               ", beyond the limit of 30 days (2592000 s)");
  p.src_mac.b = {0x02, 0x00, 0x00, 0x00, 0xff, static_cast<uint8_t>(p.in_port)};
  for (const auto& nb : sw.config().neighbors)
    if (nb.port == p.in_port) {
      p.src_mac = nb.mac;
      break;
    }
  return p;
}

ScenarioParams read_scenario(const KeyReader& r, const ConfigParams& config, const Node& root,
                             std::optional<uint64_t> seed_override) {
  ScenarioParams sc;
  sc.source = r.origin().source;
  r.check_utf8(root, "");
  const KeyReader::Map top = r.top(root);
  top.read("base_time", sc.base_time_ns);
  top.read("seed", sc.seed);
  const Node flows = top.require("flows");
  if (!flows.IsSequence()) r.fail_type("flows", flows, "a non-empty list");
  if (flows.size() == 0) r.fail("flows", "must list at least one flow");
  if (flows.size() > kMaxScenarioFlows)
    r.fail("flows", std::to_string(flows.size()) + " flows: a scenario holds at most " +
                        std::to_string(kMaxScenarioFlows) +
                        " (use messages and copies for more traffic per flow)");

  const Switch sw(r, config);
  // Named flows by name, for the duplicate rule: one look-up per flow.
  std::unordered_map<std::string, size_t> names;
  sc.flows.reserve(flows.size());
  size_t i = 0;
  top.each("flows", [&](const Node& n, const std::string& path, const std::string& pattern) {
    bool named = false;
    FlowParams f = read_flow(r, sw, r.map(n, path, pattern), i, named);
    if (named) {
      const auto [it, fresh] = names.try_emplace(f.name, i);
      if (!fresh)
        r.fail(path + ".name", quote(f.name) + ": duplicate flow name (also " +
                                   index_path("flows", it->second) + ")");
    }
    sc.flows.push_back(std::move(f));
    ++i;
  });
  i = 0;
  top.each("pfc", [&](const Node& n, const std::string& path, const std::string& pattern) {
    sc.pfc.push_back(read_pfc(r, sw, r.map(n, path, pattern), i++));
  });

  uint64_t total = 0;
  for (const auto& f : sc.flows) total += f.packets() * f.copies;  // each term < 2^56
  for (const auto& p : sc.pfc) total += p.count;                   // each term <= 10^7
  if (total > kMaxTotalPackets)
    r.fail("flows", "the scenario would produce " + std::to_string(total) + " packets (at most " +
                        std::to_string(kMaxTotalPackets) + ")");

  if (seed_override) sc.seed = *seed_override;
  std::mt19937_64 rng(sc.seed);
  for (auto& f : sc.flows)
    if (f.random_sport)
      f.sport = static_cast<uint16_t>(draw(rng, kRandomSportLow, 65536 - f.copies));
  return sc;
}

}  // namespace

std::vector<uint16_t> ScenarioParams::ports() const {
  std::vector<uint16_t> out;
  for (const auto& f : flows)
    if (std::find(out.begin(), out.end(), f.in_port) == out.end()) out.push_back(f.in_port);
  for (const auto& p : pfc)
    if (std::find(out.begin(), out.end(), p.in_port) == out.end()) out.push_back(p.in_port);
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t ScenarioParams::total_packets() const {
  uint64_t total = 0;
  for (const auto& f : flows) total += f.packets() * f.copies;
  for (const auto& p : pfc) total += p.count;
  return total;
}

ScenarioParams load_scenario_text(const std::string& yaml_text, const std::string& source_name,
                                  const ConfigParams& config,
                                  std::optional<uint64_t> seed_override) {
  Node root;
  try {
    root = load_yaml_document(yaml_text, source_name);
  } catch (const YamlDocumentError& e) {
    throw ScenarioError(e.what());
  }
  try {
    const KeyReader r(scenario_schema(), KeyOrigin{source_name, {}},
                      [](const std::string& message) { throw ScenarioError(message); });
    return read_scenario(r, config, root, seed_override);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(source_name + ": " + e.msg);
  }
}

ScenarioParams load_scenario_file(const std::string& path, const ConfigParams& config,
                                  std::optional<uint64_t> seed_override) {
  std::string text;
  try {
    text = read_bounded_file(path, kMaxYamlFileBytes, "scenario file");
  } catch (const BoundedFileError& e) {
    throw ScenarioError(e.what());
  }
  return load_scenario_text(text, path, config, seed_override);
}

}  // namespace rocelb
