// Scheduled link faults for a replay: `--event TIME:PORT:down|up` takes
// PORT's link down (or back up) at TIME of virtual time, counted from the
// run's time zero (the earliest input timestamp). While a link is down the
// port is a down member of every group, frames queued on it and frames
// sent to it are dropped (link_down), and frames arriving on it from its
// input are lost on the wire (not received; counted per input as
// frames_lost_link_down). Dataplane::set_link_up does the switch's part.
//
// TIME: a duration with a unit (2ms, 500us, 1500ns, 0s). PORT: port<ID>,
// <ID>, or the port's name from the config (spine0). Knobs: none.
// Counters: per port link_changes (counters.json ports[].link_changes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/forward/switch_config.h"

namespace rocelb {

struct LinkEvent {
  uint64_t t_ns = 0;  // from the run's time zero
  uint16_t port = 0;
  bool up = false;
  std::string spec;  // as the user wrote it
};

// Parses one --event value; throws ReplayError (replay_run.h) naming the
// value and the rule it breaks.
LinkEvent parse_link_event(const std::string& spec, const SwitchConfig& cfg);

// Every value, parsed and sorted by time (equal times keep their order).
std::vector<LinkEvent> parse_link_events(const std::vector<std::string>& specs,
                                         const SwitchConfig& cfg);

}  // namespace rocelb
