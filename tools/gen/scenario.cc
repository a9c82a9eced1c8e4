#include "tools/gen/scenario.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "control/bounded_file.h"
#include "control/units.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

using Node = YAML::Node;

constexpr uint64_t kMinRateBps = 1'000'000;
constexpr uint64_t kMaxRateBps = 1'600'000'000'000ull;
constexpr uint64_t kMaxMessageBytes = 1ull << 31;  // IBA: at most 2^31 bytes per message
constexpr uint64_t kMaxMessages = 1'000'000;
constexpr uint64_t kMaxCopies = 4096;
constexpr uint64_t kMaxQp = 0xffffff;
constexpr uint64_t kMaxPsn = 0xffffff;
constexpr uint64_t kMaxTotalPackets = 100'000'000;
constexpr uint64_t kMaxBaseTimeNs = 4'000'000'000ull * 1'000'000'000ull;  // year 2096
constexpr uint64_t kMaxScenarioNs = 30ull * 86400 * 1'000'000'000ull;     // 30 days
// Upper bound of a frame's bytes beyond its RoCE payload (Ethernet, 802.1Q,
// IPv6, UDP, BTH, RETH, pad, ICRC) plus preamble and inter-frame gap.
constexpr uint64_t kMaxFrameOverheadBytes = 14 + 4 + 40 + 8 + 12 + 16 + 3 + 4 + 20;
constexpr uint16_t kRandomSportLow = 49152;
constexpr size_t kMaxNameLength = 64;

constexpr uint64_t kMaxVid = 4094;

constexpr std::string_view kTopKeys[] = {"base_time", "seed", "flows", "pfc"};
constexpr std::string_view kFlowKeys[] = {"name",    "in_port", "src",     "dst",      "sport",
                                          "dest_qp", "src_qp",  "dscp",    "ecn",      "pcp",
                                          "vlan",    "op",      "message", "messages", "mtu",
                                          "rate",    "start",   "gap",     "copies",   "psn"};
