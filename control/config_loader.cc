#include "control/config_loader.h"

#include "control/bounded_file.h"
#include "control/yaml_document.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "control/memory_estimate.h"
#include "control/units.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "lb/bpf_engine.h"

namespace rocelb {
namespace {

using Node = YAML::Node;

constexpr uint64_t kDefaultQueueLimitBytes = 4'000'000;
constexpr uint64_t kMinQueueLimitBytes = 64;
constexpr uint64_t kMaxQueueLimitBytes = 1'000'000'000;
constexpr uint64_t kMinSpeedBps = 1'000'000;
constexpr uint64_t kMaxSpeedBps = 1'600'000'000'000;
// ports[].mtu: IPv4's minimum (RFC 791) up to the usual jumbo limit.
constexpr uint64_t kMinMtu = 68;
constexpr uint64_t kMaxMtu = 9216;
constexpr uint64_t kMinIpv6Mtu = 1280;
constexpr size_t kMaxGroupMembers = 256;
// A full Internet table (about a million IPv4 prefixes) fits; the route
// tables are sized from the routes given (route_table.h).
constexpr size_t kMaxRoutes = 1u << 20;
constexpr uint64_t kMaxWeight = 100;
constexpr uint64_t kMaxMemberWeight = 65535;
constexpr size_t kMaxNameLength = 64;
constexpr const char* kNameRule = "must match [A-Za-z0-9_.-]+ (1..64 characters)";

// Lossless RoCE (qos.pfc_enable, pfc, buffer, wred, pfc_watchdog); the
// defaults not in pfc/pfc_params.h are filled here.
constexpr uint64_t kDefaultXoffBytes = 1'600'000;  // above the ECN range of default.yaml
constexpr uint64_t kDefaultXonBytes = 1'200'000;
constexpr uint64_t kDefaultXonOffsetBytes = 64'000;
constexpr uint64_t kDefaultSharedBufferBytes = 32'000'000;
constexpr uint64_t kMinThresholdBytes = 64;
constexpr uint64_t kMaxBufferBytes = 1'000'000'000;
constexpr uint64_t kMinSharedBufferBytes = 64'000;
constexpr uint64_t kMaxPauseQuanta = 65535;
constexpr int64_t kMinDynamicTh = -7;
constexpr int64_t kMaxDynamicTh = 3;
constexpr uint64_t kMinCableLengthM = 1;
constexpr uint64_t kMaxCableLengthM = 100'000;
constexpr uint64_t kMaxResponseDelayNs = 1'000'000;
constexpr uint64_t kMinWatchdogTimeNs = 1'000'000;
constexpr uint64_t kMaxWatchdogTimeNs = 60'000'000'000;
constexpr uint64_t kMinPollIntervalNs = 100'000;
constexpr uint64_t kMaxPollIntervalNs = 1'000'000'000;
// limits.max_memory. Below what the switch needs whatever the config (about
// 100 MB of first-level route tables, the packet pool), the estimate's
// refusal names the limit itself.
constexpr uint64_t kMinMaxMemoryBytes = 1'000'000;
constexpr uint64_t kMaxMaxMemoryBytes = 1'000'000'000'000'000;

std::string range_text(uint64_t lo, uint64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// A duration for rule texts: the largest unit that divides it ("100ns", "1s").
std::string format_ns(uint64_t ns) {
  if (ns != 0 && ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns != 0 && ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns != 0 && ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}

// A byte count for rule texts: "1.6MB", "150KB", "64KiB", "1536B".
std::string show_bytes(uint64_t b) {
  for (uint64_t unit : {uint64_t(1'000'000'000), uint64_t(1'000'000)}) {
    if (b < unit || b % unit == 0 || b % (unit / 1000) != 0) continue;
    std::string frac = std::to_string(1000 + b % unit / (unit / 1000)).substr(1);
    while (frac.back() == '0') frac.pop_back();
    return std::to_string(b / unit) + "." + frac + (unit == 1'000'000 ? "MB" : "GB");
  }
  return format_bytes(b);
}

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

bool is_valid_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// An integer as the config writes it: decimal or 0x hex, optional '-' (only so
// that "-1" is reported as out of range rather than as not a number).
struct IntText {
  bool ok = false;
  bool negative = false;
  bool overflow = false;
  uint64_t value = 0;
};

IntText parse_int_text(std::string_view s) {
  IntText r;
  if (!s.empty() && s[0] == '-') {
    r.negative = true;
    s.remove_prefix(1);
  }
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return r;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = unsigned(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = unsigned(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = unsigned(c - 'A' + 10);
    } else {
      return r;
    }
    if (r.value > (UINT64_MAX - d) / base) r.overflow = true;
    r.value = r.value * base + d;
  }
  r.ok = true;
  return r;
}

// Host bits of an interface address: all zero (network) or all one (broadcast).
bool host_bits_all(const IpPrefix& p, bool ones) {
  unsigned total = p.addr.is_v4() ? 32 : 128;
  for (unsigned bit = p.len; bit < total; ++bit) {
    bool set = p.addr.b[bit / 8] & (0x80 >> (bit % 8));
    if (set != ones) return false;
  }
  return true;
}

bool overlaps(const IpPrefix& a, const IpPrefix& b) {
  if (a.addr.family != b.addr.family) return false;
  IpPrefix shorter = a.len <= b.len ? a : b;
  const IpAddr& other = a.len <= b.len ? b.addr : a.addr;
  return shorter.contains(other);
}

class Validator;

// The entries of one YAML map whose keys are a fixed schema: checks that it is
// a map, that every key is known and none is repeated.
// Two ports on one device: the same DPDK device name (up to the first
// comma: "net_tap0", a PCI address), or two virtual devices bound to the
// same kernel interface ("iface=rl0"). Returns why, or "" when distinct.
std::string same_device(const std::string& a, const std::string& b) {
  auto name = [](const std::string& d) { return d.substr(0, d.find(',')); };
  auto iface = [](const std::string& d) -> std::string {
    for (size_t pos = d.find(','); pos != std::string::npos; pos = d.find(',', pos + 1)) {
      const size_t end = d.find(',', pos + 1);
      const std::string arg = d.substr(pos + 1, end == std::string::npos ? end : end - pos - 1);
      if (arg.rfind("iface=", 0) == 0) return arg.substr(6);
    }
    return "";
  };
  if (name(a) == name(b)) return "device " + name(a);
  const std::string ia = iface(a);
  if (!ia.empty() && ia == iface(b)) return "interface " + ia;
  return "";
}

class Fields {
 public:
  Fields(const Validator& v, const Node& node, std::string path,
         std::vector<std::string_view> known);

  // The value of an optional key; absent or null → nullopt.
  std::optional<Node> get(std::string_view key) const {
    for (const auto& [name, value] : entries_)
      if (name == key) return value.IsNull() ? std::nullopt : std::optional<Node>(value);
    return std::nullopt;
  }
  // The value of a required key (null is passed on for the value check).
  Node require(std::string_view key) const;
  void require_all(std::initializer_list<std::string_view> keys) const {
    for (auto k : keys) require(k);
  }
  std::string at(std::string_view key) const { return join_path(path_, key); }

 private:
  const Validator& v_;
  std::string path_;
  std::vector<std::pair<std::string, Node>> entries_;
};

class Validator {
 public:
  Validator(std::string source, std::vector<AppliedOverride> overrides, MemoryRuntime runtime)
      : source_(std::move(source)), overrides_(std::move(overrides)), runtime_(runtime) {}

  ConfigParams run(const Node& root);

  // One line: "<source>: <path>: <msg>", where <source> is the override that
  // created or changed `path` (or one of `related`), else the file.
  [[noreturn]] void fail(const std::string& path, const std::string& msg,
                         const std::vector<std::string>& related = {}) const {
    const AppliedOverride* o = override_for(path);
    for (const auto& r : related)
      if (!o) o = override_for(r);
    std::string out = o ? "--set " + o->text : source_;
    out += ": ";
    if (!path.empty()) out += path + ": ";
    throw ConfigError(out + msg);
  }
  [[noreturn]] void fail_value(const std::string& path, const Node& n, const std::string& rule,
                               const std::vector<std::string>& related = {}) const {
    fail(path, yaml_show(n) + ": " + rule, related);
  }
  [[noreturn]] void fail_type(const std::string& path, const Node& n,
                              const std::string& expected) const {
    std::string exp = expected + (path.empty() ? " at the top level" : "");
    if (n.IsScalar()) fail(path, yaml_show(n) + ": expected " + exp);
    fail(path, "expected " + exp + ", found " + yaml_kind(n));
  }

  // Every key and scalar below `n` is UTF-8 text (utf8_error_at).
  void check_utf8(const Node& n, const std::string& path) const {
    auto check = [&](const std::string& text, const std::string& where, const char* what) {
      const size_t at = utf8_error_at(text);
      if (at == std::string::npos) return;
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[at]));
      fail(where, std::string(what) + " is not UTF-8 text (byte " + byte + " at offset " +
                      std::to_string(at) + "): a config is UTF-8");
    };
    if (n.IsScalar()) {
      check(n.Scalar(), path, "the value");
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) check_utf8(n[i], index_path(path, i));
    } else if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) {
          check_utf8(it->first, path);
          check_utf8(it->second, path);
          continue;
        }
        check(it->first.Scalar(), path, "a key");
        check_utf8(it->second, join_path(path, it->first.Scalar()));
      }
    }
  }

