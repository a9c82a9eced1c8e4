#include "dataplane/sim/workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "control/bounded_file.h"
#include "control/units.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"
#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/poisson_arrivals.h"

namespace rocelb {
namespace {

using Node = YAML::Node;

constexpr uint64_t kMaxRounds = 10'000;  // incast repeat, all_to_all phases
constexpr uint32_t kMaxQpn = 0xFFFFFF;

// "10ms", "2us", "1500ns": the largest unit that divides exactly.
std::string format_ns(uint64_t ns) {
  if (ns == 0) return "0";
  static constexpr std::pair<uint64_t, const char*> kUnits[] = {
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}};
  for (const auto& [f, name] : kUnits)
    if (ns % f == 0) return std::to_string(ns / f) + name;
  return std::to_string(ns) + "ns";
}

// The shortest text that reads back as `v` ("0.5", "0.8").
std::string format_double(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hex(uint32_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + out;
}

// A decimal or 0x-hex unsigned integer that fits in 64 bits.
bool parse_uint(std::string_view t, uint64_t& out) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  if (t.empty()) return false;
  const auto r = std::from_chars(t.data(), t.data() + t.size(), out, base);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Reads one workload file's keys with one clear error per rule.
class Reader {
 public:
  Reader(std::string source, const Topology& topo) : source_(std::move(source)), topo_(topo) {
    for (uint32_t i = 0; i < topo.hosts.size(); ++i) hosts_.try_emplace(topo.hosts[i].name, i);
  }

  [[noreturn]] void fail(const std::string& path, const std::string& rule) const {
    throw WorkloadError(source_ + ": " + (path.empty() ? "" : path + ": ") + rule);
  }
  [[noreturn]] void fail_value(const std::string& path, const Node& n,
                               const std::string& rule) const {
    fail(path, yaml_show(n) + ": " + rule);
  }
  [[noreturn]] void fail_type(const std::string& path, const Node& n,
                              const std::string& expected) const {
    if (n.IsScalar()) fail_value(path, n, "expected " + expected);
    fail(path, "expected " + expected + ", found " + yaml_kind(n));
  }

  // A map's entries, checked against `known` (no other, none twice).
  class Fields {
   public:
    Fields(const Reader& r, const Node& map, std::string path, std::vector<std::string_view> known)
        : r_(r), path_(std::move(path)) {
      if (!map.IsMap()) r.fail_type(path_, map, "a map");
      if (auto problem = check_map_keys(map, path_, known)) r.fail(problem->path, problem->rule);
      for (auto it = map.begin(); it != map.end(); ++it)
        entries_.emplace_back(it->first.Scalar(), it->second);
    }
    std::optional<Node> get(std::string_view key) const {
      for (const auto& [name, value] : entries_)
        if (name == key) return value;
      return std::nullopt;
    }
    Node require(std::string_view key) const {
      if (auto n = get(key)) return *n;
      r_.fail(path_, "missing required key " + quote(key));
    }
    std::string path(std::string_view key) const { return join_path(path_, key); }

   private:
    const Reader& r_;
    std::string path_;
    std::vector<std::pair<std::string, Node>> entries_;
  };

  std::string scalar(const Node& n, const std::string& path, const char* what) const {
    if (!n.IsScalar()) fail_type(path, n, what);
    return n.Scalar();
  }

  uint32_t host(const Node& n, const std::string& path) const {
    const std::string name = scalar(n, path, "a host name");
    if (const auto h = hosts_.find(name); h != hosts_.end()) return h->second;
    fail(path, yaml_show(n) + " is not a host of the topology (" + topo_.hosts.front().name + ".." +
                   topo_.hosts.back().name + ")");
  }

  uint64_t bytes(const Node& n, const std::string& path) const {
    const std::string t = scalar(n, path, "a byte size");
    uint64_t v = 0;
    std::string why;
    if (!parse_bytes(t, v, &why)) fail_value(path, n, why);
    if (v < 1 || v > kMaxFlowBytes)
      fail_value(path, n,
                 "size must be 1B .. 2GiB (2147483648 B, the largest RDMA message the NIC sends)");
    return v;
  }

  uint64_t duration(const Node& n, const std::string& path, uint64_t lo) const {
    const std::string t = scalar(n, path, "a duration");
    uint64_t v = 0;
    std::string why;
    if (!parse_duration_ns(t, v, &why)) fail_value(path, n, why);
    if (v < lo || v > kMaxWorkloadTimeNs)
      fail_value(path, n, "must be " + format_ns(lo) + " .. " + format_ns(kMaxWorkloadTimeNs));
    return v;
  }

  uint64_t integer(const Node& n, const std::string& path, uint64_t lo, uint64_t hi) const {
    const std::string t = scalar(n, path, "an integer");
    uint64_t v = 0;
    if (!parse_uint(t, v) || v < lo || v > hi)
      fail_value(path, n, "must be an integer " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }

  // 0 < load <= 1, as a fraction ("0.5") or a percentage ("50%").
  double load(const Node& n, const std::string& path) const {
    std::string t = scalar(n, path, "a load");
    double scale = 1;
    if (!t.empty() && t.back() == '%') {
      t.pop_back();
      scale = 100;
    }
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    const bool number = !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
    v /= scale;
    if (!number || !std::isfinite(v) || v <= 0 || v > 1)
      fail_value(path, n,
                 "load must be a fraction of the host link speed, 0 < load <= 1, or a "
                 "percentage (e.g. 0.5 or 50%)");
    return v;
  }

  uint64_t max_flows(const Fields& f) const {
    if (auto n = f.get("max_flows")) return integer(*n, f.path("max_flows"), 1, kMaxGeneratedFlows);
    return kDefaultMaxFlows;
  }

  // A list of distinct hosts, none equal to `except` (if given).
  std::vector<uint32_t> host_list(const Node& n, const std::string& path,
                                  std::optional<uint32_t> except, const char* except_what) const {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string p = index_path(path, i);
      const uint32_t h = host(n[i], p);
      if (except && h == *except) fail_value(p, n[i], std::string("is the ") + except_what);
      if (std::find(out.begin(), out.end(), h) != out.end()) fail_value(p, n[i], "listed twice");
      out.push_back(h);
    }
    return out;
  }

  Workload explicit_flows(const Node& root) const;
  Workload poisson(const Node& root, const std::string& base_dir, uint64_t seed) const;
  Workload incast(const Node& root) const;
  Workload all_to_all(const Node& root) const;
  void check_qps(const std::vector<FabricFlow>& flows) const;

  const std::string& source() const { return source_; }

 private:
  std::string source_;
  const Topology& topo_;
  std::unordered_map<std::string, uint32_t> hosts_;  // by name: one look-up per flow end
};

Workload Reader::explicit_flows(const Node& root) const {
  const Fields top(*this, root, "", {"flows"});
  const Node list = top.require("flows");
  if (!list.IsSequence()) fail_type("flows", list, "a list");
  if (list.size() == 0) fail("flows", "empty: list at least one flow");
  if (list.size() > kMaxExplicitFlows)
    fail("flows", std::to_string(list.size()) + " flows: a flows list holds at most " +
                      std::to_string(kMaxExplicitFlows) +
                      " (use type: poisson, incast or all_to_all for more)");
  Workload w;
  w.kind = "flows";
  uint64_t total = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const Fields f(*this, list[i], index_path("flows", i),
                   {"src", "dst", "size", "start", "qp", "sport", "dscp"});
    FabricFlow fl;
    fl.src = host(f.require("src"), f.path("src"));
    fl.dst = host(f.require("dst"), f.path("dst"));
    if (fl.src == fl.dst) fail_value(f.path("dst"), f.require("dst"), "dst must differ from src");
    fl.size_bytes = bytes(f.require("size"), f.path("size"));
    if (auto n = f.get("start")) fl.start_ns = duration(*n, f.path("start"), 0);
    if (auto n = f.get("qp")) fl.qp = uint32_t(integer(*n, f.path("qp"), 0, kMaxQpn));
    if (auto n = f.get("sport")) fl.sport = uint16_t(integer(*n, f.path("sport"), 1, 65535));
    if (auto n = f.get("dscp")) fl.dscp = uint8_t(integer(*n, f.path("dscp"), 0, 63));
    total += fl.size_bytes;
    w.flows.push_back(fl);
  }
  check_qps(w.flows);
  w.description =
      "flows: " + std::to_string(w.flows.size()) + " explicit, " + format_bytes(total) + " in all";
  return w;
}

// Each flow of a host sends from its own QP (the NIC's QP carries one
// message at a time): a given qp once per source host, and none equal to
// the QPN a flow without one takes (default_qpn of its id, its place in
// start order). `flows` in file order.
void Reader::check_qps(const std::vector<FabricFlow>& flows) const {
  std::vector<size_t> order(flows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return flows[a].start_ns < flows[b].start_ns; });
  struct Use {
    uint32_t src, qpn;
    size_t index;  // in the file
  };
  std::vector<Use> uses(flows.size());
  for (size_t id = 0; id < order.size(); ++id) {
    const FabricFlow& f = flows[order[id]];
    uses[id] = {f.src, f.qp.value_or(default_qpn(id)), order[id]};
  }
  std::sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) {
    return a.src != b.src ? a.src < b.src : a.qpn != b.qpn ? a.qpn < b.qpn : a.index < b.index;
  });
  for (size_t k = 1; k < uses.size(); ++k) {
    const Use& a = uses[k - 1];
    const Use& b = uses[k];
    if (a.src != b.src || a.qpn != b.qpn) continue;
    // Blame a flow that names the qp: the later one when both do.
    const bool b_named = flows[b.index].qp.has_value();
    const Use& blamed = b_named ? b : a;
    const Use& other = b_named ? a : b;
    const std::string other_path = index_path("flows", other.index);
    fail(index_path("flows", blamed.index) + ".qp",
         hex(blamed.qpn) + ": " + topo_.hosts[blamed.src].name + " already sends " + other_path +
             " on QP " + hex(blamed.qpn) +
             (flows[other.index].qp
                  ? ""
                  : " (a flow without qp takes 0x100 + its place in start order)") +
             ": a QP carries one flow, so each flow of a host needs its own qp");
  }
}

