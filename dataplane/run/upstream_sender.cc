#include "dataplane/run/upstream_sender.h"

#include <algorithm>

#include "dataplane/forward/classify.h"
#include "dataplane/wire/parser.h"

namespace rocelb {

UpstreamSender::UpstreamSender(uint16_t port, std::unique_ptr<PcapReader> reader,
                               const SwitchConfig& cfg, uint64_t t0_ns, uint64_t pause_delay_ps)
    : port_(port),
      reader_(std::move(reader)),
      cfg_(cfg),
      t0_ns_(t0_ns),
      pause_delay_ps_(pause_delay_ps),
      speed_bps_(cfg.ports[port].speed_bps) {
  wire_.configure(speed_bps_, 0);
  read_peek();
}

void UpstreamSender::read_peek() {
  PcapRecord rec;
  has_peek_ = reader_->next(rec);
  if (!has_peek_) return;
  if (rec.ts_ns > t0_ns_ && rec.ts_ns - t0_ns_ > kMaxSpanNs)
    throw TimeSpanError(rec.offset, rec.ts_ns);
  peek_.ts_ps = rec.ts_ns < t0_ns_ ? 0 : (rec.ts_ns - t0_ns_) * 1000;
  peek_.seq = seq_++;
  if (peek_.bytes.capacity() == 0 && !spare_.empty()) {  // reuse a sent frame's buffer
    peek_.bytes = std::move(spare_.back());
    spare_.pop_back();
  }
  peek_.bytes.assign(rec.data, rec.data + rec.caplen);
}

bool UpstreamSender::room_for_peek() const {
  return queued_frames_ < kMaxQueuedFrames && queued_bytes_ + peek_.bytes.size() <= kMaxQueuedBytes;
}

bool UpstreamSender::paused_at(int prio, uint64_t t_ps) const {
  if ((pause_.ignored() >> prio) & 1) return false;
  return t_ps < pause_.paused_until_ns(prio) * 1000;
}

int UpstreamSender::pick(uint64_t& when) {
  for (;;) {
    int best = -1;
    uint64_t best_t = kNever, best_seq = 0;
    for (int p = 0; p < kPfcPriorities; ++p) {
      if (fifo_[p].empty()) continue;
      const Frame& f = fifo_[p].front();
      uint64_t t = std::max(f.ts_ps, wire_.wire_free_ps());
      if (paused_at(p, t)) t = pause_.paused_until_ns(p) * 1000;  // waits for the pause to end
      if (best < 0 || t < best_t || (t == best_t && f.seq < best_seq)) {
        best = p;
        best_t = t;
        best_seq = f.seq;
      }
    }
    // A pause that takes effect before then changes the picture.
    if (!pending_.empty() && (best < 0 || pending_.front().effect_ps <= best_t)) {
      const PendingPfc& pf = pending_.front();
      pause_.on_pfc(pf.class_enable, pf.quanta.data(), (pf.effect_ps + 999) / 1000, speed_bps_);
      pending_.pop_front();
      continue;
    }
    // So could a frame not read yet, unless the device holds all it may.
    if (has_peek_ && (best < 0 || (peek_.ts_ps <= best_t && room_for_peek()))) {
      ParsedPacket pp;
      const uint32_t len = static_cast<uint32_t>(peek_.bytes.size());
      const int prio = parse_frame(peek_.bytes.data(), len, len, pp) == ParseResult::ok
                           ? classify(cfg_, pp)
                           : cfg_.default_tc;
      ++queued_frames_;
      queued_bytes_ += len;
      fifo_[prio].push_back(std::move(peek_));
      peek_ = Frame{};
      read_peek();
      continue;
    }
    when = best_t;
    return best;
  }
}

uint64_t UpstreamSender::next_send_ps() {
  uint64_t when = kNever;
  return pick(when) < 0 ? kNever : when;
}

uint64_t UpstreamSender::next_wakeup_ps() const {
  const uint64_t ns = pause_.next_change_ns(0);
  return ns == UINT64_MAX ? kNever : ns * 1000;
}

const UpstreamSender::Frame& UpstreamSender::send() {
  uint64_t when = kNever;
  const int q = pick(when);  // the same answer next_send_ps() gave: nothing changed since
  if (sent_.bytes.capacity() && spare_.size() < kSpareBuffers)
    spare_.push_back(std::move(sent_.bytes));
  sent_ = std::move(fifo_[q].front());
  fifo_[q].pop_front();
  --queued_frames_;
  queued_bytes_ -= sent_.bytes.size();
  if (when > std::max(sent_.ts_ps, wire_.wire_free_ps())) ++held_;
  wire_.send(when, static_cast<uint32_t>(sent_.bytes.size()));
  sent_.ts_ps = when;  // the time its first bit reaches the switch
  return sent_;
}

void UpstreamSender::receive_pfc(uint64_t start_ps, uint32_t bytes, uint8_t class_enable,
                                 const uint16_t quanta[kPfcPriorities]) {
  PendingPfc pf;
  pf.effect_ps = start_ps + wire_.wire_ps(bytes) + pause_delay_ps_;
  pf.class_enable = class_enable;
  std::copy(quanta, quanta + kPfcPriorities, pf.quanta.begin());
  // Frames reach the device in the order the switch sent them.
  pending_.push_back(pf);
}

bool UpstreamSender::done() {
  if (has_peek_) return false;
  for (const auto& f : fifo_)
    if (!f.empty()) return false;
  return true;
}

}  // namespace rocelb