  void expect_map(const Node& n, const std::string& path) const {
    if (!n.IsMap()) fail_type(path, n, "a map");
  }
  void expect_list(const Node& n, const std::string& path) const {
    if (!n.IsSequence()) fail_type(path, n, "a list");
  }

  // Calls fn(key, value, entry_path) for each entry of a map with free-form
  // keys (group names, DSCP values…), rejecting non-scalar or repeated keys.
  template <typename Fn>
  void for_each_entry(const Node& n, const std::string& path, Fn fn) const {
    expect_map(n, path);
    if (auto problem = check_map_keys(n, path)) fail(problem->path, problem->rule);
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string& key = it->first.Scalar();
      fn(key, it->second, join_path(path, key));
    }
  }

  const std::string& scalar(const Node& n, const std::string& path, const char* expected) const {
    if (!n.IsScalar()) fail_type(path, n, expected);
    return n.Scalar();
  }

  std::string get_string(const Node& n, const std::string& path) const {
    return scalar(n, path, "a string");
  }

  std::string get_name(const Node& n, const std::string& path, const char* what) const {
    std::string s = get_string(n, path);
    if (!is_valid_name(s)) fail_value(path, n, std::string(what) + " " + kNameRule);
    return s;
  }

  bool get_bool(const Node& n, const std::string& path) const {
    const std::string& s = scalar(n, path, "true or false");
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    fail_value(path, n, "must be true or false");
  }

  uint64_t get_uint(const Node& n, const std::string& path, uint64_t lo, uint64_t hi,
                    std::string_view what) const {
    IntText t = parse_int_text(scalar(n, path, "an integer"));
    if (!t.ok) fail_value(path, n, std::string(what) + " must be an integer " + range_text(lo, hi));
    if ((t.negative && t.value != 0) || t.overflow || t.value < lo || t.value > hi)
      fail_value(path, n, std::string(what) + " must be " + range_text(lo, hi));
    return t.value;
  }

  int64_t get_int(const Node& n, const std::string& path, int64_t lo, int64_t hi,
                  std::string_view what) const {
    const std::string rule =
        std::string(what) + " must be " + std::to_string(lo) + ".." + std::to_string(hi);
    IntText t = parse_int_text(scalar(n, path, "an integer"));
    if (!t.ok)
      fail_value(path, n,
                 std::string(what) + " must be an integer " + std::to_string(lo) + ".." +
                     std::to_string(hi));
    if (t.overflow || t.value > uint64_t(INT64_MAX)) fail_value(path, n, rule);
    const int64_t v = t.negative ? -int64_t(t.value) : int64_t(t.value);
    if (v < lo || v > hi) fail_value(path, n, rule);
    return v;
  }

  // A map key that must be an integer in lo..hi; the error names the entry.
  uint64_t key_uint(const std::string& key, const std::string& entry_path, uint64_t lo, uint64_t hi,
                    std::string_view what) const {
    IntText t = parse_int_text(key);
    if (!t.ok) fail(entry_path, std::string(what) + " must be an integer " + range_text(lo, hi));
    if ((t.negative && t.value != 0) || t.overflow || t.value < lo || t.value > hi)
      fail(entry_path, std::string(what) + " must be " + range_text(lo, hi));
    return t.value;
  }

  uint8_t get_tc(const Node& n, const std::string& path) const {
    return static_cast<uint8_t>(get_uint(n, path, 0, kNumTrafficClasses - 1, "traffic class"));
  }

  MacAddr get_mac(const Node& n, const std::string& path) const {
    MacAddr m;
    if (!parse_mac(scalar(n, path, "a MAC address"), m))
      fail_value(path, n, "not a MAC address (expected 6 hex pairs, e.g. 02:00:00:00:00:01)");
    if (m.is_zero()) fail_value(path, n, "MAC must not be all-zero");
    if (m.is_multicast()) fail_value(path, n, "MAC must be unicast (the multicast bit is set)");
    return m;
  }

  IpAddr get_ip(const Node& n, const std::string& path) const {
    IpAddr a;
    if (!parse_ip(scalar(n, path, "an IP address"), a)) fail_value(path, n, "not an IP address");
    return a;
  }

  IpPrefix get_prefix(const Node& n, const std::string& path) const {
    IpPrefix p;
    std::string why;
    if (!parse_prefix(scalar(n, path, "an IP prefix"), p, &why)) fail_value(path, n, why);
    return p;
  }

  uint64_t get_bytes(const Node& n, const std::string& path) const {
    uint64_t v;
    std::string why;
    if (!parse_bytes(scalar(n, path, "a byte size"), v, &why)) fail_value(path, n, why);
    return v;
  }

  uint64_t get_duration(const Node& n, const std::string& path, uint64_t lo, uint64_t hi,
                        std::string_view what) const {
    uint64_t v;
    std::string why;
    if (!parse_duration_ns(scalar(n, path, "a duration"), v, &why)) fail_value(path, n, why);
    if (v < lo || v > hi)
      fail_value(path, n, std::string(what) + " must be " + format_ns(lo) + " .. " + format_ns(hi));
    return v;
  }

  uint64_t get_seed(const Node& n, const std::string& path) const {
    IntText t = parse_int_text(scalar(n, path, "an integer"));
    if (!t.ok || t.negative || t.overflow)
      fail_value(path, n, "seed must be an unsigned 64-bit integer (decimal or 0x hex)");
    return t.value;
  }

  uint64_t get_queue_limit(const Node& n, const std::string& path) const {
    uint64_t v = get_bytes(n, path);
    if (v < kMinQueueLimitBytes || v > kMaxQueueLimitBytes)
      fail_value(path, n, "queue limit must be 64 B .. 1 GB");
    return v;
  }

 private:
  const AppliedOverride* override_for(const std::string& path) const {
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it)
      if (path_within(path, it->touched)) return &*it;
    return nullptr;
  }

  void parse_switch(const Node& n, SwitchParams& out) const;
  void parse_control(const Node& n, ControlParams& out) const;
  void parse_limits(const Node& n, LimitsParams& out) const;
  void check_memory(const ConfigParams& cfg) const;
  void parse_ports(const Node& n, ConfigParams& cfg);
  PortParams parse_port(const Node& n, const std::string& path) const;
  IpPrefix get_interface_prefix(const Node& n, const std::string& path, int family) const;
  SchedulerParams parse_scheduler(const Node& n, const std::string& path) const;
  void parse_neighbors(const Node& n, ConfigParams& cfg) const;
  void parse_groups(const Node& n, ConfigParams& cfg) const;
  GroupParams parse_group(const Node& n, const std::string& path, const ConfigParams& cfg) const;
  void parse_group_knobs(const Fields& f, GroupParams& g) const;
  QualityKnobs parse_quality(const Node& n, const std::string& path) const;
  DrillKnobs parse_drill(const Node& n, const std::string& path) const;
  void parse_routes(const Node& n, ConfigParams& cfg) const;
  void parse_qos(const Node& n, QosParams& out) const;
  uint8_t parse_pfc_enable(const Node& n, const std::string& path) const;
  void parse_pfc(const Node& n, const std::string& path, PfcParams& p) const;
  void parse_buffer(const Node& n, const std::string& path, PfcParams& p) const;
  void parse_wred(const Node& n, const std::string& path, const std::string& enable_path,
                  LosslessParams& l) const;
  WatchdogParams parse_watchdog(const Node& n, const std::string& path) const;

  // Where each port came from in the file, by id (ports are sorted later).
  std::string port_path(uint16_t id) const { return port_paths_.at(id); }

  std::string source_;
  std::vector<AppliedOverride> overrides_;
  MemoryRuntime runtime_;
  std::map<uint16_t, std::string> port_paths_;
};

