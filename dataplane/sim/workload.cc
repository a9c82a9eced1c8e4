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
#include "control/key_reader.h"
#include "control/units.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"
#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/ns3_flows.h"
#include "dataplane/sim/poisson_arrivals.h"

namespace rocelb {
namespace {

using Node = YAML::Node;

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

// The hosts of the topology by name, and the reads a workload's keys share.
class Hosts {
 public:
  Hosts(const KeyReader& r, const Topology& topo) : r_(r), topo_(topo) {
    for (uint32_t i = 0; i < topo.hosts.size(); ++i) by_name_.try_emplace(topo.hosts[i].name, i);
  }

  const KeyReader& reader() const { return r_; }
  const Topology& topo() const { return topo_; }

  // A host name of the topology.
  uint32_t host(const Node& n, const std::string& path) const {
    const std::string& name = r_.scalar(n, path, "a host name");
    if (const auto h = by_name_.find(name); h != by_name_.end()) return h->second;
    r_.fail(path, yaml_show(n) + " is not a host of the topology (" + topo_.hosts.front().name +
                      ".." + topo_.hosts.back().name + ")");
  }

  // A list of distinct hosts, none equal to `except` (if given).
  std::vector<uint32_t> list(const Node& n, const std::string& path, std::optional<uint32_t> except,
                             const char* except_what) const {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string p = index_path(path, i);
      const uint32_t h = host(n[i], p);
      if (except && h == *except) r_.fail_value(p, n[i], std::string("is the ") + except_what);
      if (std::find(out.begin(), out.end(), h) != out.end()) r_.fail_value(p, n[i], "listed twice");
      out.push_back(h);
    }
    return out;
  }

 private:
  const KeyReader& r_;
  const Topology& topo_;
  std::unordered_map<std::string, uint32_t> by_name_;  // one look-up per flow end
};

// The `load` key: 0 < load <= 1, as a fraction ("0.5") or a percentage
// ("50%"); its row is kOther (a double, with a percent form).
double read_load(const KeyReader::Map& m) {
  const Node n = m.require("load");
  std::string t = m.reader().scalar(n, m.at("load"), "a load");
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
    m.reader().fail_value(m.at("load"), n,
                          "load must be a fraction of the host link speed, 0 < load <= 1, or a "
                          "percentage (e.g. 0.5 or 50%)");
  return v;
}

uint64_t read_max_flows(const KeyReader::Map& m) {
  uint64_t v = kDefaultMaxFlows;
  m.read("max_flows", v);
  return v;
}

// Each flow of a host sends from its own QP (the NIC's QP carries one
// message at a time): a given qp once per source host, and none equal to
// the QPN a flow without one takes (default_qpn of its id, its place in
// start order). `flows` in file order.
void check_qps(const Hosts& h, const std::vector<FabricFlow>& flows) {
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
    h.reader().fail(index_path("flows", blamed.index) + ".qp",
                    hex(blamed.qpn) + ": " + h.topo().hosts[blamed.src].name + " already sends " +
                        other_path + " on QP " + hex(blamed.qpn) +
                        (flows[other.index].qp
                             ? ""
                             : " (a flow without qp takes 0x100 + its place in start order)") +
                        ": a QP carries one flow, so each flow of a host needs its own qp");
  }
}

Workload explicit_flows(const Hosts& h, const Node& root) {
  const KeyReader& r = h.reader();
  const KeyReader::Map top = r.top(root);
  const Node list = top.require("flows");
  if (!list.IsSequence()) r.fail_type("flows", list, "a list");
  if (list.size() == 0) r.fail("flows", "empty: list at least one flow");
  if (list.size() > kMaxExplicitFlows)
    r.fail("flows", std::to_string(list.size()) + " flows: a flows list holds at most " +
                        std::to_string(kMaxExplicitFlows) +
                        " (use type: poisson, incast or all_to_all for more)");
  Workload w;
  w.kind = "flows";
  uint64_t total = 0;
  top.each("flows", [&](const Node& n, const std::string& path, const std::string& pattern) {
    const KeyReader::Map f = r.map(n, path, pattern);
    FabricFlow fl;
    fl.src = h.host(f.require("src"), f.at("src"));
    fl.dst = h.host(f.require("dst"), f.at("dst"));
    if (fl.src == fl.dst) r.fail_value(f.at("dst"), f.require("dst"), "dst must differ from src");
    f.require("size");
    f.read("size", fl.size_bytes);
    f.read("start", fl.start_ns);
    if (uint32_t qp = 0; f.read("qp", qp)) fl.qp = qp;
    if (uint16_t sport = 0; f.read("sport", sport)) fl.sport = sport;
    if (uint8_t dscp = 0; f.read("dscp", dscp)) fl.dscp = dscp;
    total += fl.size_bytes;
    w.flows.push_back(fl);
  });
  check_qps(h, w.flows);
  w.description =
      "flows: " + std::to_string(w.flows.size()) + " explicit, " + format_bytes(total) + " in all";
  return w;
}

