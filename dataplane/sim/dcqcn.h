// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015) as NVIDIA ConnectX NICs run it: the reaction point (RP, the
// sender's per-QP rate limiter) and the notification point (NP, the
// receiver's CNP generator). Pure logic in picoseconds: no frames, no clock,
// no randomness. roce_nic.h drives one DcqcnRp per sending QP and one DcqcnNp
// per receiving QP.
//
// Knobs (DcqcnParams; names, units and defaults as NVIDIA's firmware and
// driver name them: mlxconfig ROCE_CC_* / sysfs ecn/roce_rp, ecn/roce_np):
//   enabled                        true      RP and NP on; off: line rate, no CNPs
//   rpg_time_reset                 300 us    rate-increase timer period
//   rpg_byte_reset                 32767 B   rate-increase byte counter (0: off)
//   rpg_threshold                  1         F: increase events per counter
//                                            before fast recovery ends
//   rpg_max_rate                   0 Mb/s    ceiling (0: the NIC's line rate)
//   rpg_ai_rate                    5 Mb/s    additive-increase step of RT
//   rpg_hai_rate                   50 Mb/s   hyper-increase step of RT
//   rpg_gd                         11        cut = RC × α / 2^rpg_gd (α in
//                                            1/1024: 11 gives the paper's α/2)
//   rpg_min_dec_fac                50 %      a cut leaves at least this % of RC
//   rpg_min_rate                   1 Mb/s    floor of RC
//   rate_to_set_on_first_cnp       0 Mb/s    RC = RT = this on the first CNP
//                                            (0: the first CNP cuts like any other)
//   dce_tcp_g                      1019      α update gain g/1024 (the paper's
//                                            g is 1 − 1019/1024 ≈ 1/205)
//   dce_tcp_rtt                    1 us      α update period
//   initial_alpha_value            1023      α (in 1/1024) set by the first CNP
//   rate_reduce_monitor_period     4 us      at most one cut per period
//   rate_reduce_mode               immediate immediate: a CNP cuts at once when
//                                            the last cut is a monitor period
//                                            old, else when it is; periodic:
//                                            cuts only on a clock of that
//                                            period started by the first CNP,
//                                            if a CNP came since the last tick
//                                            (ConWeave's/HPCC's ns-3 Mellanox
//                                            model, rdma-hw.cc:929-977; the
//                                            first CNP then waits a period)
//   rpg_increase                   counters  counters: the paper's phases from
//                                            the timer (T) and byte (BC)
//                                            counters; timer: from T alone as
//                                            that ns-3 model (rdma-hw.cc:
//                                            985-1040): T <= F fast recovery,
//                                            T = F + 1 additive, later hyper
//                                            by one rpg_hai_rate each (the
//                                            byte counter is not used)
//   clamp_tgt_rate                 false     every cut sets RT = RC
//   clamp_tgt_rate_after_time_inc  true      a cut sets RT = RC only if the
//                                            timer raised the rate since the
//                                            last cut (false: timer or bytes)
//   min_time_between_cnps          4 us      NP: at most one CNP per QP per this
//   cnp_mode                       frame     NP: how a CE mark is told: a CNP
//                                            frame (RoCEv2), or `ack`: BECN set
//                                            in the next ACK/NAK of the QP
//                                            (InfiniBand's BTH bit; the way
//                                            HPCC's and ConWeave's ns-3 flag
//                                            their ACKs), no CNP frames
//   cnp_on_nak                     false     NP: an out-of-order NAK (go-back-N,
//                                            or a hole's NAK under selective
//                                            repeat) also tells congestion, as
//                                            a CE mark would (ConWeave's ns-3:
//                                            rdma-hw.cc:636-656, "out-of-order
//                                            should accompany with CNP", IRN's
//                                            SACK too)
//   cnp_dscp                       48        NP: DSCP of CNPs
//   cnp_802p_prio                  6         NP: priority of CNPs in the NIC (PFC)
// Sources of the defaults: NVIDIA DOCA "DCQCN CC Parameters"
// (https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters:
// dce_tcp_g, dce_tcp_rtt, initial_alpha_value, rate_to_set_on_first_cnp,
// rpg_min_dec_fac, rpg_min_rate, rpg_gd, rate_reduce_monitor_period, units
// and ranges); Mellanox community "DCQCN Parameters" (DOC-2790,
// https://community.mellanox.com/s/article/dcqcn-parameters, the table
// Google's isekai simulator also quotes) and `mlxconfig query` dumps of
// ConnectX firmware defaults (RPG_TIME_RESET 300, RPG_BYTE_RESET 32767,
// RPG_THRESHOLD 1, RPG_MAX_RATE 0, RPG_AI_RATE 5, RPG_HAI_RATE 50,
// CLAMP_TGT_RATE 0, CLAMP_TGT_RATE_AFTER_TIME_INC 1, MIN_TIME_BETWEEN_CNPS 4,
// CNP_802P_PRIO 6, CNP_DSCP 48); mstflint's register layout gives
// rpg_byte_reset in bytes. The algorithm is the paper's.
//
// RP (per QP), with RC the current rate, RT the target, α in 1/1024:
//   start         RC = RT = max rate (rpg_max_rate or the line rate), idle.
//   CNP           the first: α = initial_alpha_value, the α clock starts, and
//                 RC = RT = rate_to_set_on_first_cnp if set, else a cut. Later
//                 ones: marks the current α period; cuts now if the last cut
//                 is rate_reduce_monitor_period old, else once it is.
//                 rate_reduce_mode periodic: the first CNP starts a clock of
//                 that period (and sets rate_to_set_on_first_cnp if set,
//                 else keeps the rate); a tick cuts if any CNP came since
//                 the last tick, the first CNP's included.
//   cut           RT = RC if clamped (above); RC −= RC × α / 2^rpg_gd, kept ≥
//                 RC × rpg_min_dec_fac %, ≥ rpg_min_rate; T = BC = 0; the
//                 increase timer restarts.
//   α             every dce_tcp_rtt from the first CNP: α = α·g/1024 +
//                 (1024 − g)/1024 if a CNP came in that period, else
//                 α·g/1024. Kept in 2^-32 (the knobs stay in 1/1024): a
//                 1/1024 integer would truncate α to 0 within ~600 us of
//                 quiet where the paper's real α is still ~0.05, and the
//                 next episode's cuts would start from nothing. Computed
//                 lazily.
//   increase      each rpg_time_reset (T += 1) and each rpg_byte_reset bytes
//                 sent (BC += 1) after a cut, with F = rpg_threshold:
//                   max(T, BC) ≤ F          fast recovery: RT unchanged
//                   min(T, BC) > F          hyper: RT += (min(T, BC) − F) × hai
//                   otherwise               additive: RT += ai
//                 (rpg_increase timer: T ≤ F fast recovery, T = F + 1
//                 additive, T > F + 1 hyper: RT += hai)
//                 then RT ≤ max rate and RC = ⌈(RT + RC) / 2⌉. Back at the max
//                 rate (RC = RT = max) the RP is idle: no timer, no counting.
// NP (per QP): a CE-marked packet asks for a CNP; one is sent unless the last
//   was sent less than min_time_between_cnps ago. cnp_mode ack: every
//   CE-marked packet sets BECN in the QP's next ACK or NAK (one still queued
//   takes it too), and the RP reacts to each such ACK as to a CNP.
// Counters: DcqcnRp::cuts() (rate cuts); the NIC counts CNPs.
#pragma once