Fields::Fields(const Validator& v, const Node& node, std::string path,
               std::vector<std::string_view> known)
    : v_(v), path_(std::move(path)) {
  v.expect_map(node, path_);
  // The rule of every rocelb YAML file (yaml_util.h): known keys, none twice.
  if (auto problem = check_map_keys(node, path_, known)) v.fail(problem->path, problem->rule);
  for (auto it = node.begin(); it != node.end(); ++it)
    entries_.emplace_back(it->first.Scalar(), it->second);
}

Node Fields::require(std::string_view key) const {
  for (const auto& [name, value] : entries_)
    if (name == key) return value;
  v_.fail(path_, "missing required key " + quote(key));
}

ConfigParams Validator::run(const Node& root) {
  ConfigParams cfg;
  cfg.source = source_;
  for (const AppliedOverride& o : overrides_) cfg.set_by.emplace_back(o.touched, o.text);
  // An empty document is an empty map: it then lacks "ports".
  Node top = root.IsNull() ? Node(YAML::NodeType::Map) : root;
  check_utf8(top, "");
  Fields f(*this, top, "",
           {"switch", "control", "limits", "ports", "neighbors", "groups", "routes", "qos"});
  f.require_all({"ports"});
  if (auto n = f.get("switch")) parse_switch(*n, cfg.sw);
  if (auto n = f.get("control")) parse_control(*n, cfg.control);
  if (auto n = f.get("limits")) parse_limits(*n, cfg.limits);
  parse_ports(f.require("ports"), cfg);
  if (auto n = f.get("neighbors")) parse_neighbors(*n, cfg);
  if (auto n = f.get("groups")) parse_groups(*n, cfg);
  if (auto n = f.get("routes")) parse_routes(*n, cfg);
  // No qos section: every default, exactly as an empty one.
  parse_qos(f.get("qos").value_or(Node(YAML::NodeType::Map)), cfg.qos);
  std::sort(cfg.ports.begin(), cfg.ports.end(),
            [](const PortParams& a, const PortParams& b) { return a.id < b.id; });
  std::sort(cfg.groups.begin(), cfg.groups.end(),
            [](const GroupParams& a, const GroupParams& b) { return a.name < b.name; });
  check_memory(cfg);
  return cfg;
}

void Validator::parse_limits(const Node& n, LimitsParams& out) const {
  Fields f(*this, n, "limits", {"max_memory"});
  if (auto v = f.get("max_memory")) {
    out.max_memory_bytes = get_bytes(*v, f.at("max_memory"));
    if (out.max_memory_bytes < kMinMaxMemoryBytes || out.max_memory_bytes > kMaxMaxMemoryBytes)
      fail_value(f.at("max_memory"), *v, "max_memory must be 1MB .. 1PB");
  }
}

// The whole config's memory (memory_estimate.h) against limits.max_memory,
// blaming the key that asks the most.
void Validator::check_memory(const ConfigParams& cfg) const {
  const MemoryEstimate e = estimate_memory(cfg, runtime_);
  if (auto r = memory_refusal(e, cfg.limits.max_memory_bytes))
    fail(r->path, r->message, {"limits.max_memory"});
}

void Validator::parse_switch(const Node& n, SwitchParams& out) const {
  Fields f(*this, n, "switch", {"name", "hash_seed"});
  if (auto v = f.get("name")) out.name = get_name(*v, f.at("name"), "switch name");
  if (auto v = f.get("hash_seed")) {
    IntText t = parse_int_text(scalar(*v, f.at("hash_seed"), "an integer"));
    if (!t.ok || t.negative || t.overflow)
      fail_value(f.at("hash_seed"), *v,
                 "hash seed must be an unsigned 64-bit integer (decimal or 0x hex)");
    out.hash_seed = t.value;
  }
}

void Validator::parse_control(const Node& n, ControlParams& out) const {
  Fields f(
      *this, n, "control",
      {"socket", "group", "max_clients", "max_clients_per_uid", "client_timeout", "idle_timeout"});
  if (auto v = f.get("socket")) {
    out.socket = get_string(*v, f.at("socket"));
    // sockaddr_un holds 108 bytes with the terminating NUL.
    if (out.socket.empty() || out.socket.size() > 107 || out.socket[0] != '/')
      fail_value(f.at("socket"), *v, "must be an absolute path of at most 107 bytes");
  }
  if (auto v = f.get("group")) {
    out.group = get_string(*v, f.at("group"));
    if (out.group.empty() || out.group.find_first_of(" :/\t") != std::string::npos)
      fail_value(f.at("group"), *v, "must be a group name");
  }
  if (auto v = f.get("max_clients"))
    out.max_clients =
        static_cast<uint32_t>(get_uint(*v, f.at("max_clients"), 1, 1024, "number of clients"));
  // Unset, one uid gets all slots but one: a user's leaked connections
  // always leave room for someone else (root, an operator).
  out.max_clients_per_uid = std::max<uint32_t>(1, out.max_clients - 1);
  if (auto v = f.get("max_clients_per_uid")) {
    out.max_clients_per_uid = static_cast<uint32_t>(
        get_uint(*v, f.at("max_clients_per_uid"), 1, 1024, "clients of one uid"));
    if (out.max_clients_per_uid > out.max_clients)
      fail_value(f.at("max_clients_per_uid"), *v,
                 "must be at most control.max_clients (" + std::to_string(out.max_clients) + ")");
  }
  if (auto v = f.get("client_timeout"))
    out.client_timeout_ns =
        get_duration(*v, f.at("client_timeout"), 1'000'000, 3'600'000'000'000ull, "client timeout");
  if (auto v = f.get("idle_timeout"))
    out.idle_timeout_ns =
        get_duration(*v, f.at("idle_timeout"), 1'000'000, 3'600'000'000'000ull, "idle timeout");
}

IpPrefix Validator::get_interface_prefix(const Node& n, const std::string& path, int family) const {
  IpPrefix p = get_prefix(n, path);
  unsigned max_len = family == 4 ? 32 : 128;
  if (p.addr.family != family)
    fail_value(path, n, family == 4 ? "must be an IPv4 address" : "must be an IPv6 address");
  if (p.len < 1) fail_value(path, n, "prefix length must be 1.." + std::to_string(max_len));
  if (family == 4 && p.len <= 30) {
    if (host_bits_all(p, false))
      fail_value(path, n, "interface address must not be the network address of its subnet");
    if (host_bits_all(p, true))
      fail_value(path, n, "interface address must not be the broadcast address of its subnet");
  }
  return p;
}

