#include "dataplane/sim/nic_params.h"

#include "control/yaml_util.h"

namespace rocelb {
namespace {

void load_dcqcn(const KeyReader::Map& m, DcqcnParams& d) {
  m.read("enabled", d.enabled);
  m.read("rpg_time_reset", d.rpg_time_reset);
  m.read("rpg_byte_reset", d.rpg_byte_reset);
  m.read("rpg_threshold", d.rpg_threshold);
  m.read("rpg_max_rate", d.rpg_max_rate);
  m.read("rpg_ai_rate", d.rpg_ai_rate);
  m.read("rpg_hai_rate", d.rpg_hai_rate);
  m.read("rpg_gd", d.rpg_gd);
  m.read("rpg_min_dec_fac", d.rpg_min_dec_fac);
  m.read("rpg_min_rate", d.rpg_min_rate);
  m.read("rate_to_set_on_first_cnp", d.rate_to_set_on_first_cnp);
  m.read("dce_tcp_g", d.dce_tcp_g);
  m.read("dce_tcp_rtt", d.dce_tcp_rtt);
  m.read("initial_alpha_value", d.initial_alpha_value);
  m.read("rate_reduce_monitor_period", d.rate_reduce_monitor_period);
  std::string rule;
  if (m.read("rate_reduce_mode", rule)) d.reduce_periodic = rule == "periodic";
  if (m.read("rpg_increase", rule)) d.increase_by_timer = rule == "timer";
  m.read("clamp_tgt_rate", d.clamp_tgt_rate);
  m.read("clamp_tgt_rate_after_time_inc", d.clamp_tgt_rate_after_time_inc);
  m.read("min_time_between_cnps", d.min_time_between_cnps);
  m.read("cnp_on_nak", d.cnp_on_nak);
  std::string mode;
  if (m.read("cnp_mode", mode)) d.cnp_in_ack = mode == "ack";
  m.read("cnp_dscp", d.cnp_dscp);
  m.read("cnp_802p_prio", d.cnp_802p_prio);
}

}  // namespace

const char* loss_recovery_name(LossRecovery r) {
  return r == LossRecovery::kGoBackN ? "go_back_n" : "selective_repeat";
}

NicParams load_nic_params(const YAML::Node& nic, const KeyOrigin& origin) {
  NicParams p;
  if (!nic.IsDefined() || nic.IsNull()) return p;
  const KeyReader r(nic_schema(), origin,
                    [](const std::string& message) { throw NicParamsError(message); });
  r.check_utf8(nic, "nic");
  const KeyReader::Map m = r.map(nic, "nic", "nic");
  std::string framing;
  if (m.read("framing", framing) && framing == "ns3") p.framing = WireFraming::ns3();
  if (m.read("mtu", p.mtu) && p.framing == WireFraming{} && p.mtu != 256 && p.mtu != 512 &&
      p.mtu != 1024 && p.mtu != 2048 && p.mtu != 4096)
    r.fail_value(m.at("mtu"), *m.get("mtu"),
                 "must be 256, 512, 1024, 2048 or 4096 (framing ethernet: the IB path MTUs)");
  m.read("data_dscp", p.data_dscp);
  m.read("data_priority", p.data_priority);
  uint8_t v = 0;
  if (m.read("ack_dscp", v)) p.ack_dscp = v;
  if (m.read("ack_priority", v)) p.ack_priority = v;
  m.read("ack_interval", p.ack_interval);
  m.read("local_ack_timeout", p.local_ack_timeout);
  std::string lr;
  if (m.read("loss_recovery", lr))
    p.loss_recovery = lr == "go_back_n" ? LossRecovery::kGoBackN : LossRecovery::kSelectiveRepeat;
  m.read("sr_nak_delay", p.sr_nak_delay_ns);
  m.read("nak_interval", p.nak_interval_ns);
  m.read("max_inflight", p.max_inflight_bytes);
  if (m.read("sr_window", p.sr_window) && p.sr_window % 64 != 0)
    r.fail_value(m.at("sr_window"), *m.get("sr_window"), "must be a multiple of 64");
  if (m.has("dcqcn")) load_dcqcn(m.map("dcqcn"), p.dcqcn);
  return p;
}

NicParams load_nic_params(const YAML::Node& nic, const std::string& where) {
  return load_nic_params(nic, KeyOrigin{where, {}});
}

}  // namespace rocelb
