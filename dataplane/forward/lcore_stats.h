// Where one worker lcore's time goes, as OVS's pmd-stats-show reports it:
// TSC cycles of loop iterations that did work (received or sent at least
// one packet) and of those that found nothing, the iterations themselves,
// and the packets received and sent. Cycles per packet = busy_cycles /
// rx_packets; the share of a core the switch really needs = busy / (busy +
// idle). Written by the worker once per loop iteration (one TSC read),
// read by the control thread (`rocelbctl show lcores`, counters.json,
// Prometheus). Names and help text are declared once here. With
// `--idle-sleep-max`, a worker that keeps finding nothing sleeps: sleeps and
// sleep_ns say how often and how long (time not in busy or idle cycles).
//
// Knobs: none. Counters: ROCELB_LCORE_COUNTERS below.
#pragma once

#include <string_view>

#include "common/counter.h"

namespace rocelb {

#define ROCELB_LCORE_COUNTERS(X)                                                            \
  X(busy_cycles, "TSC cycles of loop iterations that received or sent at least one packet") \
  X(idle_cycles, "TSC cycles of loop iterations that found nothing to receive or send")     \
  X(polls, "loop iterations (each polls every RX queue and transmits every owned port)")    \
  X(busy_polls, "loop iterations that received or sent at least one packet")                \
  X(rx_packets, "packets this worker received and ran through the pipeline")                \
  X(tx_packets, "packets this worker handed to the devices of the ports it transmits")      \
  X(sleeps, "times the worker slept when idle (run --idle-sleep-max)")                      \
  X(sleep_ns, "nanoseconds the worker slept when idle")

struct alignas(64) LcoreStats {
#define ROCELB_X(name, help) Counter name;
  ROCELB_LCORE_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

struct LcoreCounterInfo {
  std::string_view name;
  std::string_view help;
  Counter LcoreStats::*field;
};

inline constexpr LcoreCounterInfo kLcoreCounters[] = {
#define ROCELB_X(name, help) {#name, help, &LcoreStats::name},
    ROCELB_LCORE_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

}  // namespace rocelb
