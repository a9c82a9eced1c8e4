// The conservation line `rocelbctl show counters` and rocelb-dp's console
// table end with: exact at rest, frames in flight while running, and the
// two ways it can fail said plainly.
#include "common/conservation_line.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace rocelb {
namespace {

using nlohmann::json;

std::string line(const json& t) {
  return conservation_line(t, [](uint64_t v) { return std::to_string(v); });
}

json totals(uint64_t rx, uint64_t tx, int64_t in_flight, bool running, bool conserved) {
  return {{"rx_packets", rx},
          {"generated_packets", 2},
          {"tx_packets", tx},
          {"consumed_packets", 1},
          {"dropped_packets", 1},
          {"queued_packets", 0},
          {"awaiting_device_packets", 0},
          {"in_flight_packets", in_flight},
          {"running", running},
          {"conserved", conserved}};
}

TEST(ConservationLine, AtRestItBalancesOrSaysHowManyAreUnaccounted) {
  EXPECT_EQ(line(totals(100, 100, 0, false, true)),
            "rx 100 + generated 2 = tx 100 + consumed 1 + dropped 1 + queued 0  (balanced)");
  EXPECT_EQ(line(totals(100, 97, 3, false, false)),
            "rx 100 + generated 2 = tx 97 + consumed 1 + dropped 1 + queued 0 + unaccounted 3  "
            "(NOT BALANCED)");
}

TEST(ConservationLine, RunningShowsInFlightAndADoubleCountIsAnError) {
  const std::string ok = line(totals(100, 90, 10, true, true));
  EXPECT_NE(ok.find("+ in flight 10  (running"), std::string::npos) << ok;
  const std::string twice = line(totals(100, 102, -2, true, false));
  EXPECT_NE(twice.find("+ in flight -2  (NOT BALANCED: counted twice)"), std::string::npos)
      << twice;
}

TEST(ConservationLine, AwaitingDeviceShownOnlyWhenThereAreSome) {
  json t = totals(100, 95, 0, true, true);
  t["awaiting_device_packets"] = 5;
  EXPECT_NE(line(t).find("+ queued 0 + awaiting device 5 + in flight 0"), std::string::npos)
      << line(t);
}

TEST(ConservationLine, CountersFromAnOlderSwitchStillRender) {
  const json t = {{"rx_packets", 5},       {"generated_packets", 0}, {"tx_packets", 5},
                  {"consumed_packets", 0}, {"dropped_packets", 0},   {"queued_packets", 0},
                  {"conserved", true}};
  EXPECT_EQ(line(t), "rx 5 + generated 0 = tx 5 + consumed 0 + dropped 0 + queued 0  (balanced)");
}

}  // namespace
}  // namespace rocelb
