// Brings up the DPDK EAL once per process. Replay and the tests need no
// hugepages, no PCI and no shared config, so several runs can go at once;
// live mode takes the user's EAL arguments and adds what the config's
// devices need (--vdev for net_* devices, -a for PCI addresses) and
// --no-huge when the machine has no free hugepages.
#pragma once

#include <string>
#include <vector>

namespace rocelb {

// Arguments for a process that only replays (no devices): no hugepages,
// `mem_mb` of memory, one lcore.
std::vector<std::string> eal_args_for_replay(unsigned mem_mb);

// Starts EAL with `args` (argv[0] is added). Throws std::runtime_error with
// DPDK's reason if it fails. Calling it again is a no-op.
void eal_start(const std::vector<std::string>& args);

bool eal_started();

// True if /proc/meminfo reports free hugepages.
bool hugepages_available();

}  // namespace rocelb

namespace rocelb {
struct ConfigParams;
// EAL arguments for live mode: the user's, plus a --vdev for every net_*
// device and -a for every PCI address in the config, plus --no-huge -m
// `no_huge_mb` when no hugepages are free (and the user gave no -m or
// --socket-mem), --no-pci when every device is virtual, and --no-shconf
// unless the user chose a --file-prefix.
std::vector<std::string> eal_args_for_live(const ConfigParams& cfg,
                                           const std::vector<std::string>& user,
                                           unsigned no_huge_mb = 1024);
}  // namespace rocelb
