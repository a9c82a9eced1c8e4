// AF_XDP ports that share their interface with the kernel: rocelb's XDP
// steering program (rocelb_steer.bpf.c) on every port with
// ports[].xdp_steering roce or all (README.md in this folder).
//
// Before EAL starts, the constructor checks each such port (an AF_XDP
// device with iface=, an interface that exists, no other XDP program on
// it), detaches a rocelb program a crashed run left attached (said once on
// stderr), has the kernel load and verify the embedded program once, so a
// refusal is one clear error before any port starts, and puts the program
// in a memfd that DPDK's af_xdp PMD loads and attaches (devargs()). Once the
// ports started, configure() finds the attached program by interface
// through libbpf and writes its mode and the port's own addresses (IPv4,
// IPv6, EUI-64 link-local) to its maps. stats() reads its per-CPU counters
// back. The destructor detaches what is still attached.
//
// Errors: XdpError, naming ports[N].xdp_steering and the interface.
// Counters (per port, from the program): frames to the switch by reason
// (rocev2, rocev1, mac_ctrl, neighbor, own_address, all), to the kernel
// (passed), and meant for the switch with no socket bound (no_socket).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/config_params.h"

namespace rocelb {

class XdpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The interface named by a device string's iface= argument ("" if none).
std::string device_iface(const std::string& device);

class XdpSteering {
 public:
  explicit XdpSteering(const ConfigParams& params);
  ~XdpSteering();
  XdpSteering(const XdpSteering&) = delete;
  XdpSteering& operator=(const XdpSteering&) = delete;

  // The devargs to append to port id's device for EAL ("" when not steered).
  std::string devargs(uint16_t id) const;
  // After the ports started: finds each attached program, writes its maps.
  void configure();
  bool steered(uint16_t id) const;
  // {"mode", "interface", "program_id", "to_switch": {reason: {packets,
  // bytes}}, "to_kernel": {packets, bytes}, "no_socket": {packets, bytes}}.
  nlohmann::json stats(uint16_t id) const;
  // Detaches every program still attached (also done by the destructor).
  void detach_all();

 private:
  struct Port {
    uint16_t id = 0;
    XdpSteeringMode mode = XdpSteeringMode::kOff;
    std::string iface;
    int ifindex = 0;
    std::vector<std::array<uint8_t, 16>> own;  // own addresses, IPv4 as ::ffff:a.b.c.d
    uint32_t prog_id = 0;
    int stats_fd = -1;
  };
  Port* find(uint16_t id);
  const Port* find(uint16_t id) const;

  std::vector<Port> ports_;
  int memfd_ = -1;
};

}  // namespace rocelb
