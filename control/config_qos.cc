// The switch config's `qos` classes and queues: trust, the DSCP and PCP
// maps to traffic classes, the egress scheduler (also a port's own), the
// queue limits; the lossless keys are config_lossless.cc's.
#include <array>

#include "control/config_sections.h"
#include "control/yaml_util.h"

namespace rocelb::config_detail {
namespace {

constexpr uint64_t kDefaultQueueLimitBytes = 4'000'000;

}  // namespace

SchedulerParams read_scheduler(const KeyReader::Map& m) {
  const KeyReader& r = m.reader();
  SchedulerParams s;
  const std::string strict_path = m.at("strict");
  std::array<size_t, kNumTrafficClasses> strict_index{};
  size_t i = 0;
  m.each("strict", [&](const YAML::Node& item, const std::string& p, const std::string& pat) {
    const auto tc = static_cast<uint8_t>(r.uint(item, p, r.spec(pat)));
    if (slot(s.strict, tc, p))
      r.fail_value(p, item,
                   "duplicate traffic class (also " + index_path("strict", strict_index[tc]) + ")");
    s.strict[tc] = true;
    strict_index[tc] = i++;
  });
  m.numbered("weights", [&](uint64_t tc, const YAML::Node& value, const std::string& entry,
                            const std::string& pat) {
    if (slot(s.strict, tc, entry))
      r.fail(entry,
             "traffic class " + std::to_string(tc) +
                 " is strict priority and cannot also have a weight",
             also({strict_path}));
    s.weight[tc] = static_cast<uint32_t>(r.uint(value, entry, r.spec(pat)));
  });
  return s;
}

void read_qos(const KeyReader::Map& top, QosParams& q) {
  const KeyReader& r = top.reader();
  // No qos section: every default, exactly as an empty one.
  const KeyReader::Map m =
      top.has("qos") ? top.map("qos") : r.map(YAML::Node(YAML::NodeType::Map), "qos", "qos");
  std::string trust;
  if (m.read("trust", trust)) q.trust = trust == "pcp" ? Trust::kPcp : Trust::kDscp;
  m.read("default_tc", q.default_tc);
  q.dscp_to_tc.fill(q.default_tc);
  q.pcp_to_tc.fill(q.default_tc);
  m.numbered("dscp_to_tc", [&](uint64_t dscp, const YAML::Node& value, const std::string& entry,
                               const std::string& pat) {
    slot(q.dscp_to_tc, dscp, entry) = static_cast<uint8_t>(r.uint(value, entry, r.spec(pat)));
  });
  m.numbered("pcp_to_tc", [&](uint64_t pcp, const YAML::Node& value, const std::string& entry,
                              const std::string& pat) {
    slot(q.pcp_to_tc, pcp, entry) = static_cast<uint8_t>(r.uint(value, entry, r.spec(pat)));
  });
  if (m.has("scheduler")) q.scheduler = read_scheduler(m.map("scheduler"));
  uint64_t limit = kDefaultQueueLimitBytes;
  m.read("queue_limit", limit);
  q.queue_limit_bytes.fill(limit);
  m.numbered("queue_limits", [&](uint64_t tc, const YAML::Node& value, const std::string& entry,
                                 const std::string& pat) {
    slot(q.queue_limit_bytes, tc, entry) = r.uint(value, entry, r.spec(pat));
  });
  read_lossless(m, q.lossless);
}

}  // namespace rocelb::config_detail
