#include "dataplane/sim/nic_params.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "control/units.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

constexpr uint64_t kMaxRateMbps = 1'600'000;  // 1.6 Tb/s, the fastest port speed
constexpr uint64_t kMaxDelayNs = 1'000'000'000;

std::string range(uint64_t lo, uint64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// Reads one map with one clear error per rule.
class Reader {
 public:
  Reader(const std::string& where) : where_(where) {}

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw NicParamsError(where_ + ": " + path + ": " + why);
  }

  // Rejects keys outside `known` (and non-string or repeated keys).
  void keys(const YAML::Node& n, const std::string& path,
            const std::vector<std::string_view>& known) const {
    if (!n.IsMap()) fail(path, "expected a map, found " + yaml_kind(n));
    if (auto problem = check_map_keys(n, path, known)) fail(problem->path, problem->rule);
  }

  const std::string& scalar(const YAML::Node& n, const std::string& path, const char* what) const {
    if (!n.IsScalar()) fail(path, std::string("expected ") + what + ", found " + yaml_kind(n));
    return n.Scalar();
  }

  uint64_t uint(const YAML::Node& n, const std::string& path, uint64_t lo, uint64_t hi,
                const std::string& unit = "") const {
    const std::string& s = scalar(n, path, "an integer");
    bool ok = !s.empty() && s.size() <= 19 &&
              std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    const uint64_t v = ok ? std::stoull(s) : 0;
    if (!ok || v < lo || v > hi)
      fail(path, yaml_show(n) + ": must be an integer " + range(lo, hi) +
                     (unit.empty() ? "" : " (" + unit + ")"));
    return v;
  }

  bool boolean(const YAML::Node& n, const std::string& path) const {
    const std::string& s = scalar(n, path, "true or false");
    if (s == "true" || s == "True" || s == "TRUE" || s == "1") return true;
    if (s == "false" || s == "False" || s == "FALSE" || s == "0") return false;
    fail(path, yaml_show(n) + ": must be true or false");
  }

  uint64_t duration_ns(const YAML::Node& n, const std::string& path, uint64_t hi) const {
    const std::string& s = scalar(n, path, "a duration");
    uint64_t ns = 0;
    std::string why;
    if (!parse_duration_ns(s, ns, &why)) fail(path, yaml_show(n) + ": " + why);
    if (ns > hi) fail(path, yaml_show(n) + ": must be at most 1s");
    return ns;
  }

 private:
  std::string where_;
};

void load_dcqcn(const Reader& r, const YAML::Node& n, const std::string& path, DcqcnParams& d) {
  r.keys(n, path,
         {"enabled",
          "rpg_time_reset",
          "rpg_byte_reset",
          "rpg_threshold",
          "rpg_max_rate",
          "rpg_ai_rate",
          "rpg_hai_rate",
          "rpg_gd",
          "rpg_min_dec_fac",
          "rpg_min_rate",
          "rate_to_set_on_first_cnp",
          "dce_tcp_g",
          "dce_tcp_rtt",
          "initial_alpha_value",
          "rate_reduce_monitor_period",
          "clamp_tgt_rate",
          "clamp_tgt_rate_after_time_inc",
          "min_time_between_cnps",
          "cnp_dscp",
          "cnp_802p_prio"});
  auto u32 = [&](const char* key, uint32_t& out, uint64_t lo, uint64_t hi, const char* unit) {
    if (const YAML::Node v = n[key])
      out = static_cast<uint32_t>(r.uint(v, join_path(path, key), lo, hi, unit));
  };
  if (const YAML::Node v = n["enabled"]) d.enabled = r.boolean(v, join_path(path, "enabled"));
  u32("rpg_time_reset", d.rpg_time_reset, 1, 10'000'000, "us");
  u32("rpg_byte_reset", d.rpg_byte_reset, 0, 2'000'000'000, "bytes, 0: off");
  u32("rpg_threshold", d.rpg_threshold, 0, 31, "");
  u32("rpg_max_rate", d.rpg_max_rate, 0, kMaxRateMbps, "Mb/s, 0: line rate");
  u32("rpg_ai_rate", d.rpg_ai_rate, 0, kMaxRateMbps, "Mb/s");
  u32("rpg_hai_rate", d.rpg_hai_rate, 0, kMaxRateMbps, "Mb/s");
  u32("rpg_gd", d.rpg_gd, 1, 31, "cut = rate x alpha / 2^rpg_gd");
  u32("rpg_min_dec_fac", d.rpg_min_dec_fac, 0, 100, "%");
  u32("rpg_min_rate", d.rpg_min_rate, 1, kMaxRateMbps, "Mb/s");
  u32("rate_to_set_on_first_cnp", d.rate_to_set_on_first_cnp, 0, kMaxRateMbps, "Mb/s, 0: off");
  u32("dce_tcp_g", d.dce_tcp_g, 0, 1023, "of 1024");
  u32("dce_tcp_rtt", d.dce_tcp_rtt, 1, 131071, "us");
  u32("initial_alpha_value", d.initial_alpha_value, 0, 1023, "of 1024");
  u32("rate_reduce_monitor_period", d.rate_reduce_monitor_period, 0, 10'000'000, "us");
  if (const YAML::Node v = n["clamp_tgt_rate"])
    d.clamp_tgt_rate = r.boolean(v, join_path(path, "clamp_tgt_rate"));
  if (const YAML::Node v = n["clamp_tgt_rate_after_time_inc"])
    d.clamp_tgt_rate_after_time_inc =
        r.boolean(v, join_path(path, "clamp_tgt_rate_after_time_inc"));
  u32("min_time_between_cnps", d.min_time_between_cnps, 0, 10'000'000, "us");
  if (const YAML::Node v = n["cnp_dscp"])
    d.cnp_dscp = static_cast<uint8_t>(r.uint(v, join_path(path, "cnp_dscp"), 0, 63));
  if (const YAML::Node v = n["cnp_802p_prio"])
    d.cnp_802p_prio = static_cast<uint8_t>(r.uint(v, join_path(path, "cnp_802p_prio"), 0, 7));
}

}  // namespace