#include <cstdint>

namespace rocelb {

struct DcqcnParams {
  bool enabled = true;
  // Reaction point (NVIDIA roce_rp).
  uint32_t rpg_time_reset = 300;    // us
  uint32_t rpg_byte_reset = 32767;  // bytes; 0: no byte counter
  uint32_t rpg_threshold = 1;
  uint32_t rpg_max_rate = 0;   // Mb/s; 0: line rate
  uint32_t rpg_ai_rate = 5;    // Mb/s
  uint32_t rpg_hai_rate = 50;  // Mb/s
  uint32_t rpg_gd = 11;
  uint32_t rpg_min_dec_fac = 50;            // %
  uint32_t rpg_min_rate = 1;                // Mb/s
  uint32_t rate_to_set_on_first_cnp = 0;    // Mb/s; 0: off
  uint32_t dce_tcp_g = 1019;                // of 1024
  uint32_t dce_tcp_rtt = 1;                 // us
  uint32_t initial_alpha_value = 1023;      // of 1024
  uint32_t rate_reduce_monitor_period = 4;  // us
  bool reduce_periodic = false;             // rate_reduce_mode: periodic (else immediate)
  bool increase_by_timer = false;           // rpg_increase: timer (else counters)
  bool clamp_tgt_rate = false;
  bool clamp_tgt_rate_after_time_inc = true;
  // Notification point (NVIDIA roce_np).
  uint32_t min_time_between_cnps = 4;  // us
  bool cnp_in_ack = false;             // cnp_mode: ack (else frame)
  bool cnp_on_nak = false;
  uint8_t cnp_dscp = 48;
  uint8_t cnp_802p_prio = 6;
};

// Which rule the last rate increase used.
enum class DcqcnIncrease : uint8_t { kNone, kFastRecovery, kAdditive, kHyper };

inline constexpr uint64_t kPsPerUs = 1'000'000;
inline constexpr uint64_t kMbps = 1'000'000;  // bits/s in 1 Mb/s

// The reaction point of one QP. Copyable; holds a pointer to its params,
// which must outlive it.
class DcqcnRp {
 public:
  DcqcnRp() = default;
  DcqcnRp(const DcqcnParams* p, uint64_t line_bps) { reset(p, line_bps); }
  void reset(const DcqcnParams* p, uint64_t line_bps);

