// Live mode: poll-mode forwarding on DPDK ports (a NIC, or af_xdp / af_packet
// / tap / memif / pcap / null / ring vdevs).
//
// The RX queues of all ports are spread over the worker lcores, one (port,
// queue) pair after another (RSS spreads flows over a port's queues, so a
// flow stays on one lcore), and each worker runs the pipeline on what it
// receives; each port is transmitted by exactly one worker (its owner,
// ports dealt out in turn), through the port's scheduler and shaper, so
// egress queues build as on a real link of the configured speed. A worker
// hands packets to another worker's port through that port's egress queues
// and PFC frames through its pause inbox (dataplane.h). Every loop
// iteration: adopt the current config, receive and forward, transmit, and
// account its cycles (lcore_stats.h). With one lcore the main lcore forwards.
//
// Each port's device MTU is set to ports[].mtu at start.
//
// Link state: for ports whose link_detect is on (auto: every device but
// net_tap, net_null, net_ring and net_pcap), poll_links() reads the device's
// link (af_xdp and af_packet: their kernel interface's carrier, as those
// PMDs report up from start to stop) and takes the port down or up with it (Dataplane::set_link_up:
// a down port is a down member of every group, as admin_status: down).
//
// Knobs (LiveOptions): descriptors per queue, mbufs, shaper burst, how long
// a refused frame may wait (tx_stall_ns).
// Counters: all of the Dataplane's, plus tx_failed for frames a device
// refused for tx_stall_ns or had not taken when the port stopped.
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dataplane/forward/dataplane.h"
#include "dataplane/record/counters_json.h"

namespace rocelb {

// The smallest pool an af_xdp port can receive into: DPDK 22.11's PMD puts
// 2,048 mbufs in the socket's fill ring when the device starts, and a pool
// of 2,047 is refused (EINVAL); 4,095 works.
inline constexpr unsigned kAfXdpMinPoolMbufs = 4095;

struct LiveOptions {
  unsigned rx_desc = 1024;
  unsigned tx_desc = 1024;
  // The switch's packet pool (rocelb-dp run --mbufs N). Each af_xdp port
  // receives into a pool of its own: half as many, at least
  // kAfXdpMinPoolMbufs (set_mbufs).
  unsigned pool_mbufs = 32767;
  unsigned xdp_pool_mbufs = 16383;
  uint64_t shaper_burst_ns = 10'000;  // a port may send this much ahead of line rate
  unsigned ring_capacity = 16384;     // packets per egress queue ring
  // A frame the device has refused for this long is dropped (tx_failed), so
  // no frame can hold its port forever (one the device will never take: too
  // big for it, a broken link). Longer than any pause a NIC honours itself.
  uint64_t tx_stall_ns = 100'000'000;
  // Polling that sleeps when idle (OVS: pmd-sleep-max). After idle_polls
  // loop iterations in a row that received and sent nothing with nothing
  // queued, a worker sleeps 1 us, then twice as long each idle iteration
  // after, up to idle_sleep_max_ns; any work resets it. 0: never sleep (the
  // default: lowest latency, a whole core per worker). A sleeping worker
  // adds up to idle_sleep_max_ns to the first packet after a quiet spell.
  uint64_t idle_sleep_max_ns = 0;
  unsigned idle_polls = 100;

  void set_mbufs(unsigned n) {
    pool_mbufs = n;
    xdp_pool_mbufs = n / 2 > kAfXdpMinPoolMbufs ? n / 2 : kAfXdpMinPoolMbufs;
  }
};

// DPDK ethdev name of a config device string: the part before the first ','.
std::string device_name(const std::string& device);

class LiveRun {
 public:
  // EAL must be up with the devices probed. Opens, configures and starts
  // every port of the config; throws std::runtime_error naming the port and
  // device on failure.
  LiveRun(std::unique_ptr<SwitchConfig> config, const LiveOptions& opt);
  ~LiveRun();

