#include "dataplane/record/switch_recorder.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cinttypes>

#include "control/human_units.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/forward/switch_config.h"
#include "dataplane/wire/flow_key_of.h"
#include "dataplane/wire/parser.h"
#include "lb/flow_hash.h"
#include "lb/lb_mode.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

std::string value_text(uint8_t compared, uint64_t v) {
  return compared == static_cast<uint8_t>(LbCompared::kQueueBytes) ? human_bytes(v)
                                                                   : std::to_string(v);
}

std::string priorities_text(uint8_t mask) {
  std::string s;
  for (int p = 0; p < kPfcPriorities; ++p)
    if ((mask >> p) & 1) {
      if (!s.empty()) s += ',';
      s += std::to_string(p);
    }
  return s;
}

}  // namespace

std::string annotate_departure(const PacketNote* note, uint16_t port, uint64_t start_ns,
                               const ParsedPacket* p) {
  if (p && p->kind == L3Kind::kMacControl && p->mac_control_opcode == kPfcOpcode) {
    uint8_t xoff = 0, xon = 0;
    uint16_t quanta = 0;
    for (int c = 0; c < kPfcPriorities; ++c)
      if ((p->pfc_class_enable >> c) & 1) {
        if (p->pfc_quanta[c]) {
          xoff |= static_cast<uint8_t>(1u << c);
          quanta = std::max(quanta, p->pfc_quanta[c]);
        } else {
          xon |= static_cast<uint8_t>(1u << c);
        }
      }
    std::string s = "PFC sent by the switch on port " + std::to_string(port) + ":";
    if (xoff)
      s += " XOFF priority " + priorities_text(xoff) + " (" + std::to_string(quanta) + " quanta)";
    if (xon) s += std::string(xoff ? ";" : "") + " XON priority " + priorities_text(xon);
    return s;
  }
  if (!note || !(note->flags & kNoteArrived)) return {};
  std::string s =
      "in port " + std::to_string(note->in_port) + " \xE2\x86\x92 out port " + std::to_string(port);
  if (note->flags & kNoteQueued) {
    s += " class " + std::to_string(note->tc) + ", queue " + human_bytes(note->depth_bytes);
    if (start_ns >= note->enqueue_ns)
      s += ", sojourn " + human_duration_ns(start_ns - note->enqueue_ns);
  }
  if (note->flags & kNoteMarked) s += ", ECN CE by the switch";
  if (note->flags & kNoteBalanced) {
    if (note->flags & kNoteFlowletMode)
      s += (note->flags & kNoteNewFlowlet) ? ", flowlet new" : ", flowlet continues";
    s += ", member " + std::to_string(note->member) + " of " + std::to_string(note->members);
    if (note->compared != static_cast<uint8_t>(LbCompared::kNothing)) {
      const bool bands = note->compared == static_cast<uint8_t>(LbCompared::kBands);
      s += bands ? " by band " : " by queue ";
      s += value_text(note->compared, note->chosen_value);
      if (note->flags & kNoteOthers) {
        s += note->chosen_value < note->other_value ? "<" : "=";
        s += value_text(note->compared, note->other_value);
        if (note->chosen_value == note->other_value) s += " (tie)";
      }
    } else if (note->flags & kNoteFlowletMode) {
      if (!(note->flags & kNoteNewFlowlet)) s += " (kept)";
    } else {
      s += " by hash";
    }
  }
  return s;
}

SwitchRecorder::SwitchRecorder(std::string name, Dataplane& dp, uint64_t base_ns, std::FILE* events,
                               EventFilter filter)
    : name_(std::move(name)),
      dp_(dp),
      base_ns_(base_ns),
      f_(events),
      filter_(std::move(filter)),
      counts_(dp.port_slots()),
      scratch_(1 << 18) {
  dp_.set_observer(this);
}

SwitchRecorder::~SwitchRecorder() {
  if (dp_.observer() == this) dp_.set_observer(nullptr);
}

bool SwitchRecorder::parse(const rte_mbuf* m) {
  parsed_ = ParsedPacket{};
  const uint8_t* bytes = mbuf_bytes(m, scratch_.data());
  return parse_frame(bytes, m->pkt_len, m->pkt_len, parsed_) == ParseResult::ok ||
         parsed_.ip_version != 0;
}

bool SwitchRecorder::begin(const char* ev, uint64_t now_ns, uint16_t port, int in_port, int tc,
                           bool parsed) {
  if (!f_) return false;
  if (!filter_.empty() && !filter_.matches(port, in_port, tc, parsed ? &parsed_ : nullptr))
    return false;
  if (budget_) {
    if (!budget_->room(kMaxLineBytes, now_ns)) return false;  // recording stopped
    line_start_ = std::ftell(f_);
  }
  std::fprintf(f_, "{\"t_ns\":%" PRIu64 ",\"ev\":\"%s\",\"switch\":\"%s\",\"port\":%u",
               base_ns_ + now_ns, ev, name_.c_str(), port);
  if (in_port >= 0) std::fprintf(f_, ",\"in_port\":%d", in_port);
  if (tc >= 0 && tc != kClassUnknown) std::fprintf(f_, ",\"class\":%d", tc);
  return true;
}

