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

void DcqcnRp::catch_up_alpha(uint64_t now_ps) {
  if (!seen_cnp_) return;
  const uint64_t period = uint64_t{p_->dce_tcp_rtt} * kPsPerUs;
  if (period == 0) return;
  const uint32_t g = p_->dce_tcp_g;
  while (now_ps >= alpha_epoch_ps_ + period) {
    if (cnp_in_period_) {
      alpha_ = std::min<uint32_t>(1024, ((alpha_ * g) >> 10) + (1024 - g));
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

uint32_t DcqcnRp::alpha_at(uint64_t now_ps) const {
  DcqcnRp copy = *this;
  copy.catch_up_alpha(now_ps);
  return copy.alpha_;
}

void DcqcnRp::cut(uint64_t now_ps) {
  const bool clamp =
      p_->clamp_tgt_rate || (p_->clamp_tgt_rate_after_time_inc ? t_ > 0 : (t_ > 0 || bc_ > 0));
  if (clamp) rt_ = rc_;
  const uint64_t dec =
      static_cast<uint64_t>((static_cast<unsigned __int128>(rc_) * alpha_) >> p_->rpg_gd);
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
  if (!seen_cnp_) {
    seen_cnp_ = true;
    alpha_ = std::min<uint32_t>(p_->initial_alpha_value, 1024);
    alpha_epoch_ps_ = now_ps;
    cnp_in_period_ = false;
    if (p_->rate_to_set_on_first_cnp != 0) {
      rc_ = rt_ = std::min(max_, std::max(min_, uint64_t{p_->rate_to_set_on_first_cnp} * kMbps));
      t_ = bc_ = 0;
      bytes_ = 0;
      last_cut_ps_ = now_ps;
      next_inc_ps_ = now_ps + uint64_t{p_->rpg_time_reset} * kPsPerUs;
      active_ = rc_ < max_;
      ++cuts_;
      return true;
    }
    cut(now_ps);
    return true;
  }
  cnp_in_period_ = true;
  if (now_ps >= last_cut_ps_ + uint64_t{p_->rate_reduce_monitor_period} * kPsPerUs) {
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
  if (hi <= f) {
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
  if (!active_ || p_->rpg_byte_reset == 0) return false;
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
  if (cut_pending_ &&
      now_ps >= last_cut_ps_ + uint64_t{p_->rate_reduce_monitor_period} * kPsPerUs) {
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
  if (cut_pending_) t = last_cut_ps_ + uint64_t{p_->rate_reduce_monitor_period} * kPsPerUs;
  if (active_) t = std::min(t, next_inc_ps_);
  return t;
}

}  // namespace rocelb
