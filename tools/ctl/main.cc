// rocelbctl: the operator's command line for a running rocelb switch
// (`rocelb-dp run`): show its state, change its config, clear its counters
// and watch it live, over the control socket (control/control-protocol.md).
// The commands and exit codes are in tools/ctl/ctl_commands.h.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "tools/ctl/ctl_commands.h"

int main(int argc, char** argv) {
  const char* env = std::getenv("ROCELB_SOCKET");
  const rocelb::CtlContext ctx{std::cout, std::cerr, isatty(STDOUT_FILENO) == 1, env ? env : ""};
  return rocelb::run_ctl(std::vector<std::string>(argv + 1, argv + argc), ctx);
}
