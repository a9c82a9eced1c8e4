#include "dataplane/xdp/xdp_steering.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "dataplane/bpf/libbpf_messages.h"
#include "dataplane/forward/local_responder.h"
#include "dataplane/xdp/steer_abi.h"
#include "dataplane/xdp/xdp_object.h"

namespace rocelb {

namespace {

struct Attached {
  uint32_t prog_id = 0;
  uint8_t mode = 0;  // XDP_ATTACHED_*
  std::string name;
};

Attached attached_to(int ifindex) {
  Attached a;
  LIBBPF_OPTS(bpf_xdp_query_opts, q);
  if (bpf_xdp_query(ifindex, 0, &q) != 0) return a;
  a.mode = q.attach_mode;
  a.prog_id = q.prog_id ? q.prog_id : (q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id);
  if (!a.prog_id) return a;
  const int fd = bpf_prog_get_fd_by_id(a.prog_id);
  if (fd < 0) return a;
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) a.name = info.name;
  close(fd);
  return a;
}

// Detaches program prog_id from ifindex (only that one: XDP_FLAGS_REPLACE).
bool detach(int ifindex, const Attached& a) {
  const int fd = bpf_prog_get_fd_by_id(a.prog_id);
  if (fd < 0) return false;
  uint32_t flags = XDP_FLAGS_REPLACE;
  if (a.mode == XDP_ATTACHED_SKB)
    flags |= XDP_FLAGS_SKB_MODE;
  else if (a.mode == XDP_ATTACHED_DRV)
    flags |= XDP_FLAGS_DRV_MODE;
  else if (a.mode == XDP_ATTACHED_HW)
    flags |= XDP_FLAGS_HW_MODE;
  LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = fd);
  const int rc = bpf_xdp_detach(ifindex, flags, &opts);
  close(fd);
  return rc == 0;
}

// The map of program prog_id named `name` (an fd the caller closes), or -1.
int map_of(uint32_t prog_id, const char* name) {
  const int pfd = bpf_prog_get_fd_by_id(prog_id);
  if (pfd < 0) return -1;
  uint32_t ids[16] = {};
  bpf_prog_info info{};
  info.nr_map_ids = 16;
  info.map_ids = reinterpret_cast<uint64_t>(ids);
  uint32_t len = sizeof info;
  int found = -1;
  if (bpf_obj_get_info_by_fd(pfd, &info, &len) == 0)
    for (uint32_t i = 0; i < std::min<uint32_t>(info.nr_map_ids, 16) && found < 0; ++i) {
      const int mfd = bpf_map_get_fd_by_id(ids[i]);
      if (mfd < 0) continue;
      bpf_map_info mi{};
      uint32_t mlen = sizeof mi;
      if (bpf_obj_get_info_by_fd(mfd, &mi, &mlen) == 0 && std::strcmp(mi.name, name) == 0)
        found = mfd;
      else
        close(mfd);
    }
  close(pfd);
  return found;
}

const char* mode_name(XdpSteeringMode m) {
  return m == XdpSteeringMode::kAll ? "all" : m == XdpSteeringMode::kRoce ? "roce" : "off";
}

std::string key(uint16_t id) {
  return "ports[" + std::to_string(id) + "].xdp_steering";
}

}  // namespace

std::string device_iface(const std::string& device) {
  size_t at = 0;
  while ((at = device.find("iface=", at)) != std::string::npos) {
    if (at > 0 && device[at - 1] == ',') {
      const size_t end = device.find(',', at);
      return device.substr(at + 6, end == std::string::npos ? end : end - at - 6);
    }
    at += 6;
  }
  return "";
}

XdpSteering::XdpSteering(const ConfigParams& params) {
  for (const PortParams& p : params.ports) {
    if (p.xdp_steering == XdpSteeringMode::kOff) continue;
    Port port;
    port.id = p.id;
    port.mode = p.xdp_steering;
    port.iface = device_iface(p.device);
    const std::string where = params.source + ": " + key(p.id) + ": interface " + port.iface;
    port.ifindex = static_cast<int>(if_nametoindex(port.iface.c_str()));
    if (port.ifindex == 0) throw XdpError(where + ": no such interface");
    if (p.ipv4) {
      std::array<uint8_t, 16> a{};
      a[10] = a[11] = 0xff;
      std::memcpy(&a[12], p.ipv4->addr.b.data(), 4);
      port.own.push_back(a);
    }
    if (p.ipv6) {
      std::array<uint8_t, 16> a{};
      std::memcpy(a.data(), p.ipv6->addr.b.data(), 16);
      port.own.push_back(a);
    }
    std::array<uint8_t, 16> ll{};
    ipv6_link_local_from_mac(p.mac.b.data(), ll.data());
    port.own.push_back(ll);
    ports_.push_back(std::move(port));
  }
  if (ports_.empty()) return;
  const std::string first = params.source + ": " + key(ports_[0].id);
  if (xdp_steer_object_size() == 0)
    throw XdpError(first + ": this rocelb-dp was built without clang, so without its XDP program");

  keep_libbpf_messages();  // the verifier's log among them: its last line goes in the error
  // A program of ours left by a run that did not stop cleanly is detached;
  // anyone else's is left alone and refused.
  for (const Port& port : ports_) {
    const Attached a = attached_to(port.ifindex);
    if (!a.prog_id) continue;
    if (a.name != RL_STEER_PROG_NAME)
      throw XdpError(params.source + ": " + key(port.id) + ": interface " + port.iface +
                     " already has XDP program \"" + a.name + "\" (id " +
                     std::to_string(a.prog_id) + "); remove it first (ip link set dev " +
                     port.iface + " xdp off)");
    if (!detach(port.ifindex, a))
      throw XdpError(params.source + ": " + key(port.id) + ": cannot detach the XDP program " +
                     "an earlier run left on " + port.iface + ": " + std::strerror(errno));
    std::cerr << "rocelb-dp: detached the XDP program (id " << a.prog_id
              << ") an earlier run left on " << port.iface << "\n";
  }

  // The kernel verifies the program once here, so a refusal (no BPF
  // support, no CAP_BPF) is one line before any port starts.
  LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = RL_STEER_PROG_NAME);
  bpf_object* obj = bpf_object__open_mem(xdp_steer_object(), xdp_steer_object_size(), &oo);
  if (!obj) throw XdpError(first + ": cannot open the XDP program: " + last_libbpf_message());
  const int rc = bpf_object__load(obj);
  bpf_object__close(obj);
  if (rc != 0)
    throw XdpError(first + ": the kernel refused the XDP program: " + std::strerror(-rc) +
                   (last_libbpf_message().empty() ? "" : " (" + last_libbpf_message() + ")"));

  // DPDK's af_xdp PMD loads a program from a path: the memfd's.
  memfd_ = memfd_create("rocelb_steer.bpf.o", MFD_CLOEXEC);
  if (memfd_ < 0 || write(memfd_, xdp_steer_object(), xdp_steer_object_size()) !=
                        static_cast<ssize_t>(xdp_steer_object_size()))
    throw XdpError(first + ": cannot write the XDP program to a memfd: " + std::strerror(errno));
}