constexpr std::string_view kPfcKeys[] = {"name",  "in_port",  "priorities", "quanta",
                                         "start", "interval", "count"};

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// Decimal or 0x hex without sign; false on anything else or overflow.
bool parse_uint_text(std::string_view s, uint64_t& out, bool& negative) {
  negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = unsigned(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = unsigned(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = unsigned(c - 'A' + 10);
    } else {
      return false;
    }
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

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

class Reader {
 public:
  Reader(std::string source, const ConfigParams& config)
      : source_(std::move(source)), config_(config) {}

  ScenarioParams run(const Node& root, std::optional<uint64_t> seed_override);

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw ScenarioError(source_ + ": " + (path.empty() ? "" : path + ": ") + msg);
  }
  [[noreturn]] void fail_value(const std::string& path, const Node& n,
                               const std::string& rule) const {
    fail(path, yaml_show(n) + ": " + rule);
  }
  [[noreturn]] void fail_type(const std::string& path, const Node& n,
                              const std::string& expected) const {
    std::string exp = expected + (path.empty() ? " at the top level" : "");
    if (n.IsScalar()) fail(path, yaml_show(n) + ": expected " + exp);
    fail(path, "expected " + exp + ", found " + yaml_kind(n));
  }

  // The entries of a map with a fixed set of keys, in file order.
  template <size_t N>
  std::vector<std::pair<std::string, Node>> entries(const Node& n, const std::string& path,
                                                    const std::string_view (&known)[N]) const {
    if (!n.IsMap()) fail_type(path, n, "a map");
    if (auto problem = check_map_keys(n, path, known)) fail(problem->path, problem->rule);
    std::vector<std::pair<std::string, Node>> out;
    for (auto it = n.begin(); it != n.end(); ++it) out.emplace_back(it->first.Scalar(), it->second);
    return out;
  }

  const std::string& scalar(const Node& n, const std::string& path, const char* expected) const {
    if (!n.IsScalar()) fail_type(path, n, expected);
    return n.Scalar();
  }

  uint64_t get_uint(const Node& n, const std::string& path, uint64_t lo, uint64_t hi,
                    const std::string& what) const {
    uint64_t v = 0;
    bool negative = false;
    bool ok = parse_uint_text(scalar(n, path, "an integer"), v, negative);
    std::string range = std::to_string(lo) + ".." + std::to_string(hi);
    if (!ok && !negative) fail_value(path, n, what + " must be an integer " + range);
    if (!ok || (negative && v != 0) || v < lo || v > hi)
      fail_value(path, n, what + " must be " + range);
    return v;
  }

  uint64_t get_duration(const Node& n, const std::string& path) const {
    uint64_t v;
    std::string why;
    if (!parse_duration_ns(scalar(n, path, "a duration"), v, &why)) fail_value(path, n, why);
    return v;
  }

  IpAddr get_ip(const Node& n, const std::string& path) const {
    IpAddr a;
    if (!parse_ip(scalar(n, path, "an IP address"), a)) fail_value(path, n, "not an IP address");
    return a;
  }

  // named: whether the flow has a name key (default names are not checked for
  // duplicates).
  FlowParams parse_flow(const Node& n, const std::string& path, size_t index, bool& named) const;
  PfcSourceParams parse_pfc(const Node& n, const std::string& path, size_t index) const;
  uint16_t get_port(const Node& n, const std::string& path) const;
  void check_duration(const FlowParams& f, const std::string& path) const;

  std::string source_;
  const ConfigParams& config_;
};

ScenarioParams Reader::run(const Node& root, std::optional<uint64_t> seed_override) {
  ScenarioParams sc;
  sc.source = source_;
  Node top = root.IsNull() ? Node(YAML::NodeType::Map) : root;
  std::optional<Node> flows_entry;
  std::optional<Node> pfc_entry;
  for (const auto& [key, value] : entries(top, "", kTopKeys)) {
    if (key == "base_time") {
      sc.base_time_ns = get_duration(value, key);
      if (sc.base_time_ns > kMaxBaseTimeNs)
        fail_value(key, value, "base time must be at most 4000000000s (pcap seconds are 32-bit)");
    } else if (key == "seed") {
      bool negative = false;
      if (!parse_uint_text(scalar(value, key, "an integer"), sc.seed, negative) || negative)
        fail_value(key, value, "seed must be an unsigned 64-bit integer (decimal or 0x hex)");
    } else if (key == "pfc") {
      pfc_entry = value;
    } else {
      flows_entry = value;
    }
  }
  if (!flows_entry) fail("", "missing required key \"flows\"");
  const Node& flows = *flows_entry;
  if (!flows.IsSequence()) fail_type("flows", flows, "a non-empty list");
  if (flows.size() == 0) fail("flows", "must list at least one flow");
  if (flows.size() > kMaxScenarioFlows)
    fail("flows", std::to_string(flows.size()) + " flows: a scenario holds at most " +
                      std::to_string(kMaxScenarioFlows) +
                      " (use messages and copies for more traffic per flow)");

  // Named flows by name, for the duplicate rule: one look-up per flow.
  std::unordered_map<std::string, size_t> names;
  sc.flows.reserve(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    std::string path = index_path("flows", i);
    bool named = false;
    FlowParams f = parse_flow(flows[i], path, i, named);
    if (named) {
      const auto [it, fresh] = names.try_emplace(f.name, i);
      if (!fresh)
        fail(path + ".name", quote(f.name) + ": duplicate flow name (also " +
                                 index_path("flows", it->second) + ")");
    }
    sc.flows.push_back(std::move(f));
  }

  if (pfc_entry) {
    const Node& pfc = *pfc_entry;
    if (!pfc.IsSequence()) fail_type("pfc", pfc, "a list");
    for (size_t i = 0; i < pfc.size(); ++i)
      sc.pfc.push_back(parse_pfc(pfc[i], index_path("pfc", i), i));
  }

  uint64_t total = 0;
  for (const auto& f : sc.flows) total += f.packets() * f.copies;  // each term < 2^56
  for (const auto& p : sc.pfc) total += p.count;                   // each term <= 10^7
  if (total > kMaxTotalPackets)
    fail("flows", "the scenario would produce " + std::to_string(total) + " packets (at most " +
                      std::to_string(kMaxTotalPackets) + ")");

  if (seed_override) sc.seed = *seed_override;
  std::mt19937_64 rng(sc.seed);
  for (auto& f : sc.flows)
    if (f.random_sport)
      f.sport = static_cast<uint16_t>(draw(rng, kRandomSportLow, 65536 - f.copies));
  return sc;
}

FlowParams Reader::parse_flow(const Node& n, const std::string& path, size_t index,
                              bool& named) const {
  FlowParams f;
  f.name = "flow" + std::to_string(index);
  auto fields = entries(n, path, kFlowKeys);
  auto find = [&](std::string_view key) -> std::optional<Node> {
    for (const auto& [k, v] : fields)
      if (k == key) return v;
    return std::nullopt;
  };
  for (std::string_view key : {"in_port", "src", "dst"})
    if (!find(key)) fail(path, "missing required key " + quote(key));
  auto at = [&](std::string_view key) { return join_path(path, key); };

  // First the keys other rules depend on.
  f.in_port = get_port(*find("in_port"), at("in_port"));
  const PortParams* port = config_.find_port(f.in_port);
  if (auto v = find("copies"))
    f.copies = static_cast<uint32_t>(get_uint(*v, at("copies"), 1, kMaxCopies, "copies"));

  for (const auto& [key, v] : fields) {
    std::string p = at(key);
    if (key == "name") {
      named = true;
      f.name = scalar(v, p, "a string");
      if (!valid_name(f.name))
        fail_value(p, v, "flow name must match [A-Za-z0-9_.-]+ (1..64 characters)");
    } else if (key == "src") {
      f.src = get_ip(v, p);
    } else if (key == "dst") {
      f.dst = get_ip(v, p);
    } else if (key == "sport") {
      if (scalar(v, p, "a UDP port or \"random\"") == "random") {
        f.random_sport = true;
      } else {
        f.sport = static_cast<uint16_t>(get_uint(v, p, 1, 65535, "UDP source port"));
        if (uint64_t(f.sport) + f.copies - 1 > 65535)
          fail_value(p, v,
                     "with copies: " + std::to_string(f.copies) + " the last copy's sport " +
                         std::to_string(uint64_t(f.sport) + f.copies - 1) + " would exceed 65535");
      }
    } else if (key == "dest_qp" || key == "src_qp") {
      uint64_t lo = key == "dest_qp" ? 2 : 0;
      uint64_t qp = get_uint(v, p, lo, kMaxQp, "QP number");
      if (qp + f.copies - 1 > kMaxQp)
        fail_value(p, v,
                   "with copies: " + std::to_string(f.copies) +
                       " the last copy's QP would exceed " + "0xffffff (24 bits)");
      (key == "dest_qp" ? f.dest_qp : f.src_qp) = static_cast<uint32_t>(qp);
    } else if (key == "dscp") {
      f.dscp = static_cast<uint8_t>(get_uint(v, p, 0, 63, "DSCP"));
    } else if (key == "ecn") {
      const std::string& s = scalar(v, p, "an ECN codepoint");
      if (s == "not_ect") {
        f.ecn = 0;
      } else if (s == "ect1") {
        f.ecn = 1;
      } else if (s == "ect0") {
        f.ecn = 2;
      } else if (s == "ce") {
        f.ecn = 3;
      } else {
        fail_value(p, v, "ECN must be one of not_ect, ect0, ect1, ce");
      }
    } else if (key == "pcp") {
      f.pcp = static_cast<uint8_t>(get_uint(v, p, 0, 7, "PCP"));
    } else if (key == "vlan") {
      f.vlan = static_cast<uint16_t>(get_uint(v, p, 0, kMaxVid, "VLAN ID"));
    } else if (key == "op") {
      const std::string& s = scalar(v, p, "an operation");
      if (s == "write") {
        f.op = RoceOp::kWrite;
      } else if (s == "send") {
        f.op = RoceOp::kSend;
      } else if (s == "read_request") {
        f.op = RoceOp::kReadRequest;
      } else if (s == "read_response") {
        f.op = RoceOp::kReadResponse;
      } else {
        fail_value(p, v, "op must be write, send, read_request or read_response");
      }
    } else if (key == "message") {
      std::string why;
      if (!parse_bytes(scalar(v, p, "a byte size"), f.message_bytes, &why)) fail_value(p, v, why);
      if (f.message_bytes < 1 || f.message_bytes > kMaxMessageBytes)
        fail_value(p, v, "message size must be 1 B .. 2GiB (2147483648 B)");
    } else if (key == "messages") {
      f.messages = static_cast<uint32_t>(get_uint(v, p, 1, kMaxMessages, "messages"));
    } else if (key == "mtu") {
      uint64_t mtu = 0;
      bool negative = false;
      bool ok = parse_uint_text(scalar(v, p, "an integer"), mtu, negative) && !negative;
      if (!ok || (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096))
        fail_value(p, v, "mtu must be one of 256, 512, 1024, 2048, 4096");
      f.mtu = static_cast<uint32_t>(mtu);
    } else if (key == "rate") {
      std::string why;
      if (!parse_speed_bps(scalar(v, p, "a speed"), f.rate_bps, &why)) fail_value(p, v, why);
      if (f.rate_bps < kMinRateBps || f.rate_bps > kMaxRateBps)
        fail_value(p, v, "rate must be 1 Mb/s .. 1.6 Tb/s");
    } else if (key == "start") {
      f.start_ns = get_duration(v, p);
    } else if (key == "gap") {
      f.gap_ns = get_duration(v, p);
    } else if (key == "psn") {
      f.psn = static_cast<uint32_t>(get_uint(v, p, 0, kMaxPsn, "PSN"));
    }
    // in_port and copies were read above.
  }

  if (f.src.family != f.dst.family)
    fail_value(at("dst"), *find("dst"),
               std::string("must be ") + (f.src.is_v4() ? "IPv4" : "IPv6") + " like src " +
                   to_string(f.src));

  f.dst_mac = port->mac;
  const NeighborParams* nb = config_.find_neighbor(f.src);
  if (nb && nb->port == f.in_port) {
    f.src_mac = nb->mac;
  } else {
    f.src_mac.b = {0x02, 0x00, 0x00, 0x00, 0xff, static_cast<uint8_t>(f.in_port)};
  }
  check_duration(f, path);
  return f;
}

uint16_t Reader::get_port(const Node& n, const std::string& path) const {
  auto id = static_cast<uint16_t>(get_uint(n, path, 0, kMaxPorts - 1, "port id"));
  if (!config_.find_port(id)) {
    std::string ids;
    for (const auto& q : config_.ports) ids += (ids.empty() ? "" : ", ") + std::to_string(q.id);
    fail_value(path, n, "not a port of the switch (its ports: " + ids + ")");
  }
  return id;
}

PfcSourceParams Reader::parse_pfc(const Node& n, const std::string& path, size_t index) const {
  PfcSourceParams p;
  p.name = "pfc" + std::to_string(index);
  bool has_port = false;
  for (const auto& [key, v] : entries(n, path, kPfcKeys)) {
    std::string at = join_path(path, key);
    if (key == "name") {
      p.name = scalar(v, at, "a string");
      if (!valid_name(p.name))
        fail_value(at, v, "PFC source name must match [A-Za-z0-9_.-]+ (1..64 characters)");
    } else if (key == "in_port") {
      p.in_port = get_port(v, at);
      has_port = true;
    } else if (key == "priorities") {
      if (!v.IsSequence() || v.size() == 0) fail_type(at, v, "a non-empty list of priorities");
      p.class_enable = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        std::string ip = index_path(at, i);
        auto prio = get_uint(v[i], ip, 0, 7, "priority");
        if (p.class_enable & (1u << prio)) fail_value(ip, v[i], "duplicate priority");
        p.class_enable = static_cast<uint8_t>(p.class_enable | (1u << prio));
      }
    } else if (key == "quanta") {
      p.quanta = static_cast<uint16_t>(get_uint(v, at, 0, kMaxPauseQuanta, "pause quanta"));
    } else if (key == "start") {
      p.start_ns = get_duration(v, at);
    } else if (key == "interval") {
      p.interval_ns = get_duration(v, at);
      if (p.interval_ns == 0) fail_value(at, v, "interval must be at least 1ns");
    } else if (key == "count") {
      p.count = get_uint(v, at, 1, kMaxPfcFrames, "count");
    }
  }
  if (!has_port) fail(path, "missing required key \"in_port\"");
  using u128 = unsigned __int128;
  u128 end = u128(p.start_ns) + u128(p.count - 1) * p.interval_ns;
  if (end > kMaxScenarioNs)
    fail(path,
         "the last PFC frame would be sent at t=" +
             (end > UINT64_MAX ? std::string("beyond 2^64 ns") : format_seconds(uint64_t(end))) +
             ", beyond the limit of 30 days (2592000 s)");
  p.src_mac.b = {0x02, 0x00, 0x00, 0x00, 0xff, static_cast<uint8_t>(p.in_port)};
  for (const auto& nb : config_.neighbors)
    if (nb.port == p.in_port) {
      p.src_mac = nb.mac;
      break;
    }
  return p;
}

// Rejects flows whose last packet would leave beyond kMaxScenarioNs, using an
// upper bound of each packet's wire time.
void Reader::check_duration(const FlowParams& f, const std::string& path) const {
  using u128 = unsigned __int128;
  u128 bits_per_msg = u128(f.message_bytes + f.packets_per_message() * kMaxFrameOverheadBytes) * 8;
  u128 end = u128(f.start_ns) + u128(f.messages) * bits_per_msg * 1'000'000'000ull / f.rate_bps +
             u128(f.messages - 1) * f.gap_ns;
  if (end > kMaxScenarioNs)
    fail(path,
         "the flow would last until t=" +
             (end > UINT64_MAX ? std::string("beyond 2^64 ns") : format_seconds(uint64_t(end))) +
             ", beyond the limit of 30 days (2592000 s)");
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
    return Reader(source_name, config).run(root, seed_override);
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