void SwitchRecorder::packet_fields(bool parsed, uint32_t len) {
  std::fprintf(f_, ",\"len\":%u", len);
  if (!parsed || parsed_.ip_version == 0) return;
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  const int af = parsed_.ip_version == 6 ? AF_INET6 : AF_INET;
  inet_ntop(af, parsed_.src_ip, src, sizeof src);
  inet_ntop(af, parsed_.dst_ip, dst, sizeof dst);
  std::fprintf(f_, ",\"flow\":{\"src\":\"%s\",\"dst\":\"%s\",\"proto\":%u", src, dst,
               parsed_.proto);
  if (parsed_.has_udp) std::fprintf(f_, ",\"sport\":%u,\"dport\":%u", parsed_.sport, parsed_.dport);
  std::fputc('}', f_);
  if (parsed_.has_bth)
    std::fprintf(f_, ",\"qp\":%u,\"psn\":%u,\"opcode\":%u", parsed_.bth_dest_qp, parsed_.bth_psn,
                 parsed_.bth_opcode);
  if (parsed_.ecn == 3) std::fputs(",\"ce\":true", f_);
}

void SwitchRecorder::end() {
  std::fputs("}\n", f_);
  ++lines_;
  if (budget_) budget_->add_span(line_start_, std::ftell(f_));
}

void SwitchRecorder::arrive(uint16_t port, rte_mbuf* m, uint32_t len, uint64_t now_ns) {
  if (!m) {
    ++counts_.port_drops[port];
    if (begin("drop", now_ns, port, port, -1, false)) {
      std::fprintf(f_, ",\"reason\":\"no_buffer\",\"len\":%u", len);
      end();
    }
    return;
  }
  if (PacketNote* n = packet_note(m)) {
    *n = PacketNote{};
    n->arrive_ns = now_ns;
    n->in_port = port;
    n->flags = kNoteArrived;
  }
  const bool parsed = parse(m);
  if (parsed_.kind == L3Kind::kMacControl && parsed_.mac_control_opcode == kPfcOpcode) {
    for (int c = 0; c < kPfcPriorities; ++c)
      if ((parsed_.pfc_class_enable >> c) & 1) ++counts_.pfc_rx[port][c];
    if (begin("pfc_rx", now_ns, port, -1, -1, parsed)) {
      std::fprintf(f_, ",\"class_enable\":%u,\"quanta\":[", parsed_.pfc_class_enable);
      for (int c = 0; c < kPfcPriorities; ++c)
        std::fprintf(f_, "%s%u", c ? "," : "", parsed_.pfc_quanta[c]);
      std::fputc(']', f_);
      end();
    }
    return;
  }
  if (begin("arrive", now_ns, port, -1, -1, parsed)) {
    packet_fields(parsed, len);
    end();
  }
}

void SwitchRecorder::depart(uint16_t port, rte_mbuf* m, uint64_t start_ns, std::string* comment) {
  PacketNote* n = packet_note(m);
  const bool parsed = (f_ || comment) && parse(m);
  const bool pfc =
      parsed && parsed_.kind == L3Kind::kMacControl && parsed_.mac_control_opcode == kPfcOpcode;
  if (pfc) {
    for (int c = 0; c < kPfcPriorities; ++c)
      if ((parsed_.pfc_class_enable >> c) & 1) ++counts_.pfc_tx[port][c];
    if (begin("pfc_tx", start_ns, port, -1, -1, parsed)) {
      std::fprintf(f_, ",\"class_enable\":%u,\"quanta\":[", parsed_.pfc_class_enable);
      for (int c = 0; c < kPfcPriorities; ++c)
        std::fprintf(f_, "%s%u", c ? "," : "", parsed_.pfc_quanta[c]);
      std::fputc(']', f_);
      end();
    }
  } else if (n && (n->flags & kNoteQueued)) {
    if (begin("dequeue", start_ns, port, n->in_port, n->tc, parsed)) {
      packet_fields(parsed, m->pkt_len);
      std::fprintf(f_, ",\"sojourn_ns\":%" PRIu64,
                   start_ns >= n->enqueue_ns ? start_ns - n->enqueue_ns : 0);
      end();
    }
  } else if (begin("dequeue", start_ns, port, -1, -1, parsed)) {
    packet_fields(parsed, m->pkt_len);
    end();
  }
  if (comment)
    *comment = annotate_departure(pfc ? nullptr : n, port, start_ns, parsed ? &parsed_ : nullptr);
  if (n) n->flags = 0;
}

