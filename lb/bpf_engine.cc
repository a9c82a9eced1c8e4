#include "lb/bpf_engine.h"

#include <cstring>
#include <stdexcept>

namespace rocelb {

BpfEngine::BpfEngine(std::shared_ptr<const LbBpfProgram> prog, uint32_t n_members, const LbKnobs& k)
    : prog_(std::move(prog)),
      n_(n_members),
      mask_(k.max_flows - 1),
      slots_(k.max_flows),
      written_(k.max_flows, 0),
      ctx_(std::make_unique<rocelb_ctx>()) {
  if (!prog_ || (!prog_->jit && !prog_->exec))
    throw std::invalid_argument("mode bpf needs a loaded program");
  if (n_members > kMaxBpfMembers)
    throw std::invalid_argument("mode bpf takes at most " + std::to_string(kMaxBpfMembers) +
                                " members");
  std::memset(ctx_.get(), 0, sizeof(rocelb_ctx));
  ctx_->n_members = n_;
  ctx_->idle_time_ns = k.idle_time_ns;
  ctx_->knob_d = k.drill.d;
  ctx_->knob_m = k.drill.m;
}

void BpfEngine::load_members(const MemberPath* paths, const LbShared& s) {
  rocelb_ctx& c = *ctx_;
  c.n_up = s.up.count();
  if (c.up_generation != static_cast<uint32_t>(s.up.generation())) {
    c.up_generation = static_cast<uint32_t>(s.up.generation());
    for (uint32_t k = 0; k < kMaxBpfMembers; ++k)
      c.up_list[k] = static_cast<uint16_t>(k < c.n_up ? s.up.at(k) : 0);
  }
  for (uint32_t i = 0; i < n_; ++i) {
    rocelb_member& m = c.members[i];
    m.queue_bytes = paths[i].queue_bytes;
    m.load_bps = paths[i].load_bps;
    m.band = s.quality.band(paths[i]);
    m.up = s.up.is_up(i) ? 1 : 0;
    speed_[i] = paths[i].speed_bps;
  }
}

uint32_t BpfEngine::select(uint32_t hash, uint32_t bytes, uint64_t now_ns,
                           const LbPacketFields* pkt, bool grow, LbShared& s, LbDecision* trace) {
  rocelb_ctx& c = *ctx_;
  c.now_ns = now_ns;
  c.hash = hash;
  c.pkt_len = bytes;
  if (pkt) {
    c.family = pkt->family;
    c.proto = pkt->proto;
    c.tc = pkt->tc;
    c.opcode = pkt->opcode;
    c.src_port = pkt->src_port;
    c.dst_port = pkt->dst_port;
    c.dest_qp = pkt->dest_qp;
    c.psn = pkt->psn;
    std::memcpy(c.src_ip, pkt->src_ip, 16);
    std::memcpy(c.dst_ip, pkt->dst_ip, 16);
  }
  c.rng_state = s.rng.state();
  const uint32_t slot = hash & mask_;
  c.flow_new = written_[slot] ? 0 : 1;
  std::memcpy(c.flow, slots_[slot].data(), ROCELB_FLOW_BYTES);

  const uint64_t r = prog_->run(&c);

  std::memcpy(slots_[slot].data(), c.flow, ROCELB_FLOW_BYTES);
  written_[slot] = 1;
  s.rng.set_state(c.rng_state);
  // Judged by the host's up set, not by the context (which the program
  // could have written).
  if (r >= n_ || !s.up.is_up(static_cast<uint32_t>(r))) {
    ++s.counters.bpf_refused;
    return kNoMember;
  }
  const uint32_t m = static_cast<uint32_t>(r);
  if (grow) {  // the next packet of the burst sees this one queued
    rocelb_member& mem = c.members[m];
    mem.queue_bytes += bytes;
    MemberPath p{mem.queue_bytes, mem.load_bps, speed_[m], true};
    mem.band = s.quality.band(p);
  }
  if (trace) trace->new_flowlet = c.flow_new != 0;
  return m;
}

void BpfEngine::reset() {
  for (auto& s : slots_) s.fill(0);
  std::fill(written_.begin(), written_.end(), 0);
  std::memset(ctx_->group, 0, sizeof ctx_->group);
}

}  // namespace rocelb
