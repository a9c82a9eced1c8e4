#include "tools/gen/preset_nvmeof.h"

#include <algorithm>
#include <array>

#include "dataplane/sim/workload_random.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"hosts", "auto", "initiators, one per host port (auto: every host port)"},
    {"targets", "2", "storage targets behind the spines, 1..64"},
    {"mix", "read-heavy", "read-heavy (70% reads) or write-heavy (30% reads)"},
    {"ios", "32", "I/Os per initiator, 1..100000; ios x initiators x 4 <= 50000 flows"},
    {"io_min", "4KiB", "smallest I/O (sizes are powers of two times io_min)"},
    {"io_max", "128KiB", "largest I/O, at most 1MiB"},
    {"load", "0.5", "average share of an initiator's link its I/O data uses, 0.001..1"},
    {"latency", "5us", "how long a target (or a NIC answering a READ) takes to react"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
    {"group", "uplinks", "the group whose members are the uplinks"},
};
constexpr std::string_view kMixes[] = {"read-heavy", "write-heavy"};

// One queue pair between an initiator and a target: both directions.
struct Connection {
  uint16_t host_sport = 0, target_sport = 0;
  uint32_t host_qp = 0, target_qp = 0;
  uint32_t host_psn = 0, target_psn = 0;  // next PSN of each side's requests
  uint64_t busy[2] = {0, 0};              // [0] host->target, [1] target->host: wire free at
};

class Builder {
 public:
  Builder(const PresetArgs& a, PresetContext& ctx) : a_(a), ctx_(ctx) {}
  ScenarioParams run();

 private:
  // Adds one message on a direction of c; returns when it has left the wire.
  uint64_t add(Connection& c, bool to_host, const std::string& name, RoceOp op, uint64_t bytes,
               uint64_t at, uint32_t psn);

  const PresetArgs& a_;
  PresetContext& ctx_;
  ScenarioParams sc_;
  uint32_t h_ = 0, t_ = 0;
  uint16_t host_port_ = 0, target_port_ = 0;
  IpAddr host_ip_, target_ip_;
  uint64_t rate_ = 0;
  uint32_t mtu_ = 1024;
};

uint64_t Builder::add(Connection& c, bool to_host, const std::string& name, RoceOp op,
                      uint64_t bytes, uint64_t at, uint32_t psn) {
  FlowParams f =
      preset_flow(name, to_host ? target_port_ : host_port_, to_host ? target_ip_ : host_ip_,
                  to_host ? host_ip_ : target_ip_, rate_);
  f.sport = to_host ? c.target_sport : c.host_sport;
  f.dest_qp = to_host ? c.host_qp : c.target_qp;
  f.op = op;
  f.message_bytes = bytes;
  f.mtu = mtu_;
  f.psn = psn & 0xffffff;
  uint64_t& busy = c.busy[to_host ? 1 : 0];
  f.start_ns = std::max(at, busy);
  busy = f.start_ns + message_wire_ns(op == RoceOp::kReadRequest ? 16 : bytes, mtu_, rate_);
  sc_.flows.push_back(std::move(f));
  return busy;
}