Workload Reader::poisson(const Node& root, const std::string& base_dir, uint64_t seed) const {
  const Fields f(*this, root, "",
                 {"type", "cdf", "load", "load_of", "duration", "pairs", "max_flows"});
  const std::string cdf_name = scalar(f.require("cdf"), "cdf", "a distribution name or file");
  std::optional<FlowSizeCdf> cdf;
  try {
    cdf = FlowSizeCdf::named(cdf_name);
    if (!cdf) {
      std::filesystem::path p(cdf_name);
      if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
      if (!std::filesystem::exists(p)) {
        std::string names;
        for (const NamedCdf& n : named_cdfs())
          names += (names.empty() ? "" : ", ") + std::string(n.name);
        fail_value(
            "cdf", f.require("cdf"),
            "not a named distribution (" + names + ") nor a file (no " + quote(p.string()) + ")");
      }
      cdf = FlowSizeCdf::load_file(p.string());
    }
  } catch (const FlowSizeCdfError& e) {
    fail("cdf", e.what());
  }
  PoissonParams p;
  p.cdf = &*cdf;
  p.load = load(f.require("load"), "load");
  // load_of: network (ConWeave's run.py): the load is of the leaf-spine
  // core, so each host offers load / oversubscription of its link.
  std::string load_of = "hosts";
  double oversub = 1;
  if (auto n = f.get("load_of")) {
    load_of = scalar(*n, "load_of", "hosts or network");
    if (load_of != "hosts" && load_of != "network")
      fail_value("load_of", *n, "must be hosts or network");
  }
  if (load_of == "network" && !topo_.hosts.empty() && !topo_.links.empty()) {
    oversub = static_cast<double>(topo_.hosts_per_leaf) *
              static_cast<double>(topo_.hosts[0].speed_bps) /
              (static_cast<double>(topo_.spines) * static_cast<double>(topo_.links[0].speed_bps));
    if (oversub > 1) p.load /= oversub;
  }
  p.duration_ns = duration(f.require("duration"), "duration", 1);
  p.max_flows = max_flows(f);
  std::string pairs = "inter_leaf";
  if (auto n = f.get("pairs")) {
    pairs = scalar(*n, "pairs", "inter_leaf or any");
    if (pairs != "inter_leaf" && pairs != "any")
      fail_value("pairs", *n, "must be inter_leaf or any");
  }
  p.inter_leaf = pairs == "inter_leaf";
  if (p.inter_leaf && topo_.leaves < 2)
    fail("pairs", "inter_leaf needs at least two leaves; the topology has " +
                      std::to_string(topo_.leaves) + " (use pairs: any)");
  if (topo_.hosts.size() < 2) fail("pairs", "the topology has one host: no pair to draw");
  auto flows = poisson_flows(topo_, p, seed);
  if (!flows)
    fail("max_flows", "more than " + std::to_string(p.max_flows) +
                          " flows: raise max_flows or shorten the duration");
  Workload w;
  w.kind = "poisson";
  w.flows = std::move(*flows);
  w.duration_ns = p.duration_ns;
  w.cdf = cdf_name;
  w.cdf_mean_bytes = cdf->mean_bytes();
  w.load = p.load;
  w.description = "poisson " + cdf_name + " load " + format_double(p.load) + " of each host" +
                  (load_of == "network"
                       ? " (network load " + format_double(p.load * std::max(1.0, oversub)) + ")"
                       : "") +
                  " over " + format_ns(p.duration_ns) + ", " + pairs + ", " +
                  std::to_string(w.flows.size()) + " flows";
  return w;
}