  // Launches the workers on the EAL worker lcores (or, with none, runs one
  // worker on the calling thread until stop is requested) and returns once
  // they are running / have stopped. Runs once; a stop requested before it
  // holds (the workers return at once).
  void start();
  // Asks the workers to stop (async-signal-safe); wait() waits for them.
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  void wait();
  bool runs_on_main() const { return nworkers_on_main_; }

  Json counters() const;
  // The switch's clock (TSC) in nanoseconds.
  uint64_t now_ns() const;
  // Publishes a new config (Dataplane::apply) while readers on other
  // threads (DPDK telemetry) are kept off the epoch being retired.
  void apply(std::unique_ptr<SwitchConfig> next);
  // Stops the ports and frees every mbuf the switch still holds. Returns the
  // pool's in-use count afterwards (0 when nothing leaked). af_xdp ports
  // receive into pools of their own, whose mbufs DPDK 22.11's PMD keeps in
  // its rings even after close: held_by_devices() counts those, apart.
  unsigned shutdown();

  // Reads the link of every port that follows its device (control thread;
  // rte_eth_link_get_nowait) and applies a change. Returns how many changed.
  unsigned poll_links();
  bool follows_link(uint16_t port) const { return follows_link_[port]; }

  // The XDP steering of the AF_XDP ports (null when none): its counters
  // show in `show ports` and the metrics.
  void set_xdp(const class XdpSteering* xdp) { xdp_ = xdp; }
  const class XdpSteering* xdp() const { return xdp_; }

  unsigned held_by_devices() const;

  Dataplane& dataplane() { return *dp_; }
  rte_mempool* pool() const { return pool_; }
  // Mbufs of each af_xdp port's own pool; 0 when no port is af_xdp.
  unsigned xdp_pool_mbufs() const {
    return device_pools_.empty() ? 0 : device_pools_.front()->size;
  }

 private:
  struct Worker;
  // Set-up, in the constructor's order.
  void pick_lcores();
  void make_pool(const LiveOptions& opt);
  void open_port(uint16_t id, const LiveOptions& opt, unsigned& rx_next);
  void check_pool_left(const LiveOptions& opt) const;
  static int worker_main(void* arg);
  uint64_t tsc_to_ps(uint64_t tsc) const;
  void run_worker(unsigned w);
  uint32_t transmit(Worker& wk, uint16_t port, uint64_t now_ps, rte_mbuf** burst,
                    uint64_t* start_ps);
  void drop_refused(Worker& wk, uint16_t port, uint64_t now_ns);
  // Nothing queued or awaiting a device on the ports w transmits.
  bool nothing_to_send(const Worker& wk) const;

  std::unique_ptr<Dataplane> dp_;
  rte_mempool* pool_ = nullptr;
  std::array<uint16_t, kMaxPorts> eth_of_{};  // config port id → DPDK port id
  std::array<uint16_t, kMaxPorts> nrxq_{};
  std::array<bool, kMaxPorts> follows_link_{};
  std::array<std::string, kMaxPorts> link_iface_;  // kernel interface whose carrier is read
  int link_sock_ = -1;                             // for SIOCGIFFLAGS
  const class XdpSteering* xdp_ = nullptr;
  std::vector<unsigned> lcores_;  // lcore of each worker
  std::vector<std::unique_ptr<Worker>> workers_;
  bool nworkers_on_main_ = false;
  bool stopped_ports_ = false;
  std::vector<rte_mempool*> device_pools_;  // af_xdp ports' RX pools
  uint64_t ps_mult_ = 0;                    // TSC → picoseconds, 32.32 fixed point
  uint64_t tx_stall_ns_ = 0;
  uint64_t idle_sleep_max_ns_ = 0;
  unsigned idle_polls_ = 100;
  std::atomic<bool> stop_{false};
  // apply() against counters() from the telemetry thread; never taken by a
  // forwarding lcore.
  mutable std::mutex control_mutex_;
};

}  // namespace rocelb