PortParams Validator::parse_port(const Node& n, const std::string& path) const {
  Fields f(*this, n, path,
           {"id", "name", "speed", "mac", "ipv4", "ipv6", "device", "promiscuous", "admin_status",
            "mtu", "scheduler", "xdp_steering", "link_detect"});
  f.require_all({"id", "speed", "mac"});
  PortParams p;
  p.id = static_cast<uint16_t>(get_uint(f.require("id"), f.at("id"), 0, kMaxPorts - 1, "port id"));
  p.name = "port" + std::to_string(p.id);
  if (auto v = f.get("name")) p.name = get_name(*v, f.at("name"), "port name");

  Node speed = f.require("speed");
  std::string why;
  if (!parse_speed_bps(scalar(speed, f.at("speed"), "a speed"), p.speed_bps, &why))
    fail_value(f.at("speed"), speed, why);
  if (p.speed_bps < kMinSpeedBps || p.speed_bps > kMaxSpeedBps)
    fail_value(f.at("speed"), speed, "speed must be 1 Mb/s .. 1.6 Tb/s");

  p.mac = get_mac(f.require("mac"), f.at("mac"));
  if (auto v = f.get("ipv4")) p.ipv4 = get_interface_prefix(*v, f.at("ipv4"), 4);
  if (auto v = f.get("ipv6")) p.ipv6 = get_interface_prefix(*v, f.at("ipv6"), 6);
  if (auto v = f.get("device")) p.device = get_string(*v, f.at("device"));
  if (auto v = f.get("promiscuous")) p.promiscuous = get_bool(*v, f.at("promiscuous"));
  if (auto v = f.get("admin_status")) {
    const std::string& s = scalar(*v, f.at("admin_status"), "up or down");
    if (s != "up" && s != "down") fail_value(f.at("admin_status"), *v, "must be up or down");
    p.admin_up = s == "up";
  }
  if (auto v = f.get("mtu")) {
    p.mtu = static_cast<uint32_t>(get_uint(*v, f.at("mtu"), kMinMtu, kMaxMtu, "mtu"));
    if (p.ipv6 && p.mtu < kMinIpv6Mtu)
      fail_value(f.at("mtu"), *v,
                 "mtu must be at least 1280 on a port with an IPv6 address (RFC 8200)");
  }
  if (auto v = f.get("scheduler")) p.scheduler = parse_scheduler(*v, f.at("scheduler"));
  if (auto v = f.get("xdp_steering")) {
    const std::string& s = scalar(*v, f.at("xdp_steering"), "roce, all or off");
    if (s == "roce")
      p.xdp_steering = XdpSteeringMode::kRoce;
    else if (s == "all")
      p.xdp_steering = XdpSteeringMode::kAll;
    else if (s != "off")
      fail_value(f.at("xdp_steering"), *v, "must be roce, all or off");
    if (p.xdp_steering != XdpSteeringMode::kOff &&
        (!is_af_xdp_device(p.device) || p.device.find("iface=") == std::string::npos))
      fail_value(f.at("xdp_steering"), *v,
                 "needs an AF_XDP device (ports[].device: \"net_af_xdpN,iface=IF\")");
  }
  if (auto v = f.get("link_detect")) {
    const std::string& s = scalar(*v, f.at("link_detect"), "auto, on or off");
    if (s == "on")
      p.link_detect = LinkDetect::kOn;
    else if (s == "off")
      p.link_detect = LinkDetect::kOff;
    else if (s != "auto")
      fail_value(f.at("link_detect"), *v, "must be auto, on or off");
  }
  return p;
}

void Validator::parse_ports(const Node& n, ConfigParams& cfg) {
  if (!n.IsSequence()) fail_type("ports", n, "a non-empty list");
  if (n.size() == 0) fail("ports", "must list at least one port");
  if (n.size() > size_t(kMaxPorts))
    fail("ports", "at most " + std::to_string(kMaxPorts) + " ports (found " +
                      std::to_string(n.size()) + ")");
  for (size_t i = 0; i < n.size(); ++i) {
    std::string path = index_path("ports", i);
    PortParams p = parse_port(n[i], path);
    for (size_t j = 0; j < cfg.ports.size(); ++j) {
      const PortParams& q = cfg.ports[j];
      std::string qpath = index_path("ports", j);
      const Node mine = n[i];
      if (q.id == p.id)
        fail_value(path + ".id", mine["id"], "duplicate port id (also " + qpath + ")",
                   {qpath + ".id"});
      if (q.name == p.name)
        fail(path + ".name", quote(p.name) + ": duplicate port name (also " + qpath + ")",
             {qpath + ".name", qpath});
      if (q.mac == p.mac)
        fail_value(path + ".mac", mine["mac"], "duplicate MAC (also " + qpath + ")",
                   {qpath + ".mac"});
      if (!p.device.empty() && !q.device.empty()) {
        const std::string why = same_device(p.device, q.device);
        if (!why.empty())
          fail_value(path + ".device", mine["device"], "the same " + why + " as " + qpath,
                     {qpath + ".device"});
      }
      if (p.ipv4 && q.ipv4 && overlaps(*p.ipv4, *q.ipv4))
        fail_value(path + ".ipv4", mine["ipv4"],
                   "subnet overlaps port " + std::to_string(q.id) + " (" + to_string(*q.ipv4) + ")",
                   {qpath + ".ipv4"});
      if (p.ipv6 && q.ipv6 && overlaps(*p.ipv6, *q.ipv6))
        fail_value(path + ".ipv6", mine["ipv6"],
                   "subnet overlaps port " + std::to_string(q.id) + " (" + to_string(*q.ipv6) + ")",
                   {qpath + ".ipv6"});
    }
    port_paths_[p.id] = path;
    cfg.ports.push_back(std::move(p));
  }
}

SchedulerParams Validator::parse_scheduler(const Node& n, const std::string& path) const {
  Fields f(*this, n, path, {"strict", "weights"});
  SchedulerParams s;
  std::string strict_path = f.at("strict");
  std::array<size_t, kNumTrafficClasses> strict_index{};
  if (auto v = f.get("strict")) {
    expect_list(*v, strict_path);
    for (size_t i = 0; i < v->size(); ++i) {
      std::string p = index_path(strict_path, i);
      uint8_t tc = get_tc((*v)[i], p);
      if (s.strict[tc])
        fail_value(p, (*v)[i],
                   "duplicate traffic class (also " + index_path("strict", strict_index[tc]) + ")");
      s.strict[tc] = true;
      strict_index[tc] = i;
    }
  }
  if (auto v = f.get("weights")) {
    std::array<bool, kNumTrafficClasses> seen{};
    for_each_entry(*v, f.at("weights"),
                   [&](const std::string& key, const Node& value, const std::string& entry) {
                     auto tc = key_uint(key, entry, 0, kNumTrafficClasses - 1, "traffic class");
                     if (seen[tc]) fail(entry, "duplicate traffic class");
                     seen[tc] = true;
                     if (s.strict[tc])
                       fail(entry,
                            "traffic class " + std::to_string(tc) +
                                " is strict priority and cannot also have a weight",
                            {strict_path});
                     s.weight[tc] =
                         static_cast<uint32_t>(get_uint(value, entry, 1, kMaxWeight, "weight"));
                   });
  }
  return s;
}

void Validator::parse_neighbors(const Node& n, ConfigParams& cfg) const {
  expect_list(n, "neighbors");
  for (size_t i = 0; i < n.size(); ++i) {
    std::string path = index_path("neighbors", i);
    Fields f(*this, n[i], path, {"ip", "mac", "port"});
    f.require_all({"ip", "mac", "port"});
    NeighborParams nb;
    Node ip_node = f.require("ip");
    nb.ip = get_ip(ip_node, f.at("ip"));
    for (size_t j = 0; j < cfg.neighbors.size(); ++j)
      if (cfg.neighbors[j].ip == nb.ip)
        fail_value(f.at("ip"), ip_node,
                   "duplicate neighbor (also " + index_path("neighbors", j) + ")",
                   {index_path("neighbors", j) + ".ip"});
    nb.mac = get_mac(f.require("mac"), f.at("mac"));
    Node port_node = f.require("port");
    nb.port = static_cast<uint16_t>(get_uint(port_node, f.at("port"), 0, kMaxPorts - 1, "port id"));
    const PortParams* port = cfg.find_port(nb.port);
    if (!port) fail_value(f.at("port"), port_node, "not a configured port");

    const std::string pid = std::to_string(port->id);
    const char* fam = nb.ip.is_v4() ? "ipv4" : "ipv6";
    const std::optional<IpPrefix>& subnet = nb.ip.is_v4() ? port->ipv4 : port->ipv6;
    std::string subnet_path = join_path(port_path(port->id), fam);
    if (!subnet)
      fail_value(f.at("ip"), ip_node, "port " + pid + " has no " + fam + " address",
                 {subnet_path, f.at("port")});
    if (!subnet->contains(nb.ip))
      fail_value(f.at("ip"), ip_node,
                 "not in the subnet of port " + pid + " (" + to_string(*subnet) + ")",
                 {subnet_path, f.at("port")});
    for (const PortParams& q : cfg.ports) {
      const std::optional<IpPrefix>& a = nb.ip.is_v4() ? q.ipv4 : q.ipv6;
      if (a && a->addr == nb.ip)
        fail_value(f.at("ip"), ip_node,
                   "is the interface address of port " + std::to_string(q.id) + " itself",
                   {join_path(port_path(q.id), fam)});
    }
    cfg.neighbors.push_back(nb);
  }
}