Workload Reader::incast(const Node& root) const {
  const Fields f(
      *this, root, "",
      {"type", "receiver", "senders", "size", "start", "repeat", "interval", "max_flows"});
  const uint32_t receiver = host(f.require("receiver"), "receiver");
  const Node s = f.require("senders");
  std::vector<uint32_t> senders;
  const uint64_t others = topo_.hosts.size() - 1;
  if (s.IsSequence()) {
    if (s.size() == 0) fail("senders", "empty: list at least one sender");
    senders = host_list(s, "senders", receiver, "receiver");
  } else if (s.IsScalar()) {
    if (others == 0) fail("senders", "the topology has one host: no sender besides the receiver");
    const uint64_t n = integer(s, "senders", 1, others);
    const uint32_t leaf = topo_.hosts[receiver].sw;
    for (int same_leaf = 0; same_leaf < 2; ++same_leaf)
      for (uint32_t h = 0; h < topo_.hosts.size() && senders.size() < n; ++h)
        if (h != receiver && (topo_.hosts[h].sw == leaf) == bool(same_leaf)) senders.push_back(h);
  } else {
    fail_type("senders", s, "a list of hosts or a count");
  }
  const uint64_t size = bytes(f.require("size"), "size");
  uint64_t start = 0, repeat = 1, interval = 0;
  if (auto n = f.get("start")) start = duration(*n, "start", 0);
  if (auto n = f.get("repeat")) repeat = integer(*n, "repeat", 1, kMaxRounds);
  if (auto n = f.get("interval")) interval = duration(*n, "interval", 1);
  if (repeat > 1 && !f.get("interval"))
    fail("", "missing required key \"interval\" (repeat is " + std::to_string(repeat) + ")");
  // Each term is at most 10^4 x 3.6e12 ns: no overflow.
  if (start + (repeat - 1) * interval > kMaxWorkloadTimeNs)
    fail("interval", "the last round would start at " + format_ns(start + (repeat - 1) * interval) +
                         ", after " + format_ns(kMaxWorkloadTimeNs) +
                         " (start + (repeat - 1) x interval)");
  if (repeat * senders.size() > max_flows(f))
    fail("max_flows", std::to_string(repeat * senders.size()) + " flows: more than max_flows (" +
                          std::to_string(max_flows(f)) + ")");
  Workload w;
  w.kind = "incast";
  for (uint64_t r = 0; r < repeat; ++r)
    for (uint32_t src : senders) {
      FabricFlow fl;
      fl.src = src;
      fl.dst = receiver;
      fl.size_bytes = size;
      fl.start_ns = start + r * interval;
      w.flows.push_back(fl);
    }
  w.description = "incast " + std::to_string(senders.size()) + " -> " + topo_.hosts[receiver].name +
                  ", " + format_bytes(size) + " each, " + std::to_string(repeat) +
                  (repeat == 1 ? " round" : " rounds") + ", " + std::to_string(w.flows.size()) +
                  " flows";
  return w;
}

