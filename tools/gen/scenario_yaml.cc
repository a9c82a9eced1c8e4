#include "tools/gen/scenario_yaml.h"

#include <sstream>

#include "control/units.h"

namespace rocelb {
namespace {

const char* op_name(RoceOp op) {
  switch (op) {
    case RoceOp::kWrite:
      return "write";
    case RoceOp::kSend:
      return "send";
    case RoceOp::kReadRequest:
      return "read_request";
    case RoceOp::kReadResponse:
      return "read_response";
  }
  return "write";
}

const char* ecn_name(uint8_t ecn) {
  static constexpr const char* kNames[] = {"not_ect", "ect1", "ect0", "ce"};
  return kNames[ecn & 3];
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

void write_flow(std::ostringstream& os, const FlowParams& f) {
  os << "  - {name: " << f.name << ", in_port: " << f.in_port << ", src: " << to_string(f.src)
     << ", dst: " << to_string(f.dst) << ", sport: " << f.sport << ", dest_qp: " << hex(f.dest_qp)
     << ",\n     op: " << op_name(f.op) << ", message: " << yaml_bytes(f.message_bytes);
  if (f.messages != 1) os << ", messages: " << f.messages;
  if (f.gap_ns != 0) os << ", gap: " << yaml_duration(f.gap_ns);
  os << ", mtu: " << f.mtu << ", rate: " << format_speed_bps(f.rate_bps)
     << ", start: " << yaml_duration(f.start_ns) << ", dscp: " << int(f.dscp);
  if (f.ecn != 2) os << ", ecn: " << ecn_name(f.ecn);
  if (f.pcp) os << ", pcp: " << int(*f.pcp);
  if (f.vlan) os << ", vlan: " << *f.vlan;
  if (f.psn != 0) os << ", psn: " << f.psn;
  if (f.copies != 1) os << ", copies: " << f.copies;
  os << "}\n";
}

void write_pfc(std::ostringstream& os, const PfcSourceParams& p) {
  os << "  - {name: " << p.name << ", in_port: " << p.in_port << ", priorities: [";
  bool first = true;
  for (int prio = 0; prio < 8; ++prio) {
    if (!(p.class_enable & (1u << prio))) continue;
    os << (first ? "" : ", ") << prio;
    first = false;
  }
  os << "], quanta: " << p.quanta << ", start: " << yaml_duration(p.start_ns)
     << ", interval: " << yaml_duration(p.interval_ns) << ", count: " << p.count << "}\n";
}

}  // namespace

std::string yaml_bytes(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes);
}

std::string yaml_duration(uint64_t ns) {
  if (ns == 0) return "0";
  static constexpr struct {
    uint64_t ns;
    const char* unit;
  } kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}};
  for (const auto& u : kUnits)
    if (ns % u.ns == 0) return std::to_string(ns / u.ns) + u.unit;
  return std::to_string(ns) + "ns";
}

std::string scenario_to_yaml(const ScenarioParams& sc, const std::string& comment) {
  std::ostringstream os;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);)
    os << (line.empty() ? "#" : "# " + line) << "\n";
  os << "base_time: " << yaml_duration(sc.base_time_ns) << "\n";
  os << "seed: " << sc.seed << "\n";
  os << "flows:\n";
  for (const auto& f : sc.flows) write_flow(os, f);
  if (!sc.pfc.empty()) {
    os << "pfc:\n";
    for (const auto& p : sc.pfc) write_pfc(os, p);
  }
  return os.str();
}

}  // namespace rocelb