GroupParams Validator::parse_group(const Node& n, const std::string& path,
                                   const ConfigParams& cfg) const {
  Fields f(*this, n, path,
           {"mode", "members", "hash_fields", "idle_time", "sampling_interval", "max_flows",
            "buckets", "quality", "drill", "seed", "bpf"});
  f.require_all({"members"});
  GroupParams g;
  if (auto v = f.get("mode")) {
    auto mode = lb_mode_from_string(scalar(*v, f.at("mode"), "a mode name"));
    if (!mode) {
      std::vector<std::string_view> names(std::begin(kLbModeNames), std::end(kLbModeNames));
      fail_value(f.at("mode"), *v, "unknown mode (allowed: " + join_names(names) + ")");
    }
    g.mode = *mode;
  }

  Node members = f.require("members");
  std::string mpath = f.at("members");
  if (!members.IsSequence()) fail_type(mpath, members, "a non-empty list");
  if (members.size() == 0) fail(mpath, "must list at least one member");
  if (members.size() > kMaxGroupMembers)
    fail(mpath, "at most " + std::to_string(kMaxGroupMembers) + " members (found " +
                    std::to_string(members.size()) + ")");
  for (size_t i = 0; i < members.size(); ++i) {
    std::string ipath = index_path(mpath, i);
    Node m = members[i];
    GroupMemberParams gm;
    Node via;
    std::string via_path = ipath;
    if (m.IsScalar()) {
      via.reset(m);
    } else if (m.IsMap()) {
      Fields mf(*this, m, ipath, {"via", "weight"});
      mf.require_all({"via"});
      via.reset(mf.require("via"));
      via_path = mf.at("via");
      if (auto w = mf.get("weight"))
        gm.weight =
            static_cast<uint32_t>(get_uint(*w, mf.at("weight"), 1, kMaxMemberWeight, "weight"));
    } else {
      fail_type(ipath, m, "a neighbor IP or a map {via, weight}");
    }
    gm.via = get_ip(via, via_path);
    if (!cfg.find_neighbor(gm.via)) fail_value(via_path, via, "not a configured neighbor");
    for (size_t j = 0; j < g.members.size(); ++j)
      if (g.members[j].via == gm.via)
        fail_value(via_path, via, "duplicate member (also " + index_path("members", j) + ")",
                   {index_path(mpath, j)});
    g.members.push_back(gm);
  }

  if (auto v = f.get("hash_fields")) {
    std::string hpath = f.at("hash_fields");
    expect_list(*v, hpath);
    if (v->size() == 0) fail(hpath, "must list at least one field");
    std::vector<std::string_view> allowed;
    for (const auto& h : kHashFieldNames) allowed.push_back(h.name);
    g.hash_fields = 0;
    std::vector<std::string> seen;
    for (size_t i = 0; i < v->size(); ++i) {
      std::string p = index_path(hpath, i);
      Node item = (*v)[i];
      std::string name = scalar(item, p, "a hash field name");
      auto it = std::find_if(std::begin(kHashFieldNames), std::end(kHashFieldNames),
                             [&](const HashFieldName& h) { return h.name == name; });
      if (it == std::end(kHashFieldNames))
        fail_value(p, item, "unknown hash field (allowed: " + join_names(allowed) + ")");
      auto dup = std::find(seen.begin(), seen.end(), name);
      if (dup != seen.end())
        fail_value(p, item,
                   "duplicate hash field (also " +
                       index_path("hash_fields", size_t(dup - seen.begin())) + ")");
      seen.push_back(name);
      g.hash_fields |= it->field;
    }
  }
  parse_group_knobs(f, g);
  if (auto v = f.get("bpf")) {
    Fields b(*this, *v, f.at("bpf"), {"program", "section", "jit", "validation_steps"});
    if (auto p = b.get("program")) g.bpf.program = get_string(*p, b.at("program"));
    if (auto s = b.get("section")) g.bpf.section = get_string(*s, b.at("section"));
    if (auto j = b.get("jit")) g.bpf.jit = get_bool(*j, b.at("jit"));
    if (auto n = b.get("validation_steps"))
      g.bpf.validation_steps =
          get_uint(*n, b.at("validation_steps"), 1, kMaxBpfValidationSteps, "validator steps");
    if (g.mode == LbMode::kBpf && g.bpf.program.empty())
      fail(b.at("program"), "missing: mode bpf needs the policy's ELF file", {f.at("mode")});
  }
  if (g.mode == LbMode::kBpf) {
    if (!f.get("bpf"))
      fail(path + ".bpf.program", "missing: mode bpf needs the policy's ELF file", {f.at("mode")});
    if (g.members.size() > kMaxBpfMembers)
      fail(f.at("members"),
           "mode bpf takes at most " + std::to_string(kMaxBpfMembers) +
               " members (lb/bpf/rocelb_policy.h)",
           {f.at("mode")});
  }
  return g;
}

void Validator::parse_group_knobs(const Fields& f, GroupParams& g) const {
  LbKnobs& k = g.knobs;
  if (auto v = f.get("idle_time"))
    k.idle_time_ns =
        get_duration(*v, f.at("idle_time"), kMinIdleTimeNs, kMaxIdleTimeNs, "idle time");
  if (auto v = f.get("sampling_interval"))
    k.sampling_interval_ns = get_duration(*v, f.at("sampling_interval"), kMinSamplingIntervalNs,
                                          kMaxSamplingIntervalNs, "sampling interval");
  if (auto v = f.get("max_flows")) {
    const std::string rule = "max_flows must be a power of two " +
                             range_text(kMinMaxFlows, kMaxMaxFlows) + " (flowlet table entries)";
    IntText t = parse_int_text(scalar(*v, f.at("max_flows"), "an integer"));
    if (!t.ok || t.negative || t.overflow || t.value < kMinMaxFlows || t.value > kMaxMaxFlows ||
        !is_power_of_two(t.value))
      fail_value(f.at("max_flows"), *v, rule);
    k.max_flows = static_cast<uint32_t>(t.value);
  }
  if (auto v = f.get("buckets")) {
    const std::string rule =
        "buckets must be a power of two " + range_text(kMinBuckets, kMaxBuckets);
    IntText t = parse_int_text(scalar(*v, f.at("buckets"), "an integer"));
    if (!t.ok || t.negative || t.overflow || t.value < kMinBuckets || t.value > kMaxBuckets ||
        !is_power_of_two(t.value))
      fail_value(f.at("buckets"), *v, rule);
    k.buckets = static_cast<uint32_t>(t.value);
  }
  if (auto v = f.get("quality")) k.quality = parse_quality(*v, f.at("quality"));
  if (auto v = f.get("drill")) k.drill = parse_drill(*v, f.at("drill"));
  if (auto v = f.get("seed")) k.seed = get_seed(*v, f.at("seed"));

  // Rules that tie a knob to the mode (a knob of another mode is accepted).
  if (auto v = f.get("buckets")) {
    const std::string mode = std::string(to_string(g.mode));
    if (g.mode == LbMode::kResilient && k.buckets > kMaxResilientBuckets)
      fail_value(
          f.at("buckets"), *v,
          "resilient hashing takes " + range_text(kMinBuckets, kMaxResilientBuckets) + " buckets",
          {f.at("mode")});
    if (uses_buckets(g.mode) && k.buckets < g.members.size())
      fail_value(f.at("buckets"), *v,
                 mode + " needs at least as many buckets as members (" +
                     std::to_string(g.members.size()) + ")",
                 {f.at("mode"), f.at("members")});
  }
}

// A number in (0, 1] written as a decimal ("0.25", "1", ".5"), rounded to
// 1/65536. False if it is not such a number or rounds to 0.
bool parse_unit_fraction_q16(std::string_view s, uint32_t& out) {
  uint64_t whole = 0, num = 0, den = 1;
  size_t i = 0;
  bool digits = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (whole > 1) return false;
    whole = whole * 10 + uint64_t(s[i] - '0');
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (den >= 1'000'000'000) return false;
      num = num * 10 + uint64_t(s[i] - '0');
      den *= 10;
      digits = true;
    }
  }
  if (!digits || i != s.size() || whole > 1 || (whole == 1 && num != 0)) return false;
  num += whole * den;
  const uint64_t q = (num * 65536 + den / 2) / den;
  if (q == 0) return false;
  out = static_cast<uint32_t>(q);
  return true;
}