XdpSteering::~XdpSteering() {
  detach_all();
  if (memfd_ >= 0) close(memfd_);
}

XdpSteering::Port* XdpSteering::find(uint16_t id) {
  for (Port& p : ports_)
    if (p.id == id) return &p;
  return nullptr;
}

const XdpSteering::Port* XdpSteering::find(uint16_t id) const {
  for (const Port& p : ports_)
    if (p.id == id) return &p;
  return nullptr;
}

bool XdpSteering::steered(uint16_t id) const {
  return find(id) != nullptr;
}

std::string XdpSteering::devargs(uint16_t id) const {
  if (!find(id)) return "";
  return ",xdp_prog=/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(memfd_);
}

void XdpSteering::configure() {
  for (Port& port : ports_) {
    const std::string where = key(port.id) + ": interface " + port.iface;
    const Attached a = attached_to(port.ifindex);
    if (!a.prog_id || a.name != RL_STEER_PROG_NAME)
      throw XdpError(where + ": the XDP program is not attached after the port started");
    port.prog_id = a.prog_id;
    const int cfg_fd = map_of(a.prog_id, "rl_cfg");
    const int own_fd = map_of(a.prog_id, "rl_own");
    port.stats_fd = map_of(a.prog_id, "rl_stats");
    if (cfg_fd < 0 || own_fd < 0 || port.stats_fd < 0)
      throw XdpError(where + ": cannot open the XDP program's maps: " + std::strerror(errno));
    rl_steer_cfg cfg{};
    cfg.mode = port.mode == XdpSteeringMode::kAll ? RL_MODE_ALL : RL_MODE_ROCE;
    const uint32_t zero = 0;
    int rc = bpf_map_update_elem(cfg_fd, &zero, &cfg, BPF_ANY);
    const uint8_t one = 1;
    for (const auto& addr : port.own) {
      rl_own_addr k{};
      std::memcpy(k.addr, addr.data(), 16);
      if (rc == 0) rc = bpf_map_update_elem(own_fd, &k, &one, BPF_ANY);
    }
    close(cfg_fd);
    close(own_fd);
    if (rc != 0)
      throw XdpError(where + ": cannot configure the XDP program: " + std::strerror(errno));
  }
}

nlohmann::json XdpSteering::stats(uint16_t id) const {
  const Port* port = find(id);
  if (!port) return nullptr;
  nlohmann::json j;
  j["mode"] = mode_name(port->mode);
  j["interface"] = port->iface;
  j["program_id"] = port->prog_id;
  std::array<uint64_t, RL_NSTATS> packets{}, bytes{};
  const int ncpu = libbpf_num_possible_cpus();
  if (port->stats_fd >= 0 && ncpu > 0) {
    std::vector<rl_steer_stat> per_cpu(static_cast<size_t>(ncpu));
    for (uint32_t k = 0; k < RL_NSTATS; ++k)
      if (bpf_map_lookup_elem(port->stats_fd, &k, per_cpu.data()) == 0)
        for (const rl_steer_stat& s : per_cpu) {
          packets[k] += s.packets;
          bytes[k] += s.bytes;
        }
  }
  auto pb = [&](uint32_t k) {
    return nlohmann::json{{"packets", packets[k]}, {"bytes", bytes[k]}};
  };
  j["to_switch"] = {{"rocev2", pb(RL_ST_ROCEV2)},        {"rocev1", pb(RL_ST_ROCEV1)},
                    {"mac_ctrl", pb(RL_ST_MAC_CTRL)},    {"neighbor", pb(RL_ST_NEIGHBOR)},
                    {"own_address", pb(RL_ST_OWN_ADDR)}, {"all", pb(RL_ST_ALL)}};
  j["to_kernel"] = pb(RL_ST_PASSED);
  j["no_socket"] = pb(RL_ST_NO_SOCKET);
  return j;
}

void XdpSteering::detach_all() {
  for (Port& port : ports_) {
    if (port.stats_fd >= 0) close(port.stats_fd);
    port.stats_fd = -1;
    const Attached a = attached_to(port.ifindex);
    if (a.prog_id && a.name == RL_STEER_PROG_NAME) detach(port.ifindex, a);
  }
}

}  // namespace rocelb
