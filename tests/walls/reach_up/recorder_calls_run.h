// A fixture for Walls.check_refuses_a_reach_up (tests/walls/CMakeLists.txt):
// a header in record/'s place that reaches up into run/. Never compiled.
#pragma once

#include "dataplane/forward/dataplane.h"
#include "dataplane/record/output_dir.h"
#include "dataplane/run/replay_run.h"