  // A CNP for this QP at now_ps. True if it cut the rate now (false: the cut
  // waits for rate_reduce_monitor_period, see next_timer_ps()).
  bool on_cnp(uint64_t now_ps);
  // `bytes` of data were sent at now_ps (the byte counter). True if the
  // rate changed.
  bool on_sent(uint32_t bytes, uint64_t now_ps);
  // Runs what is due at now_ps: a deferred cut, rate-increase timer events.
  // True if the rate changed.
  bool on_timer(uint64_t now_ps);
  // When on_timer() next has work; UINT64_MAX: none.
  uint64_t next_timer_ps() const;

  uint64_t rate_bps() const { return rc_; }
  uint64_t target_bps() const { return rt_; }
  uint64_t max_bps() const { return max_; }
  // α as of now_ps, the lazy updates applied: in 2^-32 (1.0 = 2^32), and
  // rounded down to 1/1024 (the knobs' unit).
  uint64_t alpha_q32_at(uint64_t now_ps) const;
  uint32_t alpha_at(uint64_t now_ps) const {
    return static_cast<uint32_t>(alpha_q32_at(now_ps) >> 22);
  }
  uint32_t time_stage() const { return t_; }
  uint32_t byte_stage() const { return bc_; }
  uint64_t cuts() const { return cuts_; }
  bool active() const { return active_; }
  bool cut_pending() const { return cut_pending_; }
  DcqcnIncrease last_increase() const { return last_inc_; }

 private:
  void catch_up_alpha(uint64_t now_ps);
  void cut(uint64_t now_ps);
  void increase(bool timer);

  const DcqcnParams* p_ = nullptr;
  uint64_t max_ = 0;  // bits/s
  uint64_t min_ = 0;
  uint64_t rc_ = 0;
  uint64_t rt_ = 0;
  uint64_t alpha_epoch_ps_ = 0;  // start of the current α period
  uint64_t alpha_ = 0;           // in 2^-32
  uint64_t first_cnp_ps_ = 0;    // rate_reduce_mode periodic: its clock's origin
  uint64_t cut_due_ps_ = 0;      // when the pending cut is due
  uint64_t last_cut_ps_ = 0;
  uint64_t next_inc_ps_ = 0;  // next timer increase (when active)
  uint64_t bytes_ = 0;        // since the last byte-counter event
  uint64_t cuts_ = 0;
  uint32_t t_ = 0;   // timer increase events since the last cut
  uint32_t bc_ = 0;  // byte-counter increase events since the last cut
  bool seen_cnp_ = false;
  bool cnp_in_period_ = false;
  bool cut_pending_ = false;
  bool active_ = false;  // below the max rate: timers and counter run
  DcqcnIncrease last_inc_ = DcqcnIncrease::kNone;
};

// The notification point of one receiving QP.
class DcqcnNp {
 public:
  // A CE-marked packet of this QP arrived at now_ps: true if a CNP is to be
  // sent for it (at most one per min_time_between_cnps).
  bool on_ce(const DcqcnParams& p, uint64_t now_ps) {
    if (sent_ && now_ps < last_ps_ + uint64_t{p.min_time_between_cnps} * kPsPerUs) return false;
    sent_ = true;
    last_ps_ = now_ps;
    return true;
  }

 private:
  uint64_t last_ps_ = 0;
  bool sent_ = false;
};

}  // namespace rocelb
