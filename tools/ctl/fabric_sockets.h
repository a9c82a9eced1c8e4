// The control sockets of a fabric's switches, for `rocelbctl --fabric FILE`:
// FILE is a fabric in the explicit form (`switches: {NAME: CONFIG.yaml}`,
// as `rocelb-dp fabric --export` and tools/fabric-live write it); each
// switch's socket is its config's control.socket (relative configs are read
// from FILE's folder; no control.socket: the default socket). In the order
// the file lists the switches. No knobs, no counters.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rocelb {

struct FabricSwitchSocket {
  std::string name;
  std::string socket;
};

// The switches and their sockets, or nullopt with one line in *why naming
// the file and key that is wrong.
std::optional<std::vector<FabricSwitchSocket>> fabric_sockets(const std::string& file,
                                                              std::string* why);

}  // namespace rocelb
