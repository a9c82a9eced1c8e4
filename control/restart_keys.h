// Which change of the switch config a running switch refuses: the rows of
// switch_config_schema() marked Applies::kRestart hold what is fixed when
// the switch starts (its set of ports; a port's device, MTU, XDP steering
// and link source). restart_needed() compares the running params with the
// new ones row by row, ports matched by id, and names the first change:
//   "ports[4].mtu changed: restart the switch to change it"
//   "the set of ports changed: restart the switch to add or remove ports"
// or returns "" when the change can be applied live. A kRestart row it
// cannot compare is a bug (logic_error), so a new restart key needs its
// comparison here. No knobs, no counters.
#pragma once

#include <string>

#include "control/config_params.h"

namespace rocelb {

std::string restart_needed(const ConfigParams& running, const ConfigParams& next);

}  // namespace rocelb
