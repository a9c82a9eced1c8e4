#include "dataplane/run/live_run.h"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <stdexcept>

#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/pipeline.h"
#include "dataplane/xdp/xdp_steering.h"

namespace rocelb {

std::string device_name(const std::string& device) {
  return device.substr(0, device.find(','));
}

// What one worker lcore polls and transmits.
struct LiveRun::Worker {
  LiveRun* owner = nullptr;
  unsigned index = 0;
  std::vector<std::pair<uint16_t, uint16_t>> rx;  // (config port, rx queue)
  std::vector<uint16_t> tx;                       // config ports this worker transmits
  // Frames the device did not take yet, per owned port, and their lengths
  // (a device may free a frame it took before we read it again).
  std::array<std::array<rte_mbuf*, kMaxBurst>, kMaxPorts> pending{};
  std::array<std::array<uint32_t, kMaxBurst>, kMaxPorts> pending_len{};
  std::array<uint16_t, kMaxPorts> npending{};
  // Since when the device has taken none of them (0: it took some last time).
  std::array<uint64_t, kMaxPorts> refused_since_ns{};

  // Removes the first k frames waiting for `port` (sent, or dropped).
  void drop_front(uint16_t port, uint16_t k) {
    uint16_t& np = npending[port];
    for (uint16_t i = k; i < np; ++i) {
      pending[port][i - k] = pending[port][i];
      pending_len[port][i - k] = pending_len[port][i];
    }
    np = static_cast<uint16_t>(np - k);
  }
};

namespace {

// Mbufs of the switch's pool that must stay free once every RX ring that
// takes from it is filled: what the switch can hold in its queues.
constexpr unsigned kMinFreeMbufs = 1024;

// At stop, at most this many bursts are read from each RX queue and freed.
constexpr int kDrainBursts = 1024;

// ports[].link_detect auto: devices without a link of their own to read
// (null, ring, pcap) and net_tap, whose interface reads down once it is
// moved to a host's namespace, keep the link up.
bool follows_device_link(const PortConfig& pc, LinkDetect d) {
  if (d != LinkDetect::kAuto) return d == LinkDetect::kOn;
  for (const char* p : {"net_tap", "net_null", "net_ring", "net_pcap"})
    if (pc.device.rfind(p, 0) == 0) return false;
  return true;
}

// PFC frames (MAC control, 0x8808) must reach the switch. A NIC's PMD with
// flow control gets mac_ctrl_frame_fwd; where the frames may not be seen,
// the reason (empty: nothing to say). Virtual devices pass every frame; a
// kernel-backed port on a physical NIC depends on its driver.
std::string enable_mac_ctrl_frames(uint16_t eth, const std::string& device) {
  const bool vdev = device.rfind("net_", 0) == 0;
  if (!vdev) {
    rte_eth_fc_conf fc{};
    int rc = rte_eth_dev_flow_ctrl_get(eth, &fc);
    if (rc == 0) {
      fc.mac_ctrl_frame_fwd = 1;
      rc = rte_eth_dev_flow_ctrl_set(eth, &fc);
    }
    if (rc == 0) return "";
    return std::string("the device cannot forward MAC control frames (") + rte_strerror(-rc) +
           "): PFC frames from its peer may never reach the switch";
  }
  const std::string iface = device_iface(device);
  if ((is_af_xdp_device(device) || is_af_packet_device(device)) && !iface.empty() &&
      access(("/sys/class/net/" + iface + "/device").c_str(), F_OK) == 0)
    return "interface " + iface +
           " is a physical NIC: PFC frames from its peer reach the switch only if its driver "
           "passes MAC control frames up (most consume them: see README, Running on a real NIC)";
  return "";
}

uint16_t find_eth_port(const std::string& name) {
  uint16_t id;
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) == 0) return id;
  RTE_ETH_FOREACH_DEV(id) {
    rte_eth_dev_info info;
    if (rte_eth_dev_info_get(id, &info) == 0 && info.device && name == rte_dev_name(info.device))
      return id;
  }
  return RTE_MAX_ETHPORTS;
}