ScenarioParams Builder::run() {
  const auto hosts = host_ports(ctx_.config);
  const auto uplinks = group_uplinks(ctx_.config, a_.text("group"));
  if (hosts.empty()) a_.fail("hosts", "the switch config has no host port");
  const auto n_hosts = a_.is("hosts", "auto")
                           ? static_cast<uint32_t>(hosts.size())
                           : static_cast<uint32_t>(a_.uint("hosts", 1, hosts.size()));
  const auto n_targets = static_cast<uint32_t>(a_.uint("targets", 1, 64));
  const double read_share = a_.choice("mix", kMixes) == "read-heavy" ? 0.7 : 0.3;
  const uint64_t ios = a_.uint("ios", 1, 100000);
  const uint64_t io_min = a_.bytes("io_min", 512, 1u << 20);
  const uint64_t io_max = a_.bytes("io_max", 512, 1u << 20);
  if (io_max < io_min) a_.fail("io_max", "io_max must be at least io_min");
  const double load = a_.real("load", 0.001, 1);
  const uint64_t latency = a_.duration("latency", 0, 1'000'000'000);
  mtu_ = static_cast<uint32_t>(a_.uint("mtu", 256, 4096));
  if (mtu_ & (mtu_ - 1)) a_.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");
  // A write is four messages (command, READ request, READ response,
  // response), a read three: bound by four before drawing any.
  a_.check_flows("ios", ios * n_hosts * 4,
                 "up to 4 per I/O, " + std::to_string(ios) + " I/Os x " + std::to_string(n_hosts) +
                     " initiators");

  uint32_t sizes = 1;  // io_min << 0 .. io_min << (sizes - 1)
  while ((io_min << sizes) <= io_max) ++sizes;
  double mean_bytes = 0;
  for (uint32_t k = 0; k < sizes; ++k) mean_bytes += double(io_min << k) / sizes;

  uint64_t reads = 0, writes = 0;
  for (h_ = 0; h_ < n_hosts; ++h_) {
    host_port_ = hosts[h_].port;
    host_ip_ = hosts[h_].ip;
    rate_ = hosts[h_].speed_bps;
    WorkloadRandom rng(ctx_.seed, 0x4e00 + h_);
    std::vector<Connection> conns(n_targets);
    for (uint32_t t = 0; t < n_targets; ++t) {
      conns[t].host_sport = static_cast<uint16_t>(49152 + rng.below(16384));
      conns[t].target_sport = static_cast<uint16_t>(49152 + rng.below(16384));
      conns[t].host_qp = 0x100000 | (h_ << 8) | t;
      conns[t].target_qp = 0x200000 | (h_ << 8) | t;
    }
    const double mean_gap_ns = mean_bytes * 8 * 1e9 / (double(rate_) * load);
    double arrival = 0;
    for (uint64_t i = 0; i < ios; ++i) {
      arrival += rng.exponential(mean_gap_ns);
      t_ = static_cast<uint32_t>(rng.below(n_targets));
      const uint64_t size = io_min << rng.below(sizes);
      const bool read = rng.uniform() < read_share;
      Connection& c = conns[t_];
      target_port_ = uplinks[t_ % uplinks.size()].port;
      target_ip_ = ipv4(10, 3, static_cast<uint8_t>(t_), 2);
      const std::string name = label("h", h_) + "-io" + std::to_string(i) + "-t" +
                               std::to_string(t_) + (read ? "-read" : "-write");
      uint64_t done = add(c, false, name + "-cmd", RoceOp::kSend, kNvmeCommandBytes,
                          uint64_t(arrival), c.host_psn++);
      const uint32_t data_packets = static_cast<uint32_t>((size + mtu_ - 1) / mtu_);
      if (read) {
        ++reads;
        done = add(c, true, name + "-data", RoceOp::kWrite, size, done + latency, c.target_psn);
        c.target_psn += data_packets;
        add(c, true, name + "-resp", RoceOp::kSend, kNvmeResponseBytes, done, c.target_psn++);
      } else {
        ++writes;
        const uint32_t psn = c.target_psn;
        c.target_psn += data_packets;
        done = add(c, true, name + "-rreq", RoceOp::kReadRequest, size, done + latency, psn);
        done = add(c, false, name + "-data", RoceOp::kReadResponse, size, done + latency, psn);
        add(c, true, name + "-resp", RoceOp::kSend, kNvmeResponseBytes, done + latency,
            c.target_psn++);
      }
    }
  }
  ctx_.notes.push_back(std::to_string(n_hosts) + " initiators, " + std::to_string(n_targets) +
                       " targets (10.3.T.2, entering on uplink T mod " +
                       std::to_string(uplinks.size()) + "): " + std::to_string(reads) + " reads, " +
                       std::to_string(writes) + " writes");
  return std::move(sc_);
}

ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  return Builder(a, ctx).run();
}

}  // namespace

const PresetDef& nvmeof_preset() {
  static const PresetDef def{
      "nvmeof",
      "NVMe-oF/RDMA I/O: command capsules by SEND, read data by RDMA WRITE, write data by RDMA "
      "READ, between initiators and targets behind the spines",
      kParams, build};
  return def;
}

}  // namespace rocelb