QualityKnobs Validator::parse_quality(const Node& n, const std::string& path) const {
  Fields f(*this, n, path,
           {"load_weight", "queue_weight", "load_thresholds", "queue_thresholds", "depth",
            "load_alpha"});
  QualityKnobs q;
  auto lw = f.get("load_weight");
  auto qw = f.get("queue_weight");
  if (lw)
    q.load_weight = static_cast<uint32_t>(get_uint(*lw, f.at("load_weight"), 0, 100, "weight"));
  if (qw)
    q.queue_weight = static_cast<uint32_t>(get_uint(*qw, f.at("queue_weight"), 0, 100, "weight"));
  if (lw && !qw) q.queue_weight = 100 - q.load_weight;
  if (qw && !lw) q.load_weight = 100 - q.queue_weight;
  if (lw && qw && q.load_weight + q.queue_weight != 100)
    fail(path,
         "load_weight + queue_weight must be 100 (found " + std::to_string(q.load_weight) + " + " +
             std::to_string(q.queue_weight) + ")",
         {f.at("load_weight"), f.at("queue_weight")});

  // Seven thresholds, strictly increasing; get(item, item_path) reads one.
  auto thresholds = [&](const char* key, auto& out, auto get) {
    auto v = f.get(key);
    if (!v) return;
    const std::string tpath = f.at(key);
    expect_list(*v, tpath);
    if (v->size() != size_t(kQualityThresholds))
      fail(tpath, "must list " + std::to_string(kQualityThresholds) +
                      " increasing thresholds (found " + std::to_string(v->size()) + ")");
    for (size_t i = 0; i < v->size(); ++i) {
      const std::string ipath = index_path(tpath, i);
      const Node item = (*v)[i];
      out[i] = get(item, ipath);
      if (i > 0 && out[i] <= out[i - 1])
        fail_value(ipath, item,
                   "thresholds must increase (" + index_path(key, i - 1) + " is " +
                       yaml_show((*v)[i - 1]) + ")");
    }
  };
  thresholds("queue_thresholds", q.queue_thresholds, [&](const Node& item, const std::string& p) {
    const uint64_t b = get_bytes(item, p);
    if (b < 1 || b > kMaxQueueLimitBytes) fail_value(p, item, "threshold must be 1 B .. 1 GB");
    return b;
  });
  thresholds("load_thresholds", q.load_thresholds, [&](const Node& item, const std::string& p) {
    return static_cast<uint32_t>(get_uint(item, p, 1, 100, "load threshold (percent)"));
  });

  if (auto v = f.get("depth")) {
    const std::string& s = scalar(*v, f.at("depth"), "port or class");
    if (s == "port") {
      q.depth = QueueDepthSource::kPort;
    } else if (s == "class") {
      q.depth = QueueDepthSource::kClass;
    } else {
      fail_value(f.at("depth"), *v, "must be port (whole port) or class (the packet's class)");
    }
  }
  if (auto v = f.get("load_alpha")) {
    if (!parse_unit_fraction_q16(scalar(*v, f.at("load_alpha"), "a number"), q.load_alpha_q16))
      fail_value(f.at("load_alpha"), *v,
                 "load_alpha must be a decimal number in (0, 1] (weight of a new sample), e.g. "
                 "0.25");
  }
  return q;
}

DrillKnobs Validator::parse_drill(const Node& n, const std::string& path) const {
  Fields f(*this, n, path, {"d", "m"});
  DrillKnobs d;
  if (auto v = f.get("d"))
    d.d = static_cast<uint32_t>(get_uint(*v, f.at("d"), 1, kMaxDrillSamples, "d (samples)"));
  if (auto v = f.get("m"))
    d.m = static_cast<uint32_t>(get_uint(*v, f.at("m"), 0, kMaxDrillMemory, "m (remembered)"));
  return d;
}

void Validator::parse_groups(const Node& n, ConfigParams& cfg) const {
  for_each_entry(n, "groups",
                 [&](const std::string& key, const Node& value, const std::string& entry) {
                   if (!is_valid_name(key)) fail(entry, std::string("group name ") + kNameRule);
                   GroupParams g = parse_group(value, entry, cfg);
                   g.name = key;
                   cfg.groups.push_back(std::move(g));
                 });
  // Every forwarding worker keeps every group's table: bounded in total.
  uint64_t total = 0, biggest = 0;
  const GroupParams* big = nullptr;
  for (const GroupParams& g : cfg.groups) {
    const uint64_t b = group_table_bytes(g.mode, g.knobs);
    total += b;
    if (b > biggest) biggest = b, big = &g;
  }
  if (total > kMaxGroupTableBytes) {
    const std::string key = uses_flowlets(big->mode) ? "max_flows" : "buckets";
    auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
    fail("groups." + big->name + "." + key,
         "the groups' tables need " + mib(total) + " per forwarding worker, more than " +
             mib(kMaxGroupTableBytes) + " (this group: " + mib(biggest) + ")");
  }
}

void Validator::parse_routes(const Node& n, ConfigParams& cfg) const {
  expect_list(n, "routes");
  if (n.size() > kMaxRoutes)
    fail("routes", "at most " + std::to_string(kMaxRoutes) + " routes (found " +
                       std::to_string(n.size()) + ")");
  // Prefix (16 address bytes, length, family) → its index, for the duplicate rule
  // in one pass over a full routing table.
  std::unordered_map<std::string, size_t> seen;
  seen.reserve(n.size());
  for (size_t i = 0; i < n.size(); ++i) {
    std::string path = index_path("routes", i);
    Fields f(*this, n[i], path, {"prefix", "group", "via", "port"});
    f.require_all({"prefix"});
    RouteParams r;
    Node prefix = f.require("prefix");
    r.prefix = get_prefix(prefix, f.at("prefix"));
    if (!r.prefix.is_canonical())
      fail_value(f.at("prefix"), prefix, "host bits set beyond /" + std::to_string(r.prefix.len));
    std::string key(reinterpret_cast<const char*>(r.prefix.addr.b.data()), r.prefix.addr.b.size());
    key.push_back(static_cast<char>(r.prefix.len));
    key.push_back(static_cast<char>(r.prefix.addr.family));
    if (auto [it, fresh] = seen.emplace(std::move(key), i); !fresh)
      fail_value(f.at("prefix"), prefix,
                 "duplicate prefix (also " + index_path("routes", it->second) + ")",
                 {index_path("routes", it->second) + ".prefix"});

    std::vector<std::string_view> targets;
    for (std::string_view k : {"group", "via", "port"})
      if (f.get(k)) targets.push_back(k);
    if (targets.size() != 1) {
      std::string found = "none";
      if (!targets.empty()) {
        found = std::string(targets[0]);
        for (size_t t = 1; t < targets.size(); ++t)
          found += (t + 1 == targets.size() ? " and " : ", ") + std::string(targets[t]);
      }
      fail(path, "needs exactly one of group, via, port (found " + found + ")");
    }
    if (auto v = f.get("group")) {
      r.target = RouteTarget::kGroup;
      r.group = get_string(*v, f.at("group"));
      if (!cfg.find_group(r.group)) {
        std::vector<std::string_view> names;
        for (const auto& g : cfg.groups) names.push_back(g.name);
        std::sort(names.begin(), names.end());
        fail_value(f.at("group"), *v,
                   names.empty() ? "no such group (no groups are defined)"
                                 : "no such group (groups: " + join_names(names) + ")");
      }
    } else if (auto v = f.get("via")) {
      r.target = RouteTarget::kVia;
      r.via = get_ip(*v, f.at("via"));
      if (!cfg.find_neighbor(r.via)) fail_value(f.at("via"), *v, "not a configured neighbor");
    } else if (auto v = f.get("port")) {
      r.target = RouteTarget::kPort;
      r.port = static_cast<uint16_t>(get_uint(*v, f.at("port"), 0, kMaxPorts - 1, "port id"));
      if (!cfg.find_port(r.port)) fail_value(f.at("port"), *v, "not a configured port");
    }
    cfg.routes.push_back(std::move(r));
  }
}