Workload poisson(const Hosts& h, const Node& root, const std::string& base_dir, uint64_t seed) {
  const KeyReader& r = h.reader();
  const Topology& topo = h.topo();
  const KeyReader::Map f = r.top(root);
  for (const char* k : {"cdf", "load", "duration"}) f.require(k);
  const Node cdf_node = f.require("cdf");
  const std::string cdf_name = r.scalar(cdf_node, "cdf", "a distribution name or file");
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
        r.fail_value(
            "cdf", cdf_node,
            "not a named distribution (" + names + ") nor a file (no " + quote(p.string()) + ")");
      }
      cdf = FlowSizeCdf::load_file(p.string());
    }
  } catch (const FlowSizeCdfError& e) {
    r.fail("cdf", e.what());
  }
  PoissonParams p;
  p.cdf = &*cdf;
  p.load = read_load(f);
  // load_of: network (ConWeave's run.py): the load is of the leaf-spine
  // core, so each host offers load / oversubscription of its link.
  std::string load_of = "hosts";
  double oversub = 1;
  f.read("load_of", load_of);
  if (load_of == "network" && topo.oversubscription > 0) {
    if (topo.oversubscription > 1) p.load /= topo.oversubscription;
    oversub = topo.oversubscription;
  } else if (load_of == "network" && !topo.hosts.empty() && !topo.links.empty()) {
    oversub = static_cast<double>(topo.hosts_per_leaf) *
              static_cast<double>(topo.hosts[0].speed_bps) /
              (static_cast<double>(topo.spines) * static_cast<double>(topo.links[0].speed_bps));
    if (oversub > 1) p.load /= oversub;
  }
  f.read("duration", p.duration_ns);
  p.max_flows = read_max_flows(f);
  std::string pairs = "inter_leaf";
  f.read("pairs", pairs);
  p.inter_leaf = pairs == "inter_leaf";
  if (p.inter_leaf && topo.leaves < 2)
    r.fail("pairs", "inter_leaf needs at least two leaves; the topology has " +
                        std::to_string(topo.leaves) + " (use pairs: any)");
  if (topo.hosts.size() < 2) r.fail("pairs", "the topology has one host: no pair to draw");
  auto flows = poisson_flows(topo, p, seed);
  if (!flows)
    r.fail("max_flows", "more than " + std::to_string(p.max_flows) +
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

Workload incast(const Hosts& h, const Node& root) {
  const KeyReader& r = h.reader();
  const Topology& topo = h.topo();
  const KeyReader::Map f = r.top(root);
  for (const char* k : {"receiver", "senders", "size"}) f.require(k);
  const uint32_t receiver = h.host(f.require("receiver"), "receiver");
  const Node s = f.require("senders");
  std::vector<uint32_t> senders;
  const uint64_t others = topo.hosts.size() - 1;
  if (s.IsSequence()) {
    if (s.size() == 0) r.fail("senders", "empty: list at least one sender");
    senders = h.list(s, "senders", receiver, "receiver");
  } else if (s.IsScalar()) {
    if (others == 0) r.fail("senders", "the topology has one host: no sender besides the receiver");
    // A count: 1 .. the hosts other than the receiver.
    const KeySpec count{.path = "senders", .kind = KeyKind::kUint, .lo = 1, .hi = others};
    const uint64_t n = r.uint(s, "senders", count);
    const uint32_t leaf = topo.hosts[receiver].sw;
    for (int same_leaf = 0; same_leaf < 2; ++same_leaf)
      for (uint32_t i = 0; i < topo.hosts.size() && senders.size() < n; ++i)
        if (i != receiver && (topo.hosts[i].sw == leaf) == bool(same_leaf)) senders.push_back(i);
  } else {
    r.fail_type("senders", s, "a list of hosts or a count");
  }
  uint64_t size = 0, start = 0, repeat = 1, interval = 0;
  f.read("size", size);
  f.read("start", start);
  f.read("repeat", repeat);
  const bool has_interval = f.read("interval", interval);
  if (repeat > 1 && !has_interval)
    r.fail("", "missing required key \"interval\" (repeat is " + std::to_string(repeat) + ")");
  // Each term is at most 10^4 x 3.6e12 ns: no overflow.
  if (start + (repeat - 1) * interval > kMaxWorkloadTimeNs)
    r.fail("interval", "the last round would start at " +
                           format_ns(start + (repeat - 1) * interval) + ", after " +
                           format_ns(kMaxWorkloadTimeNs) + " (start + (repeat - 1) x interval)");
  const uint64_t max_flows = read_max_flows(f);
  if (repeat * senders.size() > max_flows)
    r.fail("max_flows", std::to_string(repeat * senders.size()) + " flows: more than max_flows (" +
                            std::to_string(max_flows) + ")");
  Workload w;
  w.kind = "incast";
  for (uint64_t k = 0; k < repeat; ++k)
    for (uint32_t src : senders) {
      FabricFlow fl;
      fl.src = src;
      fl.dst = receiver;
      fl.size_bytes = size;
      fl.start_ns = start + k * interval;
      w.flows.push_back(fl);
    }
  w.description = "incast " + std::to_string(senders.size()) + " -> " + topo.hosts[receiver].name +
                  ", " + format_bytes(size) + " each, " + std::to_string(repeat) +
                  (repeat == 1 ? " round" : " rounds") + ", " + std::to_string(w.flows.size()) +
                  " flows";
  return w;
}

Workload all_to_all(const Hosts& h, const Node& root) {
  const KeyReader& r = h.reader();
  const Topology& topo = h.topo();
  const KeyReader::Map f = r.top(root);
  for (const char* k : {"hosts", "size"}) f.require(k);
  const Node list = f.require("hosts");
  std::vector<uint32_t> hosts;
  if (list.IsScalar() && list.Scalar() == "all") {
    for (uint32_t i = 0; i < topo.hosts.size(); ++i) hosts.push_back(i);
  } else if (list.IsSequence()) {
    hosts = h.list(list, "hosts", std::nullopt, "");
  } else {
    r.fail_type("hosts", list, "all or a list of hosts");
  }
  if (hosts.size() < 2) r.fail("hosts", "all_to_all needs at least two hosts");
  uint64_t size = 0, phases = 1, gap = 0, start = 0;
  f.read("size", size);
  f.read("phases", phases);
  f.read("gap", gap);
  f.read("start", start);
  if (start + (phases - 1) * gap > kMaxWorkloadTimeNs)
    r.fail("gap", "the phases' gaps alone would take to " + format_ns(start + (phases - 1) * gap) +
                      ", after " + format_ns(kMaxWorkloadTimeNs) + " (start + (phases - 1) x gap)");
  const uint64_t count = phases * hosts.size() * (hosts.size() - 1);
  const uint64_t max_flows = read_max_flows(f);
  if (count > max_flows)
    r.fail("max_flows", std::to_string(count) + " flows: more than max_flows (" +
                            std::to_string(max_flows) + ")");
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

KeyReader workload_reader(const KeySchema& schema, const std::string& source) {
  return KeyReader(schema, KeyOrigin{source, {}},
                   [](const std::string& message) { throw WorkloadError(message); });
}

}  // namespace

Workload load_workload_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir, const Topology& topo, uint64_t seed) {
  if (is_ns3_flows(text)) return load_ns3_flows(text, source_name, topo);
  Node root;
  try {
    root = load_yaml_document(text, source_name);
  } catch (const YamlDocumentError& e) {
    throw WorkloadError(e.what());
  }
  const KeyReader file = workload_reader(workload_flows_schema(), source_name);
  if (topo.hosts.empty()) file.fail("", "the topology has no hosts");
  if (!root.IsMap())
    file.fail("",
              "a workload file is a map: a top-level \"flows\" list, or \"type\" (poisson, "
              "incast or all_to_all) and its keys (found " +
                  yaml_kind(root) + ")");
  file.check_utf8(root, "");
  Workload w;
  const Node type = root["type"];
  if (!type) {
    if (!root["flows"])
      file.fail("",
                "missing required key \"type\" (poisson, incast or all_to_all), or a "
                "top-level \"flows\" list");
    w = explicit_flows(Hosts(file, topo), root);
  } else {
    // Every form's `type` row is the same: read it by the first's.
    const KeyReader by_type = workload_reader(workload_poisson_schema(), source_name);
    const std::string t = by_type.text(type, "type", by_type.spec("type"));
    if (t == "poisson") {
      w = poisson(Hosts(by_type, topo), root, base_dir, seed);
    } else if (t == "incast") {
      const KeyReader r = workload_reader(workload_incast_schema(), source_name);
      w = incast(Hosts(r, topo), root);
    } else {
      const KeyReader r = workload_reader(workload_all_to_all_schema(), source_name);
      w = all_to_all(Hosts(r, topo), root);
    }
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
    // An ns-3 flow file may be larger than a YAML one.
    text = read_bounded_file(path, kMaxNs3FlowFileBytes, "workload file");
    if (text.size() > kMaxYamlFileBytes && !is_ns3_flows(text))
      text = read_bounded_file(path, kMaxYamlFileBytes, "workload file");
  } catch (const BoundedFileError& e) {
    throw WorkloadError(e.what());
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return load_workload_text(text, path, dir.empty() ? "." : dir, topo, seed);
}

}  // namespace rocelb