void SwitchRecorder::on_balance(rte_mbuf* m, const GroupConfig& g, const LbDecision& d,
                                uint16_t port, uint64_t now_ns) {
  if (PacketNote* n = packet_note(m)) {
    n->flags |= kNoteBalanced;
    if (uses_flowlets(g.spec.mode)) n->flags |= kNoteFlowletMode;
    if (d.new_flowlet) n->flags |= kNoteNewFlowlet;
    n->member = static_cast<uint8_t>(std::min<uint32_t>(d.member, 255));
    n->members = static_cast<uint8_t>(std::min<size_t>(g.members.size(), 255));
    n->compared = static_cast<uint8_t>(d.compared);
    bool others = false;
    uint64_t other = UINT64_MAX;
    for (uint32_t i = 0; i < d.num_candidates; ++i) {
      if (d.candidate[i] == d.member) {
        n->chosen_value = d.value[i];
      } else {
        others = true;
        other = std::min(other, d.value[i]);
      }
    }
    if (others) {
      n->flags |= kNoteOthers;
      n->other_value = other;
    }
  }
  if (!f_) return;
  const bool parsed = parse(m);
  if (!filter_.empty() && !filter_.matches(port, m->port, -1, parsed ? &parsed_ : nullptr)) return;
  if (budget_) {
    if (!budget_->room(kMaxLineBytes, now_ns)) return;  // recording stopped
    line_start_ = std::ftell(f_);
  }
  FlowKey key;
  flow_key_of(parsed_, rte_pktmbuf_mtod(m, const uint8_t*), m->data_len, key);
  char head[160];
  std::snprintf(head, sizeof head, "\"ev\":\"lb\",\"switch\":\"%s\",", name_.c_str());
  write_decision_json(f_, base_ns_ + now_ns, head, g.name, g.spec.mode, key,
                      flow_hash(key, g.spec.hash), d, port);
  ++lines_;
  if (budget_) budget_->add_span(line_start_, std::ftell(f_));
}

void SwitchRecorder::on_enqueue(rte_mbuf* m, uint16_t in_port, uint16_t port, uint8_t tc,
                                uint64_t depth_bytes, uint64_t depth_packets, uint64_t now_ns) {
  uint64_t& peak = counts_.peak_bytes[port][tc];
  peak = std::max(peak, depth_bytes);
  if (PacketNote* n = packet_note(m)) {
    n->flags |= kNoteQueued;
    n->enqueue_ns = now_ns;
    n->tc = tc;
    n->in_port = in_port;
    n->depth_bytes = static_cast<uint32_t>(std::min<uint64_t>(depth_bytes, UINT32_MAX));
  }
  if (!f_) return;
  const bool parsed = parse(m);
  if (begin("enqueue", now_ns, port, in_port, tc, parsed)) {
    packet_fields(parsed, m->pkt_len);
    std::fprintf(f_, ",\"depth_bytes\":%" PRIu64 ",\"depth_packets\":%" PRIu64, depth_bytes,
                 depth_packets);
    end();
  }
}

void SwitchRecorder::on_mark(rte_mbuf* m, uint16_t port, uint8_t tc, MarkWhere where,
                             uint64_t now_ns) {
  ++counts_.marks[port][tc];
  if (PacketNote* n = packet_note(m)) n->flags |= kNoteMarked;
  if (!f_) return;
  const bool parsed = parse(m);
  if (begin("mark", now_ns, port, m->port, tc, parsed)) {
    std::fprintf(f_, ",\"where\":\"%s\"", where == MarkWhere::kEnqueue ? "enqueue" : "dequeue");
    packet_fields(parsed, m->pkt_len);
    end();
  }
}

void SwitchRecorder::on_drop(const rte_mbuf* m, uint16_t port, uint8_t tc, DropReason r,
                             uint64_t now_ns) {
  ++counts_.port_drops[port];
  if (tc < kNumTrafficClasses) ++counts_.class_drops[port][tc];
  if (PacketNote* n = packet_note(const_cast<rte_mbuf*>(m))) n->flags = 0;
  if (!f_) return;
  const bool parsed = parse(m);
  if (begin("drop", now_ns, port, -1, tc < kNumTrafficClasses ? tc : -1, parsed)) {
    const std::string_view reason = kDropInfo[static_cast<int>(r)].name;
    std::fprintf(f_, ",\"reason\":\"%.*s\"", static_cast<int>(reason.size()), reason.data());
    packet_fields(parsed, m->pkt_len);
    end();
  }
}

}  // namespace rocelb