const char* loss_recovery_name(LossRecovery r) {
  return r == LossRecovery::kGoBackN ? "go_back_n" : "selective_repeat";
}

NicParams load_nic_params(const YAML::Node& nic, const std::string& where) {
  NicParams p;
  if (!nic.IsDefined() || nic.IsNull()) return p;
  const Reader r(where);
  const std::string path = "nic";
  r.keys(nic, path,
         {"mtu", "data_dscp", "data_priority", "ack_dscp", "ack_priority", "ack_interval",
          "local_ack_timeout", "loss_recovery", "sr_nak_delay", "sr_window", "dcqcn"});
  if (const YAML::Node v = nic["mtu"]) {
    const uint64_t m = r.uint(v, "nic.mtu", 256, 4096);
    if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
      r.fail("nic.mtu", yaml_show(v) + ": must be 256, 512, 1024, 2048 or 4096");
    p.mtu = static_cast<uint32_t>(m);
  }
  if (const YAML::Node v = nic["data_dscp"])
    p.data_dscp = static_cast<uint8_t>(r.uint(v, "nic.data_dscp", 0, 63));
  if (const YAML::Node v = nic["data_priority"])
    p.data_priority = static_cast<uint8_t>(r.uint(v, "nic.data_priority", 0, 7));
  if (const YAML::Node v = nic["ack_dscp"])
    p.ack_dscp = static_cast<uint8_t>(r.uint(v, "nic.ack_dscp", 0, 63));
  if (const YAML::Node v = nic["ack_priority"])
    p.ack_priority = static_cast<uint8_t>(r.uint(v, "nic.ack_priority", 0, 7));
  if (const YAML::Node v = nic["ack_interval"])
    p.ack_interval = static_cast<uint32_t>(r.uint(v, "nic.ack_interval", 1, 65536, "packets"));
  if (const YAML::Node v = nic["local_ack_timeout"])
    p.local_ack_timeout = static_cast<uint8_t>(
        r.uint(v, "nic.local_ack_timeout", 0, 31, "4.096 us x 2^value, 0: no timer"));
  if (const YAML::Node v = nic["loss_recovery"]) {
    const std::string& s = r.scalar(v, "nic.loss_recovery", "go_back_n or selective_repeat");
    if (s == "go_back_n")
      p.loss_recovery = LossRecovery::kGoBackN;
    else if (s == "selective_repeat")
      p.loss_recovery = LossRecovery::kSelectiveRepeat;
    else
      r.fail("nic.loss_recovery", yaml_show(v) + ": must be go_back_n or selective_repeat");
  }
  if (const YAML::Node v = nic["sr_nak_delay"])
    p.sr_nak_delay_ns = r.duration_ns(v, "nic.sr_nak_delay", kMaxDelayNs);
  if (const YAML::Node v = nic["sr_window"]) {
    const uint64_t w = r.uint(v, "nic.sr_window", 64, 1u << 22, "packets");
    if (w % 64 != 0) r.fail("nic.sr_window", yaml_show(v) + ": must be a multiple of 64");
    p.sr_window = static_cast<uint32_t>(w);
  }
  if (const YAML::Node v = nic["dcqcn"]) {
    if (!v.IsNull()) load_dcqcn(r, v, "nic.dcqcn", p.dcqcn);
  }
  return p;
}

}  // namespace rocelb