// What to add to an ENOMEM from a device that fills its RX ring from
// `pool`, an AF_XDP port's own pool when `own_pool`.
std::string pool_hint(const rte_mempool* pool, bool own_pool) {
  return " (its pool of " + std::to_string(pool->size) + " mbufs is too small: raise --mbufs" +
         (own_pool ? ", which gives each AF_XDP port half as many, at least " +
                         std::to_string(kAfXdpMinPoolMbufs)
                   : std::string()) +
         ")";
}

}  // namespace

namespace {

// One port's device, looked up, configured (RSS over up to one RX queue per
// worker, scatter and multi-segment TX where offered, the MTU) and not yet
// started.
struct Device {
  std::string where;  // "port 3 (leaf-3)"
  std::string name;   // its ethdev name
  uint16_t eth = RTE_MAX_ETHPORTS;
  uint16_t nrxq = 1;
  rte_eth_conf conf{};
  rte_eth_dev_info info{};
};

Device configure_device(uint16_t id, const PortConfig& pc, unsigned workers) {
  Device d;
  d.where = "port " + std::to_string(id) + " (" + pc.name + ")";
  if (pc.device.empty())
    throw std::runtime_error(d.where + ": no device: set ports[].device for live mode");
  d.name = device_name(pc.device);
  d.eth = find_eth_port(d.name);
  if (d.eth == RTE_MAX_ETHPORTS)
    throw std::runtime_error(d.where + ": device \"" + d.name + "\" not found by DPDK");
  if (int rc = rte_eth_dev_info_get(d.eth, &d.info); rc != 0)
    throw std::runtime_error(d.where + ": cannot query device: " + rte_strerror(-rc));
  d.nrxq = static_cast<uint16_t>(std::min<unsigned>(workers, d.info.max_rx_queues));
  if (d.nrxq == 0) d.nrxq = 1;
  rte_eth_conf& conf = d.conf;
  if (d.nrxq > 1) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf =
        (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) & d.info.flow_type_rss_offloads;
    if (conf.rx_adv_conf.rss_conf.rss_hf == 0) {  // no RSS: one queue, one poller
      conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
      d.nrxq = 1;
    }
  }
  if (d.info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
    conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
  if (d.info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
    conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
  if (pc.mtu < d.info.min_mtu || pc.mtu > d.info.max_mtu)
    throw std::runtime_error(d.where + ": mtu " + std::to_string(pc.mtu) + ": device \"" + d.name +
                             "\" takes " + std::to_string(d.info.min_mtu) + ".." +
                             std::to_string(d.info.max_mtu) + " (ports[].mtu)");
  conf.rxmode.mtu = pc.mtu;
  if (int rc = rte_eth_dev_configure(d.eth, d.nrxq, 1, &conf); rc != 0)
    throw std::runtime_error(d.where + ": cannot configure device \"" + d.name +
                             "\": " + rte_strerror(-rc));
  // Devices backed by a kernel interface (tap, af_packet) apply it there.
  if (int rc = rte_eth_dev_set_mtu(d.eth, static_cast<uint16_t>(pc.mtu)); rc != 0 && rc != -ENOTSUP)
    throw std::runtime_error(d.where + ": cannot set the MTU of device \"" + d.name + "\" to " +
                             std::to_string(pc.mtu) + ": " + rte_strerror(-rc));
  return d;
}

// Its RX queues (filled from rx_pool, the switch's or an af_xdp port's own
// when own_pool) and its one TX queue.
void setup_queues(const Device& d, const LiveOptions& opt, rte_mempool* rx_pool, bool own_pool) {
  uint16_t rxd = static_cast<uint16_t>(opt.rx_desc), txd = static_cast<uint16_t>(opt.tx_desc);
  rte_eth_dev_adjust_nb_rx_tx_desc(d.eth, &rxd, &txd);
  const int socket =
      rte_eth_dev_socket_id(d.eth) < 0 ? SOCKET_ID_ANY : rte_eth_dev_socket_id(d.eth);
  for (uint16_t q = 0; q < d.nrxq; ++q) {
    rte_eth_rxconf rxc = d.info.default_rxconf;
    rxc.offloads = d.conf.rxmode.offloads;
    if (int rc = rte_eth_rx_queue_setup(d.eth, q, rxd, socket, &rxc, rx_pool); rc != 0)
      throw std::runtime_error(d.where + ": cannot set up rx queue: " + rte_strerror(-rc) +
                               (rc == -ENOMEM ? pool_hint(rx_pool, own_pool) : ""));
  }
  rte_eth_txconf txc = d.info.default_txconf;
  txc.offloads = d.conf.txmode.offloads;
  if (int rc = rte_eth_tx_queue_setup(d.eth, 0, txd, socket, &txc); rc != 0)
    throw std::runtime_error(d.where + ": cannot set up tx queue: " + rte_strerror(-rc));
}

// Started with the switch's MAC (the device must hand it every frame),
// promiscuous, MAC control frames passed up where the device can.
void start_device(const Device& d, const PortConfig& pc, rte_mempool* rx_pool, bool own_pool) {
  rte_ether_addr mac;
  std::memcpy(mac.addr_bytes, pc.mac, 6);
  rte_eth_dev_default_mac_addr_set(d.eth, &mac);  // best effort: some vdevs refuse
  if (int rc = rte_eth_dev_start(d.eth); rc != 0)
    throw std::runtime_error(d.where + ": cannot start device \"" + d.name +
                             "\": " + rte_strerror(-rc) +
                             (rc == -ENOMEM ? pool_hint(rx_pool, own_pool) : ""));
  rte_eth_promiscuous_enable(d.eth);  // best effort: ring/null have no filter
  if (const std::string why = enable_mac_ctrl_frames(d.eth, pc.device); !why.empty())
    std::cerr << "rocelb-dp: warning: " << d.where << ": " << why << "\n";
}

}  // namespace

LiveRun::LiveRun(std::unique_ptr<SwitchConfig> config, const LiveOptions& opt) {
  pick_lcores();
  const unsigned nw = static_cast<unsigned>(lcores_.size());
  make_pool(opt);
  dp_ = std::make_unique<Dataplane>(std::move(config), nw, opt.ring_capacity,
                                    opt.shaper_burst_ns * 1000);
  dp_->set_control_pool(pool_);
  tx_stall_ns_ = opt.tx_stall_ns;
  idle_sleep_max_ns_ = opt.idle_sleep_max_ns;
  idle_polls_ = std::max(1u, opt.idle_polls);
  for (unsigned w = 0; w < nw; ++w) dp_->set_worker_lcore(w, static_cast<int>(lcores_[w]));
  for (unsigned w = 0; w < nw; ++w) {
    auto wk = std::make_unique<Worker>();
    wk->owner = this;
    wk->index = w;
    workers_.push_back(std::move(wk));
  }
  // RX queues are spread over the workers one (port, queue) pair after
  // another, so single-queue devices do not all land on worker 0; each port
  // is transmitted by one worker, in turn.
  unsigned owner = 0, rx_next = 0;
  for (uint16_t id : dp_->config().port_ids) {
    open_port(id, opt, rx_next);
    workers_[owner % nw]->tx.push_back(id);
    dp_->set_tx_owner(id, owner++ % nw);
  }
  check_pool_left(opt);
  ps_mult_ = static_cast<uint64_t>((static_cast<unsigned __int128>(1'000'000'000'000ull) << 32) /
                                   rte_get_tsc_hz());
}

// Workers: every EAL worker lcore; with none, the main lcore forwards.
void LiveRun::pick_lcores() {
  unsigned lc;
  RTE_LCORE_FOREACH_WORKER(lc) lcores_.push_back(lc);
  if (lcores_.empty()) {
    nworkers_on_main_ = true;
    lcores_.push_back(rte_get_main_lcore());
  }
}

void LiveRun::make_pool(const LiveOptions& opt) {
  pool_ = rte_pktmbuf_pool_create("rl_live_pool", opt.pool_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                  static_cast<int>(rte_socket_id()));
  if (!pool_)
    throw std::runtime_error(
        "cannot create the packet pool of " + std::to_string(opt.pool_mbufs) +
        " mbufs: " + rte_strerror(rte_errno) +
        (rte_errno == ENOMEM
             ? " (lower --mbufs, or give EAL more memory: -m or --socket-mem after --)"
             : ""));
}

// Port `id`'s device configured, its queues set up (RX queues handed to the
// workers from rx_next on), started, and its link followed where it should.
void LiveRun::open_port(uint16_t id, const LiveOptions& opt, unsigned& rx_next) {
  const SwitchConfig& cfg = dp_->config();
  const PortConfig& pc = cfg.ports[id];
  const unsigned nw = static_cast<unsigned>(workers_.size());
  const Device d = configure_device(id, pc, nw);
  eth_of_[id] = d.eth;
  // DPDK 22.11's af_xdp PMD makes its RX pool the socket's umem: its fill
  // ring and the frames still in its completion ring are never given back
  // when the device closes. Each af_xdp port gets a pool of its own, so
  // what the PMD keeps is not taken for a leak of the switch's pool.
  rte_mempool* rx_pool = pool_;
  if (is_af_xdp_device(d.name)) {
    rx_pool = rte_pktmbuf_pool_create(("rl_xdp_pool_" + std::to_string(id)).c_str(),
                                      opt.xdp_pool_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                      static_cast<int>(rte_socket_id()));
    if (!rx_pool)
      throw std::runtime_error(
          d.where + ": cannot create the af_xdp pool: " + std::string(rte_strerror(rte_errno)));
    device_pools_.push_back(rx_pool);
  }
  setup_queues(d, opt, rx_pool, rx_pool != pool_);
  for (uint16_t q = 0; q < d.nrxq; ++q) workers_[rx_next++ % nw]->rx.emplace_back(id, q);
  nrxq_[id] = d.nrxq;
  start_device(d, pc, rx_pool, rx_pool != pool_);
  follows_link_[id] = follows_device_link(pc, cfg.params.find_port(id)->link_detect);
  if (follows_link_[id] && (is_af_xdp_device(d.name) || is_af_packet_device(d.name))) {
    link_iface_[id] = device_iface(pc.device);
    if (link_sock_ < 0) link_sock_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  }
}

// Started devices have filled their RX rings from the pool: what is left is
// all the switch can queue. Too little, and it would drop at once.
void LiveRun::check_pool_left(const LiveOptions& opt) const {
  if (const unsigned left = rte_mempool_avail_count(pool_); left < kMinFreeMbufs)
    throw std::runtime_error("the packet pool has " + std::to_string(left) + " of its " +
                             std::to_string(opt.pool_mbufs) +
                             " mbufs free once the ports' RX rings are filled; at least " +
                             std::to_string(kMinFreeMbufs) + " must be: raise --mbufs");
}

LiveRun::~LiveRun() {
  shutdown();
  dp_.reset();
  rte_mempool_free(pool_);
  if (link_sock_ >= 0) close(link_sock_);
  // The af_xdp pools stay: their PMD still references them (see above).
}

int LiveRun::worker_main(void* arg) {
  auto* wk = static_cast<Worker*>(arg);
  wk->owner->run_worker(wk->index);
  ROCELB_TSAN_RELEASE(wk);  // rte_eal_mp_wait_lcore() joins without TSan seeing it
  return 0;
}

// One port worker wk transmits: its load sampled, its pause inbox and PFC
// polled; frames the device refused last time go first, and while any still
// wait nothing new is taken; then a burst from its queues. Returns the
// frames the device took.
uint32_t LiveRun::transmit(Worker& wk, uint16_t port, uint64_t now_ps, rte_mbuf** burst,
                           uint64_t* start_ps) {
  const uint64_t now_ns = now_ps / 1000;
  uint32_t tx = 0;
  PortTx& t = dp_->tx(port);
  t.sample_load(now_ns);
  dp_->tx_poll(port, now_ns);
  auto& pend = wk.pending[port];
  uint16_t& np = wk.npending[port];
  if (np) {
    mbufs_given(pend.data(), np);
    const uint16_t sent = rte_eth_tx_burst(eth_of_[port], 0, pend.data(), np);
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < sent; ++i) bytes += wk.pending_len[port][i];
    wk.drop_front(port, sent);  // no longer awaiting, then sent
    t.set_awaiting(np);
    t.count_tx_burst(sent, bytes);
    tx += sent;
    if (sent) wk.refused_since_ns[port] = 0;
    if (np && !sent) drop_refused(wk, port, now_ns);
    if (np) return tx;
  }
  const uint16_t n = dp_->dequeue(port, now_ps, burst, start_ps, kMaxBurst);
  if (!n) return tx;
  uint32_t lens[kMaxBurst];
  for (uint16_t i = 0; i < n; ++i) lens[i] = burst[i]->pkt_len;
  mbufs_given(burst, n);
  const uint16_t sent = rte_eth_tx_burst(eth_of_[port], 0, burst, n);
  uint64_t bytes = 0;
  for (uint16_t i = 0; i < sent; ++i) bytes += lens[i];
  t.count_tx_burst(sent, bytes);
  tx += sent;
  for (uint16_t i = sent; i < n; ++i) {
    wk.pending_len[port][np] = lens[i];
    pend[np++] = burst[i];
  }
  if (np) t.set_awaiting(np);
  return tx;
}

