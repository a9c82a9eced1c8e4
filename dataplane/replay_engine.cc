#include "dataplane/replay_engine.h"

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

#include "dataplane/mbuf_util.h"
#include "dataplane/parser.h"
#include "dataplane/pipeline.h"
#include "dataplane/wire/pcap_file.h"

namespace rocelb {
namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> g_pool_seq{0};
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct Source {
  uint16_t port = 0;
  std::unique_ptr<PcapReader> reader;
  bool has = false;
  PcapRecord rec;
  uint64_t arrival_ps = 0;  // relative to the run's first timestamp
  uint64_t wire_free_ps = 0;
  Shaper wire;  // only for wire_ps at the ingress speed
};

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
}

ReplayEngine::~ReplayEngine() {
  dp_.reset();
  rte_mempool_free(pool_);
}

Json ReplayEngine::counters() const {
  Json j = counters_to_json(*dp_, dp_->snapshot());
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
  return j;
}

ReplayStats ReplayEngine::run(const std::vector<ReplayInput>& inputs, const std::string& out_dir,
                              bool trace) {
  const SwitchConfig& cfg = dp_->config();

  // 1. Check every input before writing anything.
  std::vector<Source> sources;
  for (const auto& in : inputs) {
    const PortConfig* pc = cfg.port(in.port);
    if (!pc)
      throw ReplayError("--in " + std::to_string(in.port) + "=" + in.path + ": port " +
                        std::to_string(in.port) + " is not in the config");
    for (const auto& s : sources)
      if (s.port == in.port)
        throw ReplayError("--in " + std::to_string(in.port) + "=" + in.path +
                          ": port already has an input");
    Source s;
    s.port = in.port;
    try {
      s.reader = std::make_unique<PcapReader>(in.path);
    } catch (const PcapError& e) {
      throw ReplayError(e.what());
    }
    if (s.reader->linktype() != kLinktypeEthernet)
      throw ReplayError(in.path + ": link type " + std::to_string(s.reader->linktype()) +
                        " is not Ethernet (1)");
    s.wire.configure(pc->speed_bps, 0);
    sources.push_back(std::move(s));
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

  // 3. The first timestamp of all inputs is time zero of the run.
  uint64_t t0 = kNever;
  try {
    for (auto& s : sources) {
      s.has = s.reader->next(s.rec);
      if (s.has) t0 = std::min(t0, s.rec.ts_ns);
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
  auto to_ps = [t0](uint64_t ns) { return ns < t0 ? 0 : (ns - t0) * 1000; };
  for (auto& s : sources)
    if (s.has) s.arrival_ps = to_ps(s.rec.ts_ns);

  // 4. Events in time order.
  std::vector<uint8_t> scratch(1 << 18);
  for (;;) {
    Source* in = nullptr;
    for (auto& s : sources)
      if (s.has && (!in || s.arrival_ps < in->arrival_ps)) in = &s;
    int out = -1;
    for (uint16_t id : cfg.port_ids)
      if (sinks[id].scheduled && (out < 0 || sinks[id].next_ps < sinks[out].next_ps)) out = id;
    if (!in && out < 0) break;
    ++stats_.events;
    {  // load meters see time pass on every port, busy or idle
      const uint64_t t_ps = out >= 0 && (!in || sinks[out].next_ps <= in->arrival_ps)
                                ? sinks[out].next_ps
                                : in->arrival_ps;
      for (uint16_t id : cfg.port_ids) dp_->tx(id).sample_load(t_ps / 1000);
    }

    if (out >= 0 && (!in || sinks[out].next_ps <= in->arrival_ps)) {
      Sink& sk = sinks[out];
      rte_mbuf* m = nullptr;
      uint64_t start = 0;
      if (dp_->dequeue(static_cast<uint16_t>(out), sk.next_ps, &m, &start, 1) == 1) {
        const uint64_t ts = t0 + start / 1000;
        const uint8_t* bytes = mbuf_bytes(m, scratch.data());
        sk.writer->write(ts, bytes, m->pkt_len);
        ParsedPacket departed;
        if (parse_frame(bytes, m->pkt_len, m->pkt_len, departed) == ParseResult::ok)
          reorder_.observe(departed);
        dp_->tx(static_cast<uint16_t>(out)).count_tx(m->pkt_len);
        stats_.last_ns = std::max(stats_.last_ns, ts);
        rte_pktmbuf_free(m);
      }
      PortTx& t = dp_->tx(static_cast<uint16_t>(out));
      sk.scheduled = !t.empty();
      sk.next_ps = t.shaper.wire_free_ps();
      continue;
    }

    // Arrival: the frame lands at arrival_ps; the ingress wire is busy for it.
    const uint64_t now_ps = in->arrival_ps;
    rte_mbuf* m = mbuf_from_bytes(pool_, in->rec.data, in->rec.caplen);
    in->wire_free_ps = now_ps + in->wire.wire_ps(in->rec.caplen);
    if (!m) {
      PortCounters& pc = dp_->worker(0).port[in->port];
      ++pc[PortCounter::rx_packets];
      pc[PortCounter::rx_bytes] += in->rec.caplen;
      pc.drop(DropReason::no_buffer);
    } else {
      process_burst(*dp_, 0, in->port, &m, 1, now_ps / 1000);
    }
    try {
      in->has = in->reader->next(in->rec);
    } catch (const PcapError& e) {
      throw ReplayError(e.what());
    }
    if (in->has) in->arrival_ps = std::max(to_ps(in->rec.ts_ns), in->wire_free_ps);
    for (uint16_t id : cfg.port_ids) {
      Sink& sk = sinks[id];
      if (!sk.scheduled && !dp_->tx(id).empty()) {
        sk.scheduled = true;
        sk.next_ps = std::max(dp_->tx(id).shaper.wire_free_ps(), now_ps);
      }
    }
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
