#include "dataplane/sim/dcqcn.h"

#include <algorithm>

namespace rocelb {

void DcqcnRp::reset(const DcqcnParams* p, uint64_t line_bps) {
  *this = DcqcnRp();
  p_ = p;
  max_ = line_bps;
  if (p->rpg_max_rate != 0) max_ = std::min<uint64_t>(max_, uint64_t{p->rpg_max_rate} * kMbps);
  min_ = std::min<uint64_t>(max_, uint64_t{p->rpg_min_rate} * kMbps);
  rc_ = rt_ = max_;
}

namespace {

constexpr uint64_t kAlphaOne = uint64_t{1} << 32;  // α = 1.0 in 2^-32

}  // namespace

void DcqcnRp::catch_up_alpha(uint64_t now_ps) {
  if (!seen_cnp_) return;
  const uint64_t period = uint64_t{p_->dce_tcp_rtt} * kPsPerUs;
  if (period == 0) return;
  const uint64_t g = p_->dce_tcp_g;
  while (now_ps >= alpha_epoch_ps_ + period) {
    if (cnp_in_period_) {
      alpha_ = std::min(kAlphaOne, ((alpha_ * g) >> 10) + ((1024 - g) << 22));
      cnp_in_period_ = false;
    } else {
      if (alpha_ == 0) {  // stays 0: skip the remaining periods at once
        alpha_epoch_ps_ += (now_ps - alpha_epoch_ps_) / period * period;
        break;
      }
      alpha_ = (alpha_ * g) >> 10;
    }
    alpha_epoch_ps_ += period;
  }
}

uint64_t DcqcnRp::alpha_q32_at(uint64_t now_ps) const {
  DcqcnRp copy = *this;
  copy.catch_up_alpha(now_ps);
  return copy.alpha_;
}

void DcqcnRp::cut(uint64_t now_ps) {
  const bool clamp =
      p_->clamp_tgt_rate || (p_->clamp_tgt_rate_after_time_inc ? t_ > 0 : (t_ > 0 || bc_ > 0));
  if (clamp) rt_ = rc_;
  // α/1024 in the knob's terms: RC × α / 2^rpg_gd with α in 2^-32.
  const uint64_t dec =
      static_cast<uint64_t>((static_cast<unsigned __int128>(rc_) * alpha_) >> (p_->rpg_gd + 22));
  uint64_t rc = rc_ > dec ? rc_ - dec : 0;
  rc = std::max<uint64_t>(
      rc, static_cast<uint64_t>(static_cast<unsigned __int128>(rc_) * p_->rpg_min_dec_fac / 100));
  rc_ = std::min(std::max(rc, min_), max_);
  t_ = bc_ = 0;
  bytes_ = 0;
  cut_pending_ = false;
  last_cut_ps_ = now_ps;
  next_inc_ps_ = now_ps + uint64_t{p_->rpg_time_reset} * kPsPerUs;
  active_ = true;
  ++cuts_;
}

bool DcqcnRp::on_cnp(uint64_t now_ps) {
  if (p_ == nullptr || !p_->enabled) return false;
  catch_up_alpha(now_ps);
  const uint64_t period = uint64_t{p_->rate_reduce_monitor_period} * kPsPerUs;
  if (!seen_cnp_) {
    seen_cnp_ = true;
    alpha_ = uint64_t{std::min<uint32_t>(p_->initial_alpha_value, 1024)} << 22;
    alpha_epoch_ps_ = now_ps;
    first_cnp_ps_ = now_ps;
    cnp_in_period_ = false;
    const bool set_rate = p_->rate_to_set_on_first_cnp != 0;
    if (set_rate) {
      rc_ = rt_ = std::min(max_, std::max(min_, uint64_t{p_->rate_to_set_on_first_cnp} * kMbps));
      t_ = bc_ = 0;
      bytes_ = 0;
      last_cut_ps_ = now_ps;
      next_inc_ps_ = now_ps + uint64_t{p_->rpg_time_reset} * kPsPerUs;
      active_ = rc_ < max_;
      ++cuts_;
    }
    if (p_->reduce_periodic && period != 0) {  // the clock's first tick cuts
      cut_pending_ = true;
      cut_due_ps_ = now_ps + period;
      return set_rate;
    }
    if (set_rate) return true;
    cut(now_ps);
    return true;
  }
  cnp_in_period_ = true;
  if (p_->reduce_periodic && period != 0) {
    // The first tick at or after now: a CNP on a tick is that tick's.
    const uint64_t ticks = (now_ps - first_cnp_ps_ + period - 1) / period;
    cut_due_ps_ = first_cnp_ps_ + std::max<uint64_t>(ticks, 1) * period;
  } else {
    cut_due_ps_ = last_cut_ps_ + period;
  }
  if (now_ps >= cut_due_ps_) {
    cut(now_ps);
    return true;
  }
  cut_pending_ = true;
  return false;
}

void DcqcnRp::increase(bool timer) {
  if (timer)
    ++t_;
  else
    ++bc_;
  const uint32_t f = p_->rpg_threshold;
  const uint32_t hi = std::max(t_, bc_), lo = std::min(t_, bc_);
  if (p_->increase_by_timer) {  // ns-3's stages: T ≤ F, T = F + 1, beyond
    if (t_ <= f) {
      last_inc_ = DcqcnIncrease::kFastRecovery;
    } else if (t_ == f + 1) {
      rt_ += uint64_t{p_->rpg_ai_rate} * kMbps;
      last_inc_ = DcqcnIncrease::kAdditive;
    } else {
      rt_ += uint64_t{p_->rpg_hai_rate} * kMbps;
      last_inc_ = DcqcnIncrease::kHyper;
    }
  } else if (hi <= f) {
    last_inc_ = DcqcnIncrease::kFastRecovery;
  } else if (lo > f) {
    rt_ += uint64_t{lo - f} * p_->rpg_hai_rate * kMbps;
    last_inc_ = DcqcnIncrease::kHyper;
  } else {
    rt_ += uint64_t{p_->rpg_ai_rate} * kMbps;
    last_inc_ = DcqcnIncrease::kAdditive;
  }
  rt_ = std::min(rt_, max_);
  rc_ = std::min(max_, (rt_ + rc_ + 1) / 2);
  if (rc_ >= max_ && rt_ >= max_) {
    active_ = false;
    bytes_ = 0;
  }
}

bool DcqcnRp::on_sent(uint32_t bytes, uint64_t /*now_ps*/) {
  if (!active_ || p_->rpg_byte_reset == 0 || p_->increase_by_timer) return false;
  bytes_ += bytes;
  bool changed = false;
  while (active_ && bytes_ >= p_->rpg_byte_reset) {
    bytes_ -= p_->rpg_byte_reset;
    increase(false);
    changed = true;
  }
  return changed;
}

bool DcqcnRp::on_timer(uint64_t now_ps) {
  if (p_ == nullptr || !p_->enabled) return false;
  bool changed = false;
  if (cut_pending_ && now_ps >= cut_due_ps_) {
    catch_up_alpha(now_ps);
    cut(now_ps);
    changed = true;
  }
  const uint64_t period = uint64_t{p_->rpg_time_reset} * kPsPerUs;
  while (active_ && now_ps >= next_inc_ps_) {
    increase(true);
    next_inc_ps_ += period;
    changed = true;
  }
  return changed;
}

uint64_t DcqcnRp::next_timer_ps() const {
  uint64_t t = UINT64_MAX;
  if (cut_pending_) t = cut_due_ps_;
  if (active_) t = std::min(t, next_inc_ps_);
  return t;
}

}  // namespace rocelb