void LiveRun::run_worker(unsigned w) {
  Worker& wk = *workers_[w];
  rte_mbuf* burst[kMaxBurst];
  uint64_t start_ps[kMaxBurst];
  LcoreStats& stats = dp_->worker(w).lcore;
  dp_->worker_online(w);
  uint64_t tsc = rte_rdtsc();
  unsigned idle_run = 0;  // loop iterations in a row that found nothing
  uint64_t nap_ns = 0;    // the next sleep when idle
  while (!stop_.load(std::memory_order_relaxed)) {
    dp_->worker_quiescent(w);  // between loops this lcore holds no config
    dp_->adopt(w);             // the one point where its config changes
    const uint64_t now_ps = tsc_to_ps(tsc);
    const uint64_t now_ns = now_ps / 1000;
    uint32_t rx = 0, tx = 0;
    for (const auto& [port, q] : wk.rx) {
      const uint16_t n = rte_eth_rx_burst(eth_of_[port], q, burst, kMaxBurst);
      mbufs_taken(burst, n);
      if (n) process_burst(*dp_, w, port, burst, n, now_ns);
      rx += n;
    }
    // ConWeave: this worker's reorder queues whose time came.
    if (dp_->conweave_next_ns_any(w) <= now_ns) rx += dp_->conweave_flush(w, -1, now_ns);
    for (uint16_t port : wk.tx) tx += transmit(wk, port, now_ps, burst, start_ps);
    // Where the cycles went (OVS pmd-stats-show): one TSC read per loop.
    const uint64_t end = rte_rdtsc();
    ++stats.polls;
    if (rx | tx) {
      stats.busy_cycles += end - tsc;
      ++stats.busy_polls;
      stats.rx_packets += rx;
      stats.tx_packets += tx;
    } else {
      stats.idle_cycles += end - tsc;
    }
    tsc = end;
    if (idle_sleep_max_ns_) {  // polling that sleeps when idle
      if (rx | tx) {
        idle_run = 0;
        nap_ns = 0;
      } else if (++idle_run >= idle_polls_ && nothing_to_send(wk)) {
        nap_ns = nap_ns ? std::min(2 * nap_ns, idle_sleep_max_ns_)
                        : std::min<uint64_t>(1000, idle_sleep_max_ns_);
        const timespec ts{static_cast<time_t>(nap_ns / 1'000'000'000),
                          static_cast<long>(nap_ns % 1'000'000'000)};
        nanosleep(&ts, nullptr);
        const uint64_t woke = rte_rdtsc();
        ++stats.sleeps;
        stats.sleep_ns += tsc_to_ps(woke - tsc) / 1000;
        tsc = woke;
      }
    }
  }
  dp_->worker_offline(w);
}

bool LiveRun::nothing_to_send(const Worker& wk) const {
  for (uint16_t port : wk.tx)
    if (wk.npending[port] || !dp_->tx(port).empty()) return false;
  return true;
}

// The device took nothing of what waits for it: after tx_stall_ns of that,
// the head frame goes (tx_failed) and the next one gets the same time.
void LiveRun::drop_refused(Worker& wk, uint16_t port, uint64_t now_ns) {
  uint64_t& since = wk.refused_since_ns[port];
  if (since == 0) {
    since = now_ns | 1;  // never 0 while timing
    return;
  }
  if (now_ns - since < tx_stall_ns_) return;
  mbuf_free(wk.pending[port][0]);
  wk.drop_front(port, 1);
  PortTx& t = dp_->tx(port);
  t.set_awaiting(wk.npending[port]);  // no longer awaiting, then dropped
  t.count_tx_failed();
  since = 0;
}

void LiveRun::start() {
  // stop_ is not reset: a stop asked for before start (SIGTERM while the
  // ports came up) makes the workers return at once, never a lost request.
  if (nworkers_on_main_) {
    run_worker(0);
    return;
  }
  for (unsigned w = 0; w < workers_.size(); ++w)
    rte_eal_remote_launch(&LiveRun::worker_main, workers_[w].get(), lcores_[w]);
}

void LiveRun::wait() {
  if (nworkers_on_main_) return;
  rte_eal_mp_wait_lcore();
  for ([[maybe_unused]] auto& wk : workers_) ROCELB_TSAN_ACQUIRE(wk.get());
}

unsigned LiveRun::poll_links() {
  unsigned changed = 0;
  if (stopped_ports_) return 0;
  for (uint16_t id : dp_->config().port_ids) {
    if (!follows_link_[id]) continue;
    bool up;
    if (!link_iface_[id].empty()) {
      // af_xdp and af_packet report their link up from start to stop: the
      // kernel interface they sit on has the real state (its carrier).
      ifreq ifr{};
      std::strncpy(ifr.ifr_name, link_iface_[id].c_str(), IFNAMSIZ - 1);
      if (ioctl(link_sock_, SIOCGIFFLAGS, &ifr) != 0) continue;
      up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
    } else {
      rte_eth_link link{};
      if (rte_eth_link_get_nowait(eth_of_[id], &link) != 0) continue;
      up = link.link_status == RTE_ETH_LINK_UP;
    }
    if (up != dp_->link_up(id)) {
      dp_->set_link_up(id, up);
      ++changed;
    }
  }
  return changed;
}

uint64_t LiveRun::tsc_to_ps(uint64_t tsc) const {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(tsc) * ps_mult_) >> 32);
}

uint64_t LiveRun::now_ns() const {
  return tsc_to_ps(rte_rdtsc()) / 1000;
}

Json LiveRun::counters() const {
  std::lock_guard lock(control_mutex_);
  return counters_to_json(*dp_, dp_->snapshot(), now_ns());
}

void LiveRun::apply(std::unique_ptr<SwitchConfig> next) {
  std::lock_guard lock(control_mutex_);
  dp_->apply(std::move(next));
}

unsigned LiveRun::shutdown() {
  if (!stopped_ports_) {
    stopped_ports_ = true;
    for (auto& wk : workers_) {
      for (uint16_t port : wk->tx) {
        PortTx& t = dp_->tx(port);
        for (uint16_t i = 0; i < wk->npending[port]; ++i) {
          t.count_tx_failed();
          mbuf_free(wk->pending[port][i]);
        }
        wk->npending[port] = 0;
        t.set_awaiting(0);
      }
    }
    // Frames that arrived after the workers stopped were never received by
    // the switch (not counted): freed here, or a loopback device (a net_ring
    // sending to itself) would keep mbufs of the pool at exit. Bounded, for
    // sources that never run dry (net_pcap infinite_rx).
    for (uint16_t id : dp_->config().port_ids)
      for (uint16_t q = 0; q < nrxq_[id]; ++q) {
        rte_mbuf* burst[kMaxBurst];
        for (int k = 0; k < kDrainBursts; ++k) {
          const uint16_t n = rte_eth_rx_burst(eth_of_[id], q, burst, kMaxBurst);
          mbufs_taken(burst, n);
          for (uint16_t i = 0; i < n; ++i) mbuf_free(burst[i]);
          if (n == 0) break;
        }
      }
    for (uint16_t id : dp_->config().port_ids) {
      rte_eth_dev_stop(eth_of_[id]);
    }
    dp_->flush();
    // Stopped devices may still hold mbufs in their rings until closed.
    for (uint16_t id : dp_->config().port_ids) rte_eth_dev_close(eth_of_[id]);
  }
  return rte_mempool_in_use_count(pool_);
}

unsigned LiveRun::held_by_devices() const {
  unsigned n = 0;
  for (rte_mempool* p : device_pools_) n += rte_mempool_in_use_count(p);
  return n;
}

}  // namespace rocelb
