#include "dataplane/run/eal.h"

#include "dataplane/run/dpdk_log_limiter.h"

#include <rte_eal.h>
#include <rte_errno.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace rocelb {
namespace {
bool g_started = false;
}

std::vector<std::string> eal_args_for_replay(unsigned mem_mb) {
  return {"--no-huge", "-m", std::to_string(mem_mb), "--no-shconf", "--no-pci",    "--no-telemetry",
          "-l",        "0",  "--log-level",          "lib.*:error", "--log-level", "pmd.*:error"};
}

void eal_start(const std::vector<std::string>& args) {
  if (g_started) return;
  // A line DPDK logs per packet (the eBPF interpreter's division by zero)
  // is written once and then counted.
  install_dpdk_log_limiter(stderr);
  std::vector<std::string> storage;
  storage.push_back("rocelb");
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  int rc = rte_eal_init(static_cast<int>(storage.size()), argv.data());
  if (rc < 0)
    throw std::runtime_error(std::string("cannot start DPDK EAL: ") + rte_strerror(rte_errno));
  g_started = true;
}

bool eal_started() {
  return g_started;
}

bool hugepages_available() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  long value = 0;
  while (f >> key >> value) {
    if (key == "HugePages_Free:") return value > 0;
    f.ignore(256, '\n');
  }
  return false;
}

}  // namespace rocelb

#include <algorithm>

#include "control/config_params.h"

namespace rocelb {

std::vector<std::string> eal_args_for_live(const ConfigParams& cfg,
                                           const std::vector<std::string>& user,
                                           unsigned no_huge_mb) {
  std::vector<std::string> a = user;
  auto has = [&](const std::string& flag) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& s) {
      return s == flag || s.rfind(flag + "=", 0) == 0;
    });
  };
  bool all_virtual = true;
  for (const auto& p : cfg.ports) {
    if (p.device.empty()) continue;
    const bool vdev = p.device.rfind("net_", 0) == 0;
    all_virtual = all_virtual && vdev;
    const std::string flag = vdev ? "--vdev" : "-a";
    bool present = false;
    for (size_t i = 0; i + 1 < a.size(); ++i)
      if (a[i] == flag && a[i + 1] == p.device) present = true;
    if (std::find(a.begin(), a.end(), flag + "=" + p.device) != a.end()) present = true;
    if (!present) {
      a.push_back(flag);
      a.push_back(p.device);
    }
  }
  if (!has("--no-huge") && !hugepages_available()) {
    a.push_back("--no-huge");
    if (!has("-m") && !has("--socket-mem")) {
      a.push_back("-m");
      a.push_back(std::to_string(no_huge_mb));
    }
  }
  if (all_virtual && !has("--no-pci") && !has("-a") && !has("--allow")) a.push_back("--no-pci");
  if (!has("--file-prefix") && !has("--no-shconf")) a.push_back("--no-shconf");
  if (!has("-l") && !has("--lcores") && !has("-c")) {
    a.push_back("-l");
    a.push_back(std::thread::hardware_concurrency() > 1 ? "0-1" : "0");
  }
  return a;
}

}  // namespace rocelb
