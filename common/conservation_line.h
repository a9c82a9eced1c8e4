// The counters' conservation equation in one line, from the "totals" object
// of counters.json (any nlohmann JSON type), with numbers rendered by `num`:
//   rx R + generated G = tx T + consumed C + dropped D + queued Q
//   [+ awaiting device A] + in flight F  (running: ...)     live, running
//   ...  (balanced | NOT BALANCED)                           at rest
// At rest the equation must hold exactly; while workers run, in flight is
// what they held during the read (never negative). Shared by the console
// table (rocelb-dp) and `rocelbctl show counters`. No knobs, no counters.
#pragma once

#include <cstdint>
#include <string>

namespace rocelb {

template <class JsonT, class Num>
std::string conservation_line(const JsonT& t, Num num) {
  const auto u = [&](const char* k) { return num(t.value(k, uint64_t{0})); };
  std::string out = "rx " + u("rx_packets") + " + generated " + u("generated_packets") + " = tx " +
                    u("tx_packets") + " + consumed " + u("consumed_packets") + " + dropped " +
                    u("dropped_packets") + " + queued " + u("queued_packets");
  if (t.value("awaiting_device_packets", uint64_t{0}) != 0)
    out += " + awaiting device " + u("awaiting_device_packets");
  const int64_t in_flight = t.value("in_flight_packets", int64_t{0});
  std::string signed_in_flight = num(static_cast<uint64_t>(in_flight < 0 ? -in_flight : in_flight));
  if (in_flight < 0) signed_in_flight.insert(0, 1, '-');
  const bool conserved = t.value("conserved", false);
  if (t.value("running", false)) {
    out += " + in flight " + signed_in_flight +
           (conserved ? "  (running: in flight is what the workers held during the read)"
                      : "  (NOT BALANCED: counted twice)");
  } else {
    if (in_flight != 0) out += " + unaccounted " + signed_in_flight;
    out += conserved ? "  (balanced)" : "  (NOT BALANCED)";
  }
  return out;
}

}  // namespace rocelb
