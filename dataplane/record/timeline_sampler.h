// `--timeline INTERVAL`: every INTERVAL of virtual time, what each switch's
// ports, queues, PFC and groups looked like, as rows of timeline.csv in long
// format:
//   t_ns,switch,port,class,metric,value
// t_ns is the end of the interval (the last row group may close a shorter
// one at the end of the run). Metrics:
//   per (port, class)   queue_bytes, queue_packets (at t), queue_peak_bytes
//                       (the most during the interval), ecn_marks, drops (in it)
//   per port (class "") tx_bytes, rx_bytes (frame bytes in the interval),
//                       tx_bps, rx_bps (the same over the interval), drops
//   per (port, priority) for lossless priorities: pfc_paused (1: the peer's
//                       PFC holds this egress class at t), pfc_xoff (1: the
//                       switch asserts XOFF toward this port at t),
//                       pfc_tx_frames, pfc_rx_frames (in the interval)
//   per group member (port = the member's port, class ""):
//                       group.<name>.load_bps (the transmit-load EWMA the
//                       engines read), group.<name>.band (quality modes: the
//                       member's quality band 0..7 at t, over the depth the
//                       mode reads; for per-class depth, the busiest class)
//   per host NIC (fabric runs; switch = the host's name, port 0, class ""):
//                       nic.tx_bytes, nic.tx_bps, nic.rx_bytes, nic.cnps_received,
//                       nic.rate_cuts (DCQCN), nic.retransmitted_packets,
//                       nic.timeouts (in the interval)
// A port's rows start once it has carried traffic, a queue's once it has
// held a packet (earlier rows would all be 0). Sums over a run's rows equal
// the switch's counters (tx_bytes, rx_bytes); the largest queue_peak_bytes
// is the queue's watermark. Knobs: the interval. Counters: rows written.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "dataplane/record/switch_recorder.h"
#include "dataplane/sim/roce_nic.h"
#include "lb/quality_model.h"

namespace rocelb {

class TimelineSampler {
 public:
  // Writes the header to `f` (the caller owns and closes it).
  TimelineSampler(std::FILE* f, uint64_t base_ns);
  void add(SwitchRecorder& rec);
  // A host's NIC (its counters are read at each sample).
  void add_host(std::string name, const NicCounters& counters);
  // Rows for every switch at the end of an interval of `interval_ns`
  // ending at t_ns (the run's clock).
  void sample(uint64_t t_ns, uint64_t interval_ns);
  uint64_t rows() const { return rows_; }
  // An upper bound of the bytes one sample() writes (every port, queue,
  // priority, member and NIC shown, every number at its longest): what a
  // row group asks the run's OutputBudget for.
  uint64_t max_sample_bytes() const { return max_sample_bytes_; }

 private:
  struct Switch {
    SwitchRecorder* rec = nullptr;
    // Indexed by port id (Dataplane::port_slots of them).
    std::vector<uint64_t> last_tx, last_rx;
    std::vector<uint8_t> active_classes;
    std::vector<uint8_t> active_port;
    std::vector<QualityModel> quality;  // per group (unused for other modes)
  };
  void row(uint64_t t_ns, const Switch& s, uint16_t port, int cls, const char* metric,
           uint64_t value);
  void row(uint64_t t_ns, const Switch& s, uint16_t port, const std::string& metric,
           uint64_t value);
  void sample_switch(uint64_t t_ns, uint64_t interval_ns, Switch& s);

  struct Host {
    std::string name;
    const NicCounters* now = nullptr;
    NicCounters last;
    bool active = false;
  };
  void sample_host(uint64_t t_ns, uint64_t interval_ns, Host& h);

  std::FILE* f_;
  uint64_t base_ns_;
  std::vector<Switch> switches_;
  std::vector<Host> hosts_;
  uint64_t rows_ = 0;
  uint64_t max_sample_bytes_ = 0;
};

}  // namespace rocelb
