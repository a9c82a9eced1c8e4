// The switch config's lossless RoCE keys under `qos`: pfc_enable, pfc
// (static or dynamic thresholds, headroom), buffer, wred, ecn_mark and
// pfc_watchdog, filling pfc/pfc_params.h. The defaults that PfcParams does
// not hold (they depend on the threshold kind) are here.
#include "control/config_sections.h"
#include "control/yaml_util.h"

namespace rocelb::config_detail {
namespace {

constexpr uint64_t kDefaultXoffBytes = 1'600'000;  // above the ECN range of default.yaml
constexpr uint64_t kDefaultXonBytes = 1'200'000;
constexpr uint64_t kDefaultXonOffsetBytes = 64'000;
constexpr uint64_t kDefaultSharedBufferBytes = 32'000'000;

KeyReader::Map section(const KeyReader::Map& qos, const char* key) {
  if (qos.has(key)) return qos.map(key);
  return qos.reader().map(YAML::Node(YAML::NodeType::Map), qos.at(key),
                          join_pattern(qos.pattern(), key));
}

uint8_t read_pfc_enable(const KeyReader::Map& qos) {
  const KeyReader& r = qos.reader();
  uint8_t mask = 0;
  std::array<size_t, kPfcPriorities> index{};
  size_t i = 0;
  qos.each("pfc_enable", [&](const YAML::Node& item, const std::string& p, const std::string& pat) {
    const uint64_t prio = r.uint(item, p, r.spec(pat));
    if (mask & (1u << prio))
      r.fail_value(
          p, item,
          "duplicate priority (also " + index_path("pfc_enable", slot(index, prio, p)) + ")");
    mask = static_cast<uint8_t>(mask | (1u << prio));
    slot(index, prio, p) = i++;
  });
  return mask;
}

// Thresholds are static (xoff, xon) or dynamic (dynamic_th, xon_offset):
// each value by its row first, then the rules between them.
void read_pfc(const KeyReader::Map& m, PfcParams& p) {
  const KeyReader& r = m.reader();
  m.read("pause_time", p.pause_quanta);
  std::string refresh;
  if (m.read("refresh", refresh)) p.refresh_on_arrival = refresh == "on_arrival";
  std::string admission;
  if (m.read("admission", admission)) p.admit_by_pool = admission == "shared_pool";
  int8_t dynamic_th = 0;
  uint64_t xoff = kDefaultXoffBytes, xon = kDefaultXonBytes, xon_offset = kDefaultXonOffsetBytes;
  const bool has_dynamic = m.read("dynamic_th", dynamic_th);
  const bool has_offset = m.read("xon_offset", xon_offset);
  const bool has_xoff = m.read("xoff", xoff);
  const bool has_xon = m.read("xon", xon);
  if ((has_xoff || has_xon) && (has_dynamic || has_offset)) {
    const char* dynamic = has_dynamic ? "dynamic_th" : "xon_offset";
    const char* fixed = has_xoff ? "xoff" : "xon";
    r.fail_value(m.at(dynamic), *m.get(dynamic),
                 std::string("cannot be combined with ") + fixed +
                     ": thresholds are either static (xoff, xon) or dynamic (dynamic_th, "
                     "xon_offset)",
                 also({m.at(fixed)}));
  }
  if (has_offset && !has_dynamic)
    r.fail_value(m.at("xon_offset"), *m.get("xon_offset"),
                 "xon_offset needs dynamic_th (it is the XON hysteresis of dynamic thresholds; "
                 "static thresholds use xon)");
  p.dynamic = has_dynamic;
  p.dynamic_th = has_dynamic ? dynamic_th : 0;
  p.xon_offset_bytes = has_dynamic ? xon_offset : 0;
  p.xoff_bytes = has_dynamic ? 0 : xoff;
  p.xon_bytes = has_dynamic ? 0 : xon;
  if (!has_dynamic && xon >= xoff) {
    if (has_xon)
      r.fail_value(
          m.at("xon"), *m.get("xon"),
          "xon must be below xoff (" + bytes_text(xoff) + (has_xoff ? "" : ", the default") + ")",
          also({m.at("xoff")}));
    r.fail_value(m.at("xoff"), *m.get("xoff"),
                 "xoff must be above xon (" + bytes_text(xon) + ", the default; set " +
                     m.at("xon") + " too)");
  }
  if (m.word("headroom"))
    p.headroom_bytes = 0;  // auto
  else
    m.read("headroom", p.headroom_bytes);
  m.read("cable_length", p.cable_length_m);
  m.read("response_delay", p.response_delay_ns);
}

void read_wred(const KeyReader::Map& qos, LosslessParams& l) {
  const KeyReader& r = qos.reader();
  const std::string enable_path = qos.at("pfc_enable");
  qos.numbered("wred", [&](uint64_t tc, const YAML::Node& value, const std::string& entry,
                           const std::string& pat) {
    const KeyReader::Map m = r.map(value, entry, pat);
    WredProfile w;
    w.enabled = true;
    w.probability_pct = 100;
    m.read("green_min_threshold", w.min_bytes);
    m.read("green_max_threshold", w.max_bytes);
    if (w.max_bytes <= w.min_bytes)
      r.fail_value(
          m.at("green_max_threshold"), m.require("green_max_threshold"),
          "green_max_threshold must be above green_min_threshold (" + bytes_text(w.min_bytes) + ")",
          also({m.at("green_min_threshold")}));
    m.read("green_drop_probability", w.probability_pct);
    std::string ecn;
    if (m.read("ecn", ecn)) {
      w.ecn = ecn == "ecn_none" ? EcnMode::kEcnNone : EcnMode::kEcnAll;
      if (w.ecn == EcnMode::kEcnNone && (l.pfc.enable_mask & (1u << tc)))
        r.fail_value(m.at("ecn"), *m.get("ecn"),
                     "class " + std::to_string(tc) +
                         " is lossless (qos.pfc_enable): WRED may mark it (ecn_all) but not drop "
                         "from it (ecn_none)",
                     also({enable_path}));
    }
    slot(l.wred, tc, entry) = w;
  });
}

WatchdogParams read_watchdog(const KeyReader::Map& m) {
  const KeyReader& r = m.reader();
  WatchdogParams w;
  m.read("enabled", w.enabled);
  m.read("detection_time", w.detection_ns);
  m.read("restoration_time", w.restoration_ns);
  std::string action;
  if (m.read("action", action))
    w.action = action == "forward" ? WatchdogAction::kForward
               : action == "alert" ? WatchdogAction::kAlert
                                   : WatchdogAction::kDrop;
  if (m.read("poll_interval", w.poll_interval_ns)) {
    if (w.poll_interval_ns > w.detection_ns)
      r.fail_value(
          m.at("poll_interval"), *m.get("poll_interval"),
          "poll interval must not exceed detection_time (" + duration_text(w.detection_ns) + ")",
          also({m.at("detection_time")}));
    if (w.poll_interval_ns > w.restoration_ns)
      r.fail_value(m.at("poll_interval"), *m.get("poll_interval"),
                   "poll interval must not exceed restoration_time (" +
                       duration_text(w.restoration_ns) + ")",
                   also({m.at("restoration_time")}));
  }
  return w;
}

}  // namespace

void read_lossless(const KeyReader::Map& qos, LosslessParams& l) {
  if (qos.has("pfc_enable")) l.pfc.enable_mask = read_pfc_enable(qos);
  read_pfc(section(qos, "pfc"), l.pfc);
  l.pfc.shared_buffer_bytes = kDefaultSharedBufferBytes;
  section(qos, "buffer").read("shared_size", l.pfc.shared_buffer_bytes);
  read_wred(qos, l);
  std::string mark;
  if (qos.read("ecn_mark", mark))
    l.ecn_mark = mark == "dequeue" ? EcnMarkPoint::kDequeue : EcnMarkPoint::kEnqueue;
  if (qos.has("pfc_watchdog")) l.watchdog = read_watchdog(qos.map("pfc_watchdog"));
}

}  // namespace rocelb::config_detail