void Validator::parse_qos(const Node& n, QosParams& q) const {
  Fields f(*this, n, "qos",
           {"trust", "default_tc", "dscp_to_tc", "pcp_to_tc", "scheduler", "queue_limit",
            "queue_limits", "pfc_enable", "pfc", "buffer", "wred", "ecn_mark", "pfc_watchdog"});
  if (auto v = f.get("trust")) {
    const std::string& s = scalar(*v, f.at("trust"), "dscp or pcp");
    if (s == "dscp") {
      q.trust = Trust::kDscp;
    } else if (s == "pcp") {
      q.trust = Trust::kPcp;
    } else {
      fail_value(f.at("trust"), *v, "must be dscp or pcp");
    }
  }
  if (auto v = f.get("default_tc")) q.default_tc = get_tc(*v, f.at("default_tc"));
  q.dscp_to_tc.fill(q.default_tc);
  q.pcp_to_tc.fill(q.default_tc);
  if (auto v = f.get("dscp_to_tc")) {
    std::array<bool, 64> seen{};
    for_each_entry(*v, f.at("dscp_to_tc"),
                   [&](const std::string& key, const Node& value, const std::string& entry) {
                     auto dscp = key_uint(key, entry, 0, 63, "DSCP");
                     if (seen[dscp]) fail(entry, "duplicate DSCP " + std::to_string(dscp));
                     seen[dscp] = true;
                     q.dscp_to_tc[dscp] = get_tc(value, entry);
                   });
  }
  if (auto v = f.get("pcp_to_tc")) {
    std::array<bool, 8> seen{};
    for_each_entry(*v, f.at("pcp_to_tc"),
                   [&](const std::string& key, const Node& value, const std::string& entry) {
                     auto pcp = key_uint(key, entry, 0, 7, "PCP");
                     if (seen[pcp]) fail(entry, "duplicate PCP " + std::to_string(pcp));
                     seen[pcp] = true;
                     q.pcp_to_tc[pcp] = get_tc(value, entry);
                   });
  }
  if (auto v = f.get("scheduler")) q.scheduler = parse_scheduler(*v, f.at("scheduler"));
  uint64_t limit = kDefaultQueueLimitBytes;
  if (auto v = f.get("queue_limit")) limit = get_queue_limit(*v, f.at("queue_limit"));
  q.queue_limit_bytes.fill(limit);
  if (auto v = f.get("queue_limits")) {
    std::array<bool, kNumTrafficClasses> seen{};
    for_each_entry(*v, f.at("queue_limits"),
                   [&](const std::string& key, const Node& value, const std::string& entry) {
                     auto tc = key_uint(key, entry, 0, kNumTrafficClasses - 1, "traffic class");
                     if (seen[tc]) fail(entry, "duplicate traffic class");
                     seen[tc] = true;
                     q.queue_limit_bytes[tc] = get_queue_limit(value, entry);
                   });
  }

  LosslessParams& l = q.lossless;
  if (auto v = f.get("pfc_enable")) l.pfc.enable_mask = parse_pfc_enable(*v, f.at("pfc_enable"));
  parse_pfc(f.get("pfc").value_or(Node(YAML::NodeType::Map)), f.at("pfc"), l.pfc);
  parse_buffer(f.get("buffer").value_or(Node(YAML::NodeType::Map)), f.at("buffer"), l.pfc);
  if (auto v = f.get("wred")) parse_wred(*v, f.at("wred"), f.at("pfc_enable"), l);
  if (auto v = f.get("ecn_mark")) {
    const std::string& s = scalar(*v, f.at("ecn_mark"), "enqueue or dequeue");
    if (s == "enqueue") {
      l.ecn_mark = EcnMarkPoint::kEnqueue;
    } else if (s == "dequeue") {
      l.ecn_mark = EcnMarkPoint::kDequeue;
    } else {
      fail_value(f.at("ecn_mark"), *v, "must be enqueue or dequeue");
    }
  }
  if (auto v = f.get("pfc_watchdog")) l.watchdog = parse_watchdog(*v, f.at("pfc_watchdog"));
}

uint8_t Validator::parse_pfc_enable(const Node& n, const std::string& path) const {
  expect_list(n, path);
  uint8_t mask = 0;
  std::array<size_t, kPfcPriorities> index{};
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string p = index_path(path, i);
    const auto prio = get_uint(n[i], p, 0, kPfcPriorities - 1, "priority");
    if (mask & (1u << prio))
      fail_value(p, n[i],
                 "duplicate priority (also " + index_path("pfc_enable", index[prio]) + ")");
    mask = static_cast<uint8_t>(mask | (1u << prio));
    index[prio] = i;
  }
  return mask;
}

void Validator::parse_pfc(const Node& n, const std::string& path, PfcParams& p) const {
  Fields f(*this, n, path,
           {"pause_time", "xoff", "xon", "dynamic_th", "xon_offset", "headroom", "cable_length",
            "response_delay"});
  if (auto v = f.get("pause_time"))
    p.pause_quanta = static_cast<uint16_t>(get_uint(*v, f.at("pause_time"), 1, kMaxPauseQuanta,
                                                    "pause time (quanta of 512 bit times)"));

  // Thresholds: static (xoff, xon) or dynamic (dynamic_th, xon_offset).
  std::vector<std::string_view> fixed, dynamic;
  for (std::string_view k : {"xoff", "xon"})
    if (f.get(k)) fixed.push_back(k);
  for (std::string_view k : {"dynamic_th", "xon_offset"})
    if (f.get(k)) dynamic.push_back(k);
  if (!fixed.empty() && !dynamic.empty())
    fail_value(f.at(dynamic[0]), *f.get(dynamic[0]),
               "cannot be combined with " + std::string(fixed[0]) +
                   ": thresholds are either static (xoff, xon) or dynamic (dynamic_th, "
                   "xon_offset)",
               {f.at(fixed[0])});
  if (auto v = f.get("xon_offset"); v && !f.get("dynamic_th"))
    fail_value(f.at("xon_offset"), *v,
               "xon_offset needs dynamic_th (it is the XON hysteresis of dynamic thresholds; "
               "static thresholds use xon)");
  if (auto v = f.get("dynamic_th")) {
    p.dynamic = true;
    p.dynamic_th =
        static_cast<int8_t>(get_int(*v, f.at("dynamic_th"), kMinDynamicTh, kMaxDynamicTh,
                                    "dynamic_th (XOFF at 2^dynamic_th x the free shared buffer)"));
    p.xoff_bytes = 0;
    p.xon_bytes = 0;
    p.xon_offset_bytes = kDefaultXonOffsetBytes;
    if (auto o = f.get("xon_offset")) {
      p.xon_offset_bytes = get_bytes(*o, f.at("xon_offset"));
      if (p.xon_offset_bytes < kMinThresholdBytes || p.xon_offset_bytes > kMaxBufferBytes)
        fail_value(f.at("xon_offset"), *o, "xon_offset must be 64 B .. 1 GB");
    }
  } else {
    p.dynamic = false;
    p.dynamic_th = 0;
    p.xon_offset_bytes = 0;
    p.xoff_bytes = kDefaultXoffBytes;
    p.xon_bytes = kDefaultXonBytes;
    auto xoff = f.get("xoff");
    auto xon = f.get("xon");
    if (xoff) {
      p.xoff_bytes = get_bytes(*xoff, f.at("xoff"));
      if (p.xoff_bytes < kMinThresholdBytes || p.xoff_bytes > kMaxBufferBytes)
        fail_value(f.at("xoff"), *xoff, "xoff must be 64 B .. 1 GB");
    }
    if (xon) {
      p.xon_bytes = get_bytes(*xon, f.at("xon"));
      if (p.xon_bytes >= p.xoff_bytes)
        fail_value(f.at("xon"), *xon,
                   "xon must be below xoff (" + show_bytes(p.xoff_bytes) +
                       (xoff ? "" : ", the default") + ")",
                   {f.at("xoff")});
    } else if (p.xon_bytes >= p.xoff_bytes) {
      fail_value(f.at("xoff"), *xoff,
                 "xoff must be above xon (" + show_bytes(p.xon_bytes) + ", the default; set " +
                     f.at("xon") + " too)");
    }
  }

  if (auto v = f.get("headroom")) {
    const std::string& s = scalar(*v, f.at("headroom"), "auto or a byte size");
    const std::string rule = "headroom must be auto or 64 B .. 1 GB";
    if (s == "auto") {
      p.headroom_bytes = 0;
    } else if (!parse_bytes(s, p.headroom_bytes) || p.headroom_bytes < kMinThresholdBytes ||
               p.headroom_bytes > kMaxBufferBytes) {
      fail_value(f.at("headroom"), *v, rule);
    }
  }
  if (auto v = f.get("cable_length")) {
    uint64_t m;
    std::string why;
    if (!parse_length_m(scalar(*v, f.at("cable_length"), "a length"), m, &why))
      fail_value(f.at("cable_length"), *v, why);
    if (m < kMinCableLengthM || m > kMaxCableLengthM)
      fail_value(f.at("cable_length"), *v, "cable length must be 1m .. 100km");
    p.cable_length_m = static_cast<uint32_t>(m);
  }
  if (auto v = f.get("response_delay"))
    p.response_delay_ns =
        get_duration(*v, f.at("response_delay"), 0, kMaxResponseDelayNs, "response delay");
}

