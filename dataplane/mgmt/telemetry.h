// DPDK telemetry commands for the live switch, so `dpdk-telemetry.py` shows
// rocelb's counters like any DPDK application's:
//   /rocelb/ports            port ids
//   /rocelb/port,<id>        that port's counters, drops as drops/<reason>
//   /rocelb/queues,<id>      its queues: tc<N>/<counter>
//   /rocelb/pfc,<id>         PFC received/sent per priority: <counter>/p<N>,
//                            and the watchdog: watchdog/tc<N>/<counter>
//   /rocelb/groups           per group: <group>/<counter>, <group>/m<K>/packets|bytes
// Values come from the same counters JSON every reader uses (counters.h
// names). Runs on DPDK's telemetry thread, never on a worker lcore.
#pragma once

namespace rocelb {

class LiveRun;

// Registers the commands (once per process) and points them at `live`;
// nullptr detaches (the commands then answer with an empty dict).
void telemetry_attach(LiveRun* live);

}  // namespace rocelb
