#include "dataplane/engines/replay_engine.h"

#include <rte_errno.h>
#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>

#include "dataplane/engines/mbuf_util.h"
#include "dataplane/engines/upstream_sender.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/pipeline.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> g_pool_seq{0};
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct Sink {
  std::unique_ptr<PcapWriter> writer;
  bool scheduled = false;
  uint64_t next_ps = 0;
};

// Removes a private output folder unless the run completed.
struct TempDir {
  fs::path path;
  bool keep = false;
  ~TempDir() {
    if (!keep && !path.empty()) {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  }
};

}  // namespace

ReplayEngine::ReplayEngine(std::unique_ptr<SwitchConfig> config, unsigned pool_mbufs) {
  std::string name = "rl_replay" + std::to_string(g_pool_seq.fetch_add(1));
  pool_ = rte_pktmbuf_pool_create(name.c_str(), pool_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                  SOCKET_ID_ANY);
  if (!pool_)
    throw std::runtime_error("cannot create the packet pool: " +
                             std::string(rte_strerror(rte_errno)));
  // Rings hold at most the whole pool; a queue's byte limit is the real bound.
  unsigned ring = 1024;
  while (ring < pool_mbufs) ring <<= 1;
  dp_ = std::make_unique<Dataplane>(std::move(config), 1, ring, 0);
  dp_->set_control_pool(pool_);
}

ReplayEngine::~ReplayEngine() {
  dp_.reset();
  rte_mempool_free(pool_);
}

Json ReplayEngine::counters() const {
  Json j = counters_to_json(*dp_, dp_->snapshot(), stats_.last_ns - stats_.first_ns);
  Json t;
  t["first_ns"] = stats_.first_ns;
  t["last_ns"] = stats_.last_ns;
  j["time"] = t;
  Json r;
  r["roce_packets"] = reorder_.roce_packets();
  r["qps"] = reorder_.qps();
  r["reordered_packets"] = reorder_.reordered_packets();
  r["max_psn_gap"] = reorder_.max_psn_gap();
  j["reordering"] = r;
  // The devices upstream of the input ports, honouring the switch's PFC.
  j["upstream"] = upstream_.is_null() ? Json::array() : upstream_;
  return j;
}

