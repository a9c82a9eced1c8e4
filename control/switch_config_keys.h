// The switch config's schema (control/key_schema.h): one row per key that
// control/config_loader.cc reads, with its kind, range, unit, default, one
// line of help and whether a change applies live or needs a restart
// (control/restart_keys.h refuses the kRestart ones on a running switch).
// The loader takes every per-key range and rule from these rows, and
// docs/reference/config-keys.md is generated from them (tools/docgen).
// No knobs, no counters.
#pragma once

#include "control/key_schema.h"

namespace rocelb {

const KeySchema& switch_config_schema();

}  // namespace rocelb
