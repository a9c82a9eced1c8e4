// The switch config's `groups`: each group's mode, members, hash fields and
// load-balancing knobs (lb/lb_knobs.h), the rules that tie a knob to the
// mode, and the bound on all groups' tables per forwarding worker.
#include <algorithm>
#include <stdexcept>

#include "control/config_sections.h"
#include "control/yaml_util.h"
#include "lb/bpf_engine.h"

namespace rocelb::config_detail {
namespace {

void read_thresholds(const KeyReader::Map& m, const char* key, auto& out) {
  const KeyReader& r = m.reader();
  size_t i = 0;
  m.each(key, [&](const YAML::Node& item, const std::string& path, const std::string& pat) {
    out[i] =
        static_cast<std::remove_reference_t<decltype(out[i])>>(r.uint(item, path, r.spec(pat)));
    if (i > 0 && out[i] <= out[i - 1])
      r.fail_value(path, item,
                   "thresholds must increase (" + index_path(key, i - 1) + " is " +
                       yaml_show((*m.get(key))[i - 1]) + ")");
    ++i;
  });
}

QualityKnobs read_quality(const KeyReader::Map& m) {
  QualityKnobs q;
  const bool lw = m.read("load_weight", q.load_weight);
  const bool qw = m.read("queue_weight", q.queue_weight);
  if (lw && !qw) q.queue_weight = 100 - q.load_weight;
  if (qw && !lw) q.load_weight = 100 - q.queue_weight;
  if (lw && qw && q.load_weight + q.queue_weight != 100)
    m.reader().fail(m.path(),
                    "load_weight + queue_weight must be 100 (found " +
                        std::to_string(q.load_weight) + " + " + std::to_string(q.queue_weight) +
                        ")",
                    also({m.at("load_weight"), m.at("queue_weight")}));
  read_thresholds(m, "queue_thresholds", q.queue_thresholds);
  read_thresholds(m, "load_thresholds", q.load_thresholds);
  std::string depth;
  if (m.read("depth", depth))
    q.depth = depth == "class" ? QueueDepthSource::kClass : QueueDepthSource::kPort;
  uint64_t alpha = 0;
  if (m.read_scaled("load_alpha", 65536, alpha)) q.load_alpha_q16 = static_cast<uint32_t>(alpha);
  return q;
}

// The knobs; then the rules that tie a knob to the mode (a knob of another
// mode is taken and left unused).
void read_knobs(const KeyReader::Map& m, GroupParams& g) {
  const KeyReader& r = m.reader();
  LbKnobs& k = g.knobs;
  m.read("idle_time", k.idle_time_ns);
  m.read("sampling_interval", k.sampling_interval_ns);
  auto power_of_two = [&](const char* key, uint32_t& v) {
    if (m.read(key, v) && !is_power_of_two(v))
      r.fail_value(m.at(key), *m.get(key),
                   "must be " + rule_text(r.spec(join_pattern(m.pattern(), key))));
  };
  power_of_two("max_flows", k.max_flows);
  power_of_two("buckets", k.buckets);
  if (m.has("quality")) k.quality = read_quality(m.map("quality"));
  if (m.has("drill")) {
    const KeyReader::Map d = m.map("drill");
    d.read("d", k.drill.d);
    d.read("m", k.drill.m);
    std::string memory;
    if (d.read("memory", memory)) k.drill.per_destination = memory == "destination";
    if (k.drill.per_destination && k.drill.m != 1) {
      const char* key = d.has("m") ? "m" : "memory";
      r.fail_value(d.at(key), *d.get(key),
                   "drill.memory destination remembers one member per destination: drill.m "
                   "must be 1");
    }
  }
  m.read("seed", k.seed);
  m.read("control_by_hash", k.control_by_hash);
  if (m.has("conweave")) {
    const KeyReader::Map c = m.map("conweave");
    ConWeaveKnobs& cw = k.conweave;
    c.read("tx_expiry", cw.tx_expiry_ns);
    c.read("reply_timeout_extra", cw.reply_timeout_extra_ns);
    c.read("base_rtt", cw.base_rtt_ns);
    c.read("path_pause", cw.path_pause_ns);
    c.read("voq_flush_extra", cw.voq_flush_extra_ns);
    c.read("voq_default_wait", cw.voq_default_wait_ns);
    c.read("reply_dscp", cw.reply_dscp);
    c.read("hold_packets", cw.hold_packets);
  }

  if (auto v = m.get("buckets")) {
    const KeySpec& row = r.spec(join_pattern(m.pattern(), "buckets"));
    if (g.mode == LbMode::kResilient && k.buckets > kMaxResilientBuckets)
      r.fail_value(m.at("buckets"), *v,
                   "resilient hashing takes " + std::to_string(row.lo) + ".." +
                       std::to_string(kMaxResilientBuckets) + " buckets",
                   also({m.at("mode")}));
    if (uses_buckets(g.mode) && k.buckets < g.members.size())
      r.fail_value(m.at("buckets"), *v,
                   std::string(to_string(g.mode)) + " needs at least as many buckets as members (" +
                       std::to_string(g.members.size()) + ")",
                   also({m.at("mode"), m.at("members")}));
  }
}

void read_members(const KeyReader::Map& m, const ConfigParams& cfg, GroupParams& g) {
  const KeyReader& r = m.reader();
  const std::string mpath = m.at("members");
  m.each("members", [&](const YAML::Node& item, const std::string& ipath, const std::string& pat) {
    GroupMemberParams gm;
    YAML::Node via;
    std::string via_path = ipath;
    if (item.IsScalar()) {
      via.reset(item);
    } else if (item.IsMap()) {
      const KeyReader::Map mm = r.map(item, ipath, pat);
      via.reset(mm.require("via"));
      via_path = mm.at("via");
      mm.read("weight", gm.weight);
    } else {
      r.fail_type(ipath, item, "a neighbor IP or a map {via, weight}");
    }
    gm.via = read_ip(r, via, via_path);
    if (!cfg.find_neighbor(gm.via)) r.fail_value(via_path, via, "not a configured neighbor");
    for (size_t j = 0; j < g.members.size(); ++j)
      if (g.members[j].via == gm.via)
        r.fail_value(via_path, via, "duplicate member (also " + index_path("members", j) + ")",
                     also({index_path(mpath, j)}));
    g.members.push_back(gm);
  });
}

void read_hash_fields(const KeyReader::Map& m, GroupParams& g) {
  if (!m.has("hash_fields")) return;
  const KeyReader& r = m.reader();
  g.hash_fields = 0;
  std::vector<std::string> seen;
  m.each("hash_fields", [&](const YAML::Node& item, const std::string& p, const std::string& pat) {
    const std::string name = r.text(item, p, r.spec(pat));
    auto it = std::find_if(std::begin(kHashFieldNames), std::end(kHashFieldNames),
                           [&](const HashFieldName& h) { return h.name == name; });
    if (it == std::end(kHashFieldNames))
      throw std::logic_error(p + ": " + name + " is in the schema but not in kHashFieldNames");
    auto dup = std::find(seen.begin(), seen.end(), name);
    if (dup != seen.end())
      r.fail_value(p, item,
                   "duplicate hash field (also " +
                       index_path("hash_fields", size_t(dup - seen.begin())) + ")");
    seen.push_back(name);
    g.hash_fields |= it->field;
  });
}

GroupParams read_group(const KeyReader& r, const YAML::Node& n, const std::string& path,
                       const std::string& pattern, const ConfigParams& cfg) {
  const KeyReader::Map m = r.map(n, path, pattern);
  m.require("members");
  GroupParams g;
  std::string mode;
  if (m.read("mode", mode)) {
    const std::optional<LbMode> known = lb_mode_from_string(mode);
    if (!known) throw std::logic_error(path + ".mode: " + mode + " is in the schema, not in lb/");
    g.mode = *known;
  }
  read_members(m, cfg, g);
  read_hash_fields(m, g);
  read_knobs(m, g);
  if (m.has("bpf")) {
    const KeyReader::Map b = m.map("bpf");
    b.read("program", g.bpf.program);
    b.read("section", g.bpf.section);
    b.read("jit", g.bpf.jit);
    b.read("validation_steps", g.bpf.validation_steps);
    if (g.mode == LbMode::kBpf && g.bpf.program.empty())
      r.fail(b.at("program"), "missing: mode bpf needs the policy's ELF file",
             also({m.at("mode")}));
  }
  if (g.mode == LbMode::kBpf) {
    if (!m.has("bpf"))
      r.fail(path + ".bpf.program", "missing: mode bpf needs the policy's ELF file",
             also({m.at("mode")}));
    if (g.members.size() > kMaxBpfMembers)
      r.fail(m.at("members"),
             "mode bpf takes at most " + std::to_string(kMaxBpfMembers) +
                 " members (lb/bpf/rocelb_policy.h)",
             also({m.at("mode")}));
  }
  return g;
}

}  // namespace

void read_groups(const KeyReader::Map& top, ConfigRead& c) {
  top.entries("groups", [&](const std::string& name, const YAML::Node& n, const std::string& path,
                            const std::string& pat) {
    GroupParams g = read_group(c.r, n, path, pat, c.cfg);
    g.name = name;
    c.cfg.groups.push_back(std::move(g));
  });
  // A switch reorders (conweave at the destination ToR) with one set of
  // knobs: every conweave group must give the same.
  const GroupParams* first_cw = nullptr;
  for (const GroupParams& g : c.cfg.groups) {
    if (g.mode != LbMode::kConWeave) continue;
    if (!first_cw) {
      first_cw = &g;
      continue;
    }
    const ConWeaveKnobs &a = first_cw->knobs.conweave, &b = g.knobs.conweave;
    const char* differs = a.voq_flush_extra_ns != b.voq_flush_extra_ns     ? "voq_flush_extra"
                          : a.voq_default_wait_ns != b.voq_default_wait_ns ? "voq_default_wait"
                          : a.reply_dscp != b.reply_dscp                   ? "reply_dscp"
                          : a.hold_packets != b.hold_packets               ? "hold_packets"
                          : first_cw->knobs.max_flows != g.knobs.max_flows ? "max_flows"
                                                                           : nullptr;
    if (differs) {
      const std::string key = std::string(differs) == "max_flows"
                                  ? "groups." + g.name + ".max_flows"
                                  : "groups." + g.name + ".conweave." + differs;
      c.r.fail(key, "differs from groups." + first_cw->name +
                        "'s: a switch reorders its conweave flows with one setting (every "
                        "conweave group gives the same)");
    }
  }
  // Every forwarding worker keeps every group's table: bounded in total.
  uint64_t total = 0, biggest = 0;
  const GroupParams* big = nullptr;
  for (const GroupParams& g : c.cfg.groups) {
    const uint64_t b = group_table_bytes(g.mode, g.knobs);
    total += b;
    if (b > biggest) biggest = b, big = &g;
  }
  if (total > kMaxGroupTableBytes) {
    const std::string key = uses_flowlets(big->mode) ? "max_flows" : "buckets";
    auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
    c.r.fail("groups." + big->name + "." + key,
             "the groups' tables need " + mib(total) + " per forwarding worker, more than " +
                 mib(kMaxGroupTableBytes) + " (this group: " + mib(biggest) + ")");
  }
}

}  // namespace rocelb::config_detail