ReplayStats ReplayEngine::run(const std::vector<ReplayInput>& inputs, const std::string& out_dir,
                              bool trace) {
  const SwitchConfig& cfg = dp_->config();

  // 1. Check every input before writing anything.
  struct Opened {
    uint16_t port;
    std::unique_ptr<PcapReader> reader;
  };
  std::vector<Opened> opened;
  for (const auto& in : inputs) {
    const PortConfig* pc = cfg.port(in.port);
    if (!pc)
      throw ReplayError("--in " + std::to_string(in.port) + "=" + in.path + ": port " +
                        std::to_string(in.port) + " is not in the config");
    for (const auto& o : opened)
      if (o.port == in.port)
        throw ReplayError("--in " + std::to_string(in.port) + "=" + in.path +
                          ": port already has an input");
    Opened o;
    o.port = in.port;
    try {
      o.reader = std::make_unique<PcapReader>(in.path);
    } catch (const PcapError& e) {
      throw ReplayError(e.what());
    }
    if (o.reader->linktype() != kLinktypeEthernet)
      throw ReplayError(in.path + ": link type " + std::to_string(o.reader->linktype()) +
                        " is not Ethernet (1)");
    opened.push_back(std::move(o));
  }

  // 2. A private folder for the outputs.
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw ReplayError("cannot create output folder \"" + out_dir + "\": " + ec.message());
  TempDir tmp;
  {
    std::string templ = (fs::path(out_dir) / ".rocelb-replay.XXXXXX").string();
    if (!mkdtemp(templ.data()))
      throw ReplayError("cannot write in output folder \"" + out_dir +
                        "\": " + std::strerror(errno));
    tmp.path = templ;
  }
  std::unique_ptr<DecisionLog> log;
  if (trace) log = std::make_unique<DecisionLog>((tmp.path / "trace.jsonl").string());
  struct Detach {  // the log dies with this run, whatever happens
    Dataplane& dp;
    ~Detach() { dp.set_decision_log(nullptr); }
  } detach{*dp_};
  dp_->set_decision_log(log.get());
  std::array<Sink, kMaxPorts> sinks;
  for (uint16_t id : cfg.port_ids)
    sinks[id].writer =
        std::make_unique<PcapWriter>((tmp.path / ("port" + std::to_string(id) + ".pcap")).string());

  // 3. Time zero of the run is the earliest first timestamp of the inputs;
  // peek at each file's first record for it, then reopen from the start.
  uint64_t t0 = kNever;
  try {
    for (auto& o : opened) {
      PcapReader first(o.reader->path());
      PcapRecord rec;
      if (first.next(rec)) t0 = std::min(t0, rec.ts_ns);
    }
  } catch (const PcapError& e) {
    throw ReplayError(e.what());
  }
  if (t0 == kNever) t0 = 0;
  if (log) log->set_time_base(t0);
  stats_ = ReplayStats{};
  reorder_ = ReorderMeter{};
  stats_.first_ns = t0;
  stats_.last_ns = t0;

  // The devices upstream of the ports: a PFC frame the switch sends takes
  // effect there after the cable (5 ns/m) and their response delay.
  const PfcParams& pfc = cfg.params.qos.lossless.pfc;
  const uint64_t pause_delay_ps = (pfc.cable_length_m * 5 + pfc.response_delay_ns) * 1000;
  std::vector<std::unique_ptr<UpstreamSender>> senders;
  std::array<UpstreamSender*, kMaxPorts> sender_of{};
  try {
    for (auto& o : opened) {
      senders.push_back(
          std::make_unique<UpstreamSender>(o.port, std::move(o.reader), cfg, t0, pause_delay_ps));
      sender_of[o.port] = senders.back().get();
    }
  } catch (const PcapError& e) {
    throw ReplayError(e.what());
  }

  // 4. Events in time order: departures first at equal times, lower ports first.
  std::vector<uint8_t> scratch(1 << 18);
  std::array<uint64_t, kMaxPorts> sender_next{};
  auto refresh_sender = [&](UpstreamSender& s) {
    try {
      sender_next[s.port()] = s.next_send_ps();
    } catch (const PcapError& e) {
      throw ReplayError(e.what());
    }
  };
  for (auto& s : senders) refresh_sender(*s);
  for (;;) {
    UpstreamSender* in = nullptr;
    for (auto& s : senders)
      if (sender_next[s->port()] != kNever &&
          (!in || sender_next[s->port()] < sender_next[in->port()]))
        in = s.get();
    int out = -1;
    for (uint16_t id : cfg.port_ids)
      if (sinks[id].scheduled && (out < 0 || sinks[id].next_ps < sinks[out].next_ps)) out = id;
    if (!in && out < 0) break;
    ++stats_.events;
    const bool departure = out >= 0 && (!in || sinks[out].next_ps <= sender_next[in->port()]);
    const uint64_t now_ps = departure ? sinks[out].next_ps : sender_next[in->port()];
    dp_->adopt(0);  // one thread: the epoch never changes under a replay, but this is the route
    // Ports whose state this event may change; only those are polled and
    // rescheduled after it (PFC refreshes due now are polled on every port
    // first). Dynamic thresholds and storms move every port's PFC state.
    uint64_t touched = 0;
    // Refreshes due now: only a port asserting XOFF can owe one (static
    // thresholds; an XOFF crossing is polled right after the arrival).
    const bool dynamic = cfg.qos.pfc.dynamic;
    for (uint16_t id : cfg.port_ids) {
      dp_->tx(id).sample_load(now_ps / 1000);
      if ((dynamic || dp_->pfc().asserted_mask(id)) && dp_->tx_poll(id, now_ps / 1000))
        touched |= uint64_t{1} << id;
    }
    const uint8_t suppressed = dp_->pfc().suppressed_mask();
    auto every_port = [&] {
      return cfg.qos.pfc.dynamic || dp_->pfc().suppressed_mask() != suppressed;
    };

    if (departure) {
      Sink& sk = sinks[out];
      const uint16_t port = static_cast<uint16_t>(out);
      rte_mbuf* m = nullptr;
      uint64_t start = 0;
      if (dp_->dequeue(port, now_ps, &m, &start, 1) == 1) {
        const uint64_t ts = t0 + start / 1000;
        const uint8_t* bytes = mbuf_bytes(m, scratch.data());
        sk.writer->write(ts, bytes, m->pkt_len);
        ParsedPacket departed;
        if (parse_frame(bytes, m->pkt_len, m->pkt_len, departed) == ParseResult::ok) {
          reorder_.observe(departed);
          // A PFC frame the switch sent: the device on that link will honour it.
          if (departed.kind == L3Kind::kMacControl && departed.mac_control_opcode == kPfcOpcode &&
              sender_of[port]) {
            sender_of[port]->receive_pfc(start, m->pkt_len, departed.pfc_class_enable,
                                         departed.pfc_quanta);
            refresh_sender(*sender_of[port]);
          }
        }
        dp_->tx(port).count_tx(m->pkt_len);
        stats_.last_ns = std::max(stats_.last_ns, ts);
        mbuf_free(m);
      }
      sk.next_ps = dp_->next_tx_ps(port, std::max(now_ps, dp_->tx(port).shaper.wire_free_ps()));
      sk.scheduled = sk.next_ps != UINT64_MAX;
      // The departure released buffer: an ingress port may now owe its peer an XON.
      touched |= std::exchange(dp_->tx(port).released_ports, 0);
      const bool all = every_port();
      for (uint16_t id : cfg.port_ids) {
        if (id == port || !(all || ((touched >> id) & 1))) continue;
        dp_->tx_poll(id, now_ps / 1000);
        const uint64_t next = dp_->next_tx_ps(id, now_ps);
        Sink& other = sinks[id];
        if (!other.scheduled || next < other.next_ps) {
          other.scheduled = next != UINT64_MAX;
          other.next_ps = next;
        }
      }
      continue;
    }

    // Arrival: the frame's first bit reaches the switch at now_ps.
    const UpstreamSender::Frame& f = in->send();
    const uint32_t len = static_cast<uint32_t>(f.bytes.size());
    rte_mbuf* m = mbuf_from_bytes(pool_, f.bytes.data(), len);
    if (!m) {
      PortCounters& pc = dp_->worker(0).port[in->port()];
      ++pc[PortCounter::rx_packets];
      pc[PortCounter::rx_bytes] += len;
      pc.drop(DropReason::no_buffer);
    } else {
      process_burst(*dp_, 0, in->port(), &m, 1, now_ps / 1000);
    }
    refresh_sender(*in);
    // The ingress port (its held bytes, a received pause) and where the
    // frame was queued.
    touched |= std::exchange(dp_->worker(0).enqueued_ports, 0) | uint64_t{1} << in->port();
    const bool all = every_port();
    for (uint16_t id : cfg.port_ids) {
      if (!(all || ((touched >> id) & 1))) continue;
      dp_->tx_poll(id, now_ps / 1000);  // the arrival may have crossed XOFF
      Sink& sk = sinks[id];
      // A port with new work, or whose pause a received PFC frame just changed.
      const uint64_t next = dp_->next_tx_ps(id, now_ps);
      if (!sk.scheduled || next < sk.next_ps) {
        sk.scheduled = next != UINT64_MAX;
        sk.next_ps = next;
      }
    }
  }
  upstream_ = Json::array();
  for (auto& s : senders) {
    Json u;
    u["port"] = s->port();
    u["frames_delayed_by_pause"] = s->held_frames();
    Json paused = Json::array();
    for (int p = 0; p < kPfcPriorities; ++p)
      paused.push_back(s->pause().pause_ns(p, UINT64_MAX / 2) / 1000);
    u["paused_us"] = paused;
    upstream_.push_back(u);
  }

  // 5. Close, write the counters, and move everything into place.
  for (uint16_t id : cfg.port_ids) sinks[id].writer->close();
  if (log) log->close();
  {
    std::ofstream f(tmp.path / "counters.json");
    f << counters().dump(2) << "\n";
    if (!f) throw ReplayError("cannot write counters.json in \"" + out_dir + "\"");
  }
  for (const auto& e : fs::directory_iterator(tmp.path)) {
    fs::rename(e.path(), fs::path(out_dir) / e.path().filename(), ec);
    if (ec) throw ReplayError("cannot move outputs into \"" + out_dir + "\": " + ec.message());
  }
  return stats_;
}

}  // namespace rocelb