Workload Reader::all_to_all(const Node& root) const {
  const Fields f(*this, root, "", {"type", "hosts", "size", "phases", "gap", "start", "max_flows"});
  const Node h = f.require("hosts");
  std::vector<uint32_t> hosts;
  if (h.IsScalar() && h.Scalar() == "all") {
    for (uint32_t i = 0; i < topo_.hosts.size(); ++i) hosts.push_back(i);
  } else if (h.IsSequence()) {
    hosts = host_list(h, "hosts", std::nullopt, "");
  } else {
    fail_type("hosts", h, "all or a list of hosts");
  }
  if (hosts.size() < 2) fail("hosts", "all_to_all needs at least two hosts");
  const uint64_t size = bytes(f.require("size"), "size");
  uint64_t phases = 1, gap = 0, start = 0;
  if (auto n = f.get("phases")) phases = integer(*n, "phases", 1, kMaxRounds);
  if (auto n = f.get("gap")) gap = duration(*n, "gap", 0);
  if (auto n = f.get("start")) start = duration(*n, "start", 0);
  if (start + (phases - 1) * gap > kMaxWorkloadTimeNs)
    fail("gap", "the phases' gaps alone would take to " + format_ns(start + (phases - 1) * gap) +
                    ", after " + format_ns(kMaxWorkloadTimeNs) + " (start + (phases - 1) x gap)");
  const uint64_t count = phases * hosts.size() * (hosts.size() - 1);
  if (count > max_flows(f))
    fail("max_flows", std::to_string(count) + " flows: more than max_flows (" +
                          std::to_string(max_flows(f)) + ")");
  Workload w;
  w.kind = "all_to_all";
  w.phase_gap_ns = gap;
  w.phases = uint32_t(phases);
  for (uint64_t k = 0; k < phases; ++k)
    for (uint32_t src : hosts)
      for (uint32_t dst : hosts) {
        if (src == dst) continue;
        FabricFlow fl;
        fl.src = src;
        fl.dst = dst;
        fl.size_bytes = size;
        fl.phase = uint32_t(k);
        fl.start_ns = k == 0 ? start : 0;
        w.flows.push_back(fl);
      }
  w.description = "all_to_all " + std::to_string(hosts.size()) + " hosts, " + format_bytes(size) +
                  " per pair, " + std::to_string(phases) + (phases == 1 ? " phase" : " phases") +
                  ", gap " + format_ns(gap) + ", " + std::to_string(w.flows.size()) + " flows";
  return w;
}

}  // namespace