void Validator::parse_buffer(const Node& n, const std::string& path, PfcParams& p) const {
  Fields f(*this, n, path, {"shared_size"});
  p.shared_buffer_bytes = kDefaultSharedBufferBytes;
  if (auto v = f.get("shared_size")) {
    p.shared_buffer_bytes = get_bytes(*v, f.at("shared_size"));
    if (p.shared_buffer_bytes < kMinSharedBufferBytes || p.shared_buffer_bytes > kMaxBufferBytes)
      fail_value(f.at("shared_size"), *v, "shared buffer size must be 64 KB .. 1 GB");
  }
}

void Validator::parse_wred(const Node& n, const std::string& path, const std::string& enable_path,
                           LosslessParams& l) const {
  std::array<bool, kNumTrafficClasses> seen{};
  for_each_entry(n, path, [&](const std::string& key, const Node& value, const std::string& entry) {
    const auto tc = key_uint(key, entry, 0, kNumTrafficClasses - 1, "traffic class");
    if (seen[tc]) fail(entry, "duplicate traffic class");
    seen[tc] = true;
    Fields f(*this, value, entry,
             {"green_min_threshold", "green_max_threshold", "green_drop_probability", "ecn"});
    f.require_all({"green_min_threshold", "green_max_threshold"});
    WredProfile w;
    w.enabled = true;
    const Node min = f.require("green_min_threshold");
    const Node max = f.require("green_max_threshold");
    w.min_bytes = get_bytes(min, f.at("green_min_threshold"));
    if (w.min_bytes > kMaxBufferBytes)
      fail_value(f.at("green_min_threshold"), min, "threshold must be at most 1 GB");
    w.max_bytes = get_bytes(max, f.at("green_max_threshold"));
    if (w.max_bytes > kMaxBufferBytes)
      fail_value(f.at("green_max_threshold"), max, "threshold must be at most 1 GB");
    if (w.max_bytes <= w.min_bytes)
      fail_value(
          f.at("green_max_threshold"), max,
          "green_max_threshold must be above green_min_threshold (" + show_bytes(w.min_bytes) + ")",
          {f.at("green_min_threshold")});
    w.probability_pct = 100;
    if (auto v = f.get("green_drop_probability"))
      w.probability_pct = static_cast<uint32_t>(
          get_uint(*v, f.at("green_drop_probability"), 0, 100, "drop probability (percent)"));
    if (auto v = f.get("ecn")) {
      const std::string& s = scalar(*v, f.at("ecn"), "ecn_all or ecn_none");
      if (s == "ecn_all") {
        w.ecn = EcnMode::kEcnAll;
      } else if (s == "ecn_none") {
        w.ecn = EcnMode::kEcnNone;
        if (l.pfc.enable_mask & (1u << tc))
          fail_value(f.at("ecn"), *v,
                     "class " + std::to_string(tc) +
                         " is lossless (qos.pfc_enable): WRED may mark it (ecn_all) but not drop "
                         "from it (ecn_none)",
                     {enable_path});
      } else {
        fail_value(f.at("ecn"), *v,
                   "must be ecn_all (mark ECN-capable packets CE) or ecn_none (drop, never mark)");
      }
    }
    l.wred[tc] = w;
  });
}

WatchdogParams Validator::parse_watchdog(const Node& n, const std::string& path) const {
  Fields f(*this, n, path,
           {"enabled", "detection_time", "restoration_time", "action", "poll_interval"});
  WatchdogParams w;
  if (auto v = f.get("enabled")) w.enabled = get_bool(*v, f.at("enabled"));
  if (auto v = f.get("detection_time"))
    w.detection_ns = get_duration(*v, f.at("detection_time"), kMinWatchdogTimeNs,
                                  kMaxWatchdogTimeNs, "detection time");
  if (auto v = f.get("restoration_time"))
    w.restoration_ns = get_duration(*v, f.at("restoration_time"), kMinWatchdogTimeNs,
                                    kMaxWatchdogTimeNs, "restoration time");
  if (auto v = f.get("action")) {
    const std::string& s = scalar(*v, f.at("action"), "drop, forward or alert");
    if (s == "drop") {
      w.action = WatchdogAction::kDrop;
    } else if (s == "forward") {
      w.action = WatchdogAction::kForward;
    } else if (s == "alert") {
      w.action = WatchdogAction::kAlert;
    } else {
      fail_value(f.at("action"), *v, "must be drop, forward or alert");
    }
  }
  if (auto v = f.get("poll_interval")) {
    w.poll_interval_ns = get_duration(*v, f.at("poll_interval"), kMinPollIntervalNs,
                                      kMaxPollIntervalNs, "poll interval");
    if (w.poll_interval_ns > w.detection_ns)
      fail_value(f.at("poll_interval"), *v,
                 "poll interval must not exceed detection_time (" + format_ns(w.detection_ns) + ")",
                 {f.at("detection_time")});
    if (w.poll_interval_ns > w.restoration_ns)
      fail_value(
          f.at("poll_interval"), *v,
          "poll interval must not exceed restoration_time (" + format_ns(w.restoration_ns) + ")",
          {f.at("restoration_time")});
  }
  return w;
}

std::vector<AppliedOverride> apply_overrides(YAML::Node& root,
                                             const std::vector<std::string>& overrides) {
  std::vector<AppliedOverride> applied;
  for (const auto& o : overrides) applied.push_back(apply_override(root, o));
  return applied;
}

// Applies the overrides to `root` (modified) and validates the result.
ConfigParams validate_document(YAML::Node& root, const std::string& source_name,
                               const std::vector<std::string>& overrides,
                               const MemoryRuntime& runtime) {
  try {
    std::vector<AppliedOverride> applied = apply_overrides(root, overrides);
    return Validator(source_name, std::move(applied), runtime).run(root);
  } catch (const YAML::Exception& e) {
    // Not expected (every access is checked first); still one clear line.
    throw ConfigError(source_name + ": " + e.msg);
  }
}

}  // namespace

ConfigParams load_config_text(const std::string& yaml_text, const std::string& source_name,
                              const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  // Counted on the event stream before a tree is built (control/
  // yaml_document.h): at most kMaxSwitchConfigNodes nodes, an alias as the
  // nodes it stands for (the UTF-8 check walks them), no duplicate key, one
  // document (yaml-cpp 0.7's LoadAll can loop forever on some malformed
  // input, found by the config fuzzer).
  YAML::Node root;
  try {
    root = load_yaml_document(yaml_text, source_name, kMaxSwitchConfigNodes);
  } catch (const YamlDocumentError& e) {
    throw ConfigError(e.what());
  }
  return validate_document(root, source_name, overrides, runtime);
}

ConfigParams load_config_node(const YAML::Node& document, const std::string& source_name,
                              const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  YAML::Node root = YAML::Clone(document);
  return validate_document(root, source_name, overrides, runtime);
}

std::string ConfigParams::origin_of(const std::string& path,
                                    const std::vector<std::string>& related) const {
  auto find = [&](const std::string& p) -> const std::string* {
    for (auto it = set_by.rbegin(); it != set_by.rend(); ++it)
      if (path_within(p, it->first)) return &it->second;
    return nullptr;
  };
  const std::string* o = find(path);
  for (const auto& r : related)
    if (!o) o = find(r);
  return o ? "--set " + *o : source;
}

std::string read_config_file(const std::string& path, const char* what) {
  try {
    return read_bounded_file(path, kMaxYamlFileBytes, what);
  } catch (const BoundedFileError& e) {
    throw ConfigError(e.what());
  }
}

ConfigParams load_config_file(const std::string& path, const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  return load_config_text(read_config_file(path), path, overrides, runtime);
}

}  // namespace rocelb