Workload load_workload_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir, const Topology& topo, uint64_t seed) {
  Node root;
  try {
    root = load_yaml_document(text, source_name);
  } catch (const YamlDocumentError& e) {
    throw WorkloadError(e.what());
  }
  const Reader r(source_name, topo);
  if (topo.hosts.empty()) r.fail("", "the topology has no hosts");
  if (!root.IsMap())
    r.fail("",
           "a workload file is a map: a top-level \"flows\" list, or \"type\" (poisson, "
           "incast or all_to_all) and its keys (found " +
               yaml_kind(root) + ")");
  Workload w;
  const Node type = root["type"];
  if (!type) {
    if (!root["flows"])
      r.fail("",
             "missing required key \"type\" (poisson, incast or all_to_all), or a "
             "top-level \"flows\" list");
    w = r.explicit_flows(root);
  } else {
    const std::string t = r.scalar(type, "type", "poisson, incast or all_to_all");
    if (t == "poisson")
      w = r.poisson(root, base_dir, seed);
    else if (t == "incast")
      w = r.incast(root);
    else if (t == "all_to_all")
      w = r.all_to_all(root);
    else
      r.fail_value("type", type,
                   "must be poisson, incast or all_to_all (or give a top-level "
                   "\"flows\" list instead)");
  }
  w.source = source_name;
  std::stable_sort(w.flows.begin(), w.flows.end(), [](const FabricFlow& a, const FabricFlow& b) {
    return a.phase != b.phase ? a.phase < b.phase : a.start_ns < b.start_ns;
  });
  for (size_t i = 0; i < w.flows.size(); ++i) w.flows[i].id = i;
  return w;
}

Workload load_workload_file(const std::string& path, const Topology& topo, uint64_t seed) {
  std::string text;
  try {
    text = read_bounded_file(path, kMaxYamlFileBytes, "workload file");
  } catch (const BoundedFileError& e) {
    throw WorkloadError(e.what());
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return load_workload_text(text, path, dir.empty() ? "." : dir, topo, seed);
}

}  // namespace rocelb
