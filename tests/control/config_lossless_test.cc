// The lossless RoCE keys of qos (pfc_enable, pfc, buffer, wred, ecn_mark,
// pfc_watchdog): defaults, every value they take, and one test per rule with
// its message.
#include <gtest/gtest.h>

#include "control/config_loader.h"
#include "tests/control/config_test_util.h"

namespace rocelb {
namespace {

using test::Doc;
using test::error_of;
using test::load;

std::string qos_error(const std::string& qos, const std::vector<std::string>& overrides = {}) {
  Doc d;
  d.qos = "qos: " + qos + "\n";
  return error_of(d.text(), overrides);
}

LosslessParams lossless_of(const std::string& qos) {
  Doc d;
  d.qos = "qos: " + qos + "\n";
  return load(d.text()).qos.lossless;
}

// What a config without any lossless key gets.
void expect_defaults(const LosslessParams& l) {
  const PfcParams& p = l.pfc;
  EXPECT_EQ(p.enable_mask, 1u << 3);
  EXPECT_EQ(p.pause_quanta, 65535u);
  EXPECT_FALSE(p.dynamic);
  EXPECT_EQ(p.xoff_bytes, 1'600'000u);
  EXPECT_EQ(p.xon_bytes, 1'200'000u);
  EXPECT_EQ(p.dynamic_th, 0);
  EXPECT_EQ(p.xon_offset_bytes, 0u);
  EXPECT_EQ(p.shared_buffer_bytes, 32'000'000u);
  EXPECT_EQ(p.headroom_bytes, 0u);  // auto
  EXPECT_EQ(p.cable_length_m, 100u);
  EXPECT_EQ(p.response_delay_ns, 1000u);
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) EXPECT_EQ(l.wred[tc], WredProfile{}) << tc;
  EXPECT_EQ(l.ecn_mark, EcnMarkPoint::kEnqueue);
  EXPECT_TRUE(l.watchdog.enabled);
  EXPECT_EQ(l.watchdog.detection_ns, 200'000'000u);
  EXPECT_EQ(l.watchdog.restoration_ns, 200'000'000u);
  EXPECT_EQ(l.watchdog.action, WatchdogAction::kDrop);
  EXPECT_EQ(l.watchdog.poll_interval_ns, 1'000'000u);
}

// ---- defaults ----------------------------------------------------------------

TEST(ConfigLossless, DefaultsWithoutQos) {
  expect_defaults(load(Doc().text()).qos.lossless);
}

TEST(ConfigLossless, DefaultsWithEmptyOrNullSections) {
  expect_defaults(lossless_of("{}"));
  expect_defaults(lossless_of("{trust: dscp}"));
  expect_defaults(lossless_of("{pfc: {}, buffer: {}, wred: {}, pfc_watchdog: {}}"));
  expect_defaults(lossless_of("{pfc: , buffer: , pfc_watchdog: , pfc_enable: }"));
  expect_defaults(load(Doc().ports + "qos:\n").qos.lossless);
  // Every default written out gives the same thing.
  expect_defaults(lossless_of(
      "{pfc_enable: [3], pfc: {pause_time: 65535, xoff: 1.6MB, xon: 1.2MB, headroom: auto, "
      "cable_length: 100m, response_delay: 1us}, buffer: {shared_size: 32MB}, ecn_mark: enqueue, "
      "pfc_watchdog: {enabled: true, detection_time: 200ms, restoration_time: 200ms, action: "
      "drop, poll_interval: 1ms}}"));
}

TEST(ConfigLossless, PfcOffKeepsTheOtherKnobs) {
  LosslessParams l = lossless_of("{pfc_enable: []}");
  EXPECT_EQ(l.pfc.enable_mask, 0u);
  EXPECT_EQ(l.pfc.xoff_bytes, 1'600'000u);
  EXPECT_EQ(l.pfc.xon_bytes, 1'200'000u);
  EXPECT_TRUE(l.watchdog.enabled);
}

// ---- values ------------------------------------------------------------------

TEST(ConfigLossless, PfcEnable) {
  EXPECT_EQ(lossless_of("{pfc_enable: [3, 4]}").pfc.enable_mask, 0x18u);
  EXPECT_EQ(lossless_of("{pfc_enable: [0, 1, 2, 3, 4, 5, 6, 7]}").pfc.enable_mask, 0xffu);
  EXPECT_EQ(lossless_of("{pfc_enable: [7, 0]}").pfc.enable_mask, 0x81u);
}

TEST(ConfigLossless, StaticThresholds) {
  LosslessParams l = lossless_of(
      "{pfc: {pause_time: 0xffff, xoff: 512KiB, xon: 256KiB, headroom: 100KB, cable_length: 2km, "
      "response_delay: 500ns}, buffer: {shared_size: 16MiB}}");
  const PfcParams& p = l.pfc;
  EXPECT_EQ(p.pause_quanta, 65535u);
  EXPECT_FALSE(p.dynamic);
  EXPECT_EQ(p.xoff_bytes, 524'288u);
  EXPECT_EQ(p.xon_bytes, 262'144u);
  EXPECT_EQ(p.xon_offset_bytes, 0u);
  EXPECT_EQ(p.headroom_bytes, 100'000u);
  EXPECT_EQ(p.cable_length_m, 2000u);
  EXPECT_EQ(p.response_delay_ns, 500u);
  EXPECT_EQ(p.shared_buffer_bytes, 16u << 20);

  EXPECT_EQ(lossless_of("{pfc: {pause_time: 1}}").pfc.pause_quanta, 1u);
  EXPECT_EQ(lossless_of("{pfc: {xon: 0}}").pfc.xon_bytes, 0u);
  EXPECT_EQ(lossless_of("{pfc: {xon: 1599999}}").pfc.xon_bytes, 1'599'999u);
  EXPECT_EQ(lossless_of("{pfc: {xoff: 2MB}}").pfc.xoff_bytes, 2'000'000u);
  EXPECT_EQ(lossless_of("{pfc: {xoff: 2MB}}").pfc.xon_bytes, 1'200'000u);
  EXPECT_EQ(lossless_of("{pfc: {xoff: 64, xon: 63}}").pfc.xoff_bytes, 64u);
  EXPECT_EQ(lossless_of("{pfc: {xoff: 1GB}}").pfc.xoff_bytes, 1'000'000'000u);
  EXPECT_EQ(lossless_of("{pfc: {cable_length: 300}}").pfc.cable_length_m, 300u);
  EXPECT_EQ(lossless_of("{pfc: {cable_length: 1.5km}}").pfc.cable_length_m, 1500u);
  EXPECT_EQ(lossless_of("{pfc: {cable_length: 100km}}").pfc.cable_length_m, 100'000u);
  EXPECT_EQ(lossless_of("{pfc: {cable_length: 1m}}").pfc.cable_length_m, 1u);
  EXPECT_EQ(lossless_of("{pfc: {response_delay: 0}}").pfc.response_delay_ns, 0u);
  EXPECT_EQ(lossless_of("{pfc: {response_delay: 1ms}}").pfc.response_delay_ns, 1'000'000u);
  EXPECT_EQ(lossless_of("{pfc: {headroom: 64}}").pfc.headroom_bytes, 64u);
  EXPECT_EQ(lossless_of("{buffer: {shared_size: 64KB}}").pfc.shared_buffer_bytes, 64'000u);
  EXPECT_EQ(lossless_of("{buffer: {shared_size: 1GB}}").pfc.shared_buffer_bytes, 1'000'000'000u);
}

TEST(ConfigLossless, DynamicThresholds) {
  LosslessParams l = lossless_of("{pfc: {dynamic_th: -2, xon_offset: 32KB}}");
  EXPECT_TRUE(l.pfc.dynamic);
  EXPECT_EQ(l.pfc.dynamic_th, -2);
  EXPECT_EQ(l.pfc.xon_offset_bytes, 32'000u);
  EXPECT_EQ(l.pfc.xoff_bytes, 0u);
  EXPECT_EQ(l.pfc.xon_bytes, 0u);
  // xon_offset defaults to 64KB in dynamic mode.
  EXPECT_EQ(lossless_of("{pfc: {dynamic_th: 0}}").pfc.xon_offset_bytes, 64'000u);
  EXPECT_EQ(lossless_of("{pfc: {dynamic_th: -7}}").pfc.dynamic_th, -7);
  EXPECT_EQ(lossless_of("{pfc: {dynamic_th: 3}}").pfc.dynamic_th, 3);
  EXPECT_EQ(lossless_of("{pfc: {dynamic_th: -0}}").pfc.dynamic_th, 0);
}

TEST(ConfigLossless, Wred) {
  LosslessParams l = lossless_of(
      "{wred: {3: {green_min_threshold: 150KB, green_max_threshold: 1.5MB, "
      "green_drop_probability: 100, ecn: ecn_all}, 0: {green_min_threshold: 0, "
      "green_max_threshold: 64KiB, green_drop_probability: 5, ecn: ecn_none}}}");
  EXPECT_EQ(l.wred[3], (WredProfile{true, 150'000, 1'500'000, 100, EcnMode::kEcnAll}));
  EXPECT_EQ(l.wred[0], (WredProfile{true, 0, 65'536, 5, EcnMode::kEcnNone}));
  for (int tc : {1, 2, 4, 5, 6, 7}) EXPECT_FALSE(l.wred[tc].enabled) << tc;
  // Probability defaults to 100 %, ecn to ecn_all.
  EXPECT_EQ(
      lossless_of("{wred: {5: {green_min_threshold: 1KB, green_max_threshold: 2KB}}}").wred[5],
      (WredProfile{true, 1000, 2000, 100, EcnMode::kEcnAll}));
  EXPECT_EQ(lossless_of("{wred: {5: {green_min_threshold: 1KB, green_max_threshold: 1001, "
                        "green_drop_probability: 0}}}")
                .wred[5]
                .probability_pct,
            0u);
  // ecn_none is fine on a class that is not lossless.
  EXPECT_EQ(lossless_of("{pfc_enable: [], wred: {3: {green_min_threshold: 1KB, "
                        "green_max_threshold: 2KB, ecn: ecn_none}}}")
                .wred[3]
                .ecn,
            EcnMode::kEcnNone);
}

TEST(ConfigLossless, EcnMark) {
  EXPECT_EQ(lossless_of("{ecn_mark: enqueue}").ecn_mark, EcnMarkPoint::kEnqueue);
  EXPECT_EQ(lossless_of("{ecn_mark: dequeue}").ecn_mark, EcnMarkPoint::kDequeue);
}

TEST(ConfigLossless, Watchdog) {
  LosslessParams l = lossless_of(
      "{pfc_watchdog: {enabled: false, detection_time: 400ms, restoration_time: 2s, action: "
      "forward, poll_interval: 100us}}");
  EXPECT_FALSE(l.watchdog.enabled);
  EXPECT_EQ(l.watchdog.detection_ns, 400'000'000u);
  EXPECT_EQ(l.watchdog.restoration_ns, 2'000'000'000u);
  EXPECT_EQ(l.watchdog.action, WatchdogAction::kForward);
  EXPECT_EQ(l.watchdog.poll_interval_ns, 100'000u);
  EXPECT_EQ(lossless_of("{pfc_watchdog: {action: alert}}").watchdog.action, WatchdogAction::kAlert);
  EXPECT_EQ(lossless_of("{pfc_watchdog: {action: drop}}").watchdog.action, WatchdogAction::kDrop);
  l = lossless_of(
      "{pfc_watchdog: {detection_time: 1ms, restoration_time: 60s, poll_interval: 1ms}}");
  EXPECT_EQ(l.watchdog.detection_ns, 1'000'000u);
  EXPECT_EQ(l.watchdog.restoration_ns, 60'000'000'000u);
  EXPECT_EQ(l.watchdog.poll_interval_ns, 1'000'000u);
  l = lossless_of("{pfc_watchdog: {detection_time: 5s, restoration_time: 5s, poll_interval: 1s}}");
  EXPECT_EQ(l.watchdog.poll_interval_ns, 1'000'000'000u);
}

// ---- rules -------------------------------------------------------------------

TEST(ConfigLosslessRules, UnknownKeys) {
  EXPECT_EQ(qos_error("{pfc: {xof: 1MB}}"),
            "x.yaml: qos.pfc.xof: unknown key, did you mean \"xoff\"? (known: pause_time, refresh, "
            "admission, xoff, xon, dynamic_th, xon_offset, headroom, cable_length, "
            "response_delay)");
  EXPECT_EQ(qos_error("{buffer: {size: 1MB}}"),
            "x.yaml: qos.buffer.size: unknown key (known: shared_size)");
  EXPECT_EQ(qos_error("{wred: {3: {min: 1KB}}}"),
            "x.yaml: qos.wred.3.min: unknown key (known: green_min_threshold, "
            "green_max_threshold, green_drop_probability, ecn)");
  EXPECT_EQ(qos_error("{pfc_watchdog: {detection: 1s}}"),
            "x.yaml: qos.pfc_watchdog.detection: unknown key (known: enabled, detection_time, "
            "restoration_time, action, poll_interval)");
  EXPECT_EQ(qos_error("{pfc: [1]}"), "x.yaml: qos.pfc: expected a map, found a list");
  EXPECT_EQ(qos_error("{pfc_watchdog: true}"), "x.yaml: qos.pfc_watchdog: true: expected a map");
}

TEST(ConfigLosslessRules, PfcEnable) {
  EXPECT_EQ(qos_error("{pfc_enable: 3}"), "x.yaml: qos.pfc_enable: 3: expected a list");
  EXPECT_EQ(qos_error("{pfc_enable: [3, 8]}"),
            "x.yaml: qos.pfc_enable[1]: 8: must be an integer 0..7 (priority)");
  EXPECT_EQ(qos_error("{pfc_enable: [-1]}"),
            "x.yaml: qos.pfc_enable[0]: -1: must be an integer 0..7 (priority)");
  EXPECT_EQ(qos_error("{pfc_enable: [three]}"),
            "x.yaml: qos.pfc_enable[0]: \"three\": must be an integer 0..7 (priority)");
  EXPECT_EQ(qos_error("{pfc_enable: [3, 4, 3]}"),
            "x.yaml: qos.pfc_enable[2]: 3: duplicate priority (also pfc_enable[0])");
}

TEST(ConfigLosslessRules, PauseTime) {
  const std::string rule = ": must be an integer 1..65535 (quanta of 512 bit times)";
  EXPECT_EQ(qos_error("{pfc: {pause_time: 0}}"), "x.yaml: qos.pfc.pause_time: 0" + rule);
  EXPECT_EQ(qos_error("{pfc: {pause_time: 65536}}"), "x.yaml: qos.pfc.pause_time: 65536" + rule);
}

TEST(ConfigLosslessRules, PfcRefresh) {
  EXPECT_FALSE(lossless_of("{pfc: {pause_time: 977}}").pfc.refresh_on_arrival);
  EXPECT_FALSE(lossless_of("{pfc: {refresh: timer}}").pfc.refresh_on_arrival);
  EXPECT_TRUE(lossless_of("{pfc: {refresh: on_arrival}}").pfc.refresh_on_arrival);
  EXPECT_EQ(qos_error("{pfc: {refresh: per_packet}}"),
            "x.yaml: qos.pfc.refresh: \"per_packet\": must be one of timer, on_arrival");
}

TEST(ConfigLosslessRules, PfcAdmission) {
  EXPECT_FALSE(lossless_of("{pfc: {pause_time: 977}}").pfc.admit_by_pool);
  EXPECT_FALSE(lossless_of("{pfc: {admission: headroom}}").pfc.admit_by_pool);
  EXPECT_TRUE(lossless_of("{pfc: {admission: shared_pool}}").pfc.admit_by_pool);
  EXPECT_EQ(qos_error("{pfc: {admission: pool}}"),
            "x.yaml: qos.pfc.admission: \"pool\": must be one of headroom, shared_pool");
}

TEST(ConfigLosslessRules, StaticThresholds) {
  EXPECT_EQ(qos_error("{pfc: {xoff: 63, xon: 0}}"),
            "x.yaml: qos.pfc.xoff: 63: must be a byte size 64B .. 1GB");
  EXPECT_EQ(qos_error("{pfc: {xoff: 2GB}}"),
            "x.yaml: qos.pfc.xoff: \"2GB\": must be a byte size 64B .. 1GB");
  EXPECT_EQ(qos_error("{pfc: {xoff: 1.6Mb}}"),
            "x.yaml: qos.pfc.xoff: \"1.6Mb\": not a byte size (expected e.g. 4MB, 1.5MB, 512KiB "
            "or an integer in bytes)");
  EXPECT_EQ(qos_error("{pfc: {xoff: 1MB, xon: 1MB}}"),
            "x.yaml: qos.pfc.xon: \"1MB\": xon must be below xoff (1MB)");
  EXPECT_EQ(qos_error("{pfc: {xon: 1.6MB}}"),
            "x.yaml: qos.pfc.xon: \"1.6MB\": xon must be below xoff (1.6MB, the default)");
  EXPECT_EQ(qos_error("{pfc: {xoff: 1MB}}"),
            "x.yaml: qos.pfc.xoff: \"1MB\": xoff must be above xon (1.2MB, the default; set "
            "qos.pfc.xon too)");
}

TEST(ConfigLosslessRules, StaticOrDynamicNotBoth) {
  const std::string rule =
      ": thresholds are either static (xoff, xon) or dynamic (dynamic_th, xon_offset)";
  EXPECT_EQ(qos_error("{pfc: {xoff: 1.6MB, dynamic_th: -2}}"),
            "x.yaml: qos.pfc.dynamic_th: -2: cannot be combined with xoff" + rule);
  EXPECT_EQ(qos_error("{pfc: {xon: 1MB, dynamic_th: 1}}"),
            "x.yaml: qos.pfc.dynamic_th: 1: cannot be combined with xon" + rule);
  EXPECT_EQ(qos_error("{pfc: {xon: 1MB, xon_offset: 64KB}}"),
            "x.yaml: qos.pfc.xon_offset: \"64KB\": cannot be combined with xon" + rule);
  EXPECT_EQ(qos_error("{pfc: {xon_offset: 64KB}}"),
            "x.yaml: qos.pfc.xon_offset: \"64KB\": xon_offset needs dynamic_th (it is the XON "
            "hysteresis of dynamic thresholds; static thresholds use xon)");
}

TEST(ConfigLosslessRules, DynamicThresholds) {
  const std::string rule = ": must be an integer -7..3";
  EXPECT_EQ(qos_error("{pfc: {dynamic_th: -8}}"), "x.yaml: qos.pfc.dynamic_th: -8" + rule);
  EXPECT_EQ(qos_error("{pfc: {dynamic_th: 4}}"), "x.yaml: qos.pfc.dynamic_th: 4" + rule);
  EXPECT_EQ(qos_error("{pfc: {dynamic_th: -99999999999999999999}}"),
            "x.yaml: qos.pfc.dynamic_th: -99999999999999999999" + rule);
  EXPECT_EQ(qos_error("{pfc: {dynamic_th: 0.5}}"),
            "x.yaml: qos.pfc.dynamic_th: 0.5: must be an integer -7..3");
  EXPECT_EQ(qos_error("{pfc: {dynamic_th: -2, xon_offset: 63}}"),
            "x.yaml: qos.pfc.xon_offset: 63: must be a byte size 64B .. 1GB");
}

TEST(ConfigLosslessRules, Headroom) {
  const std::string rule = ": must be auto or a byte size 64B .. 1GB";
  EXPECT_EQ(qos_error("{pfc: {headroom: 0}}"), "x.yaml: qos.pfc.headroom: 0" + rule);
  EXPECT_EQ(qos_error("{pfc: {headroom: 2GB}}"), "x.yaml: qos.pfc.headroom: \"2GB\"" + rule);
  EXPECT_EQ(qos_error("{pfc: {headroom: automatic}}"),
            "x.yaml: qos.pfc.headroom: \"automatic\"" + rule);
}

TEST(ConfigLosslessRules, CableLengthAndResponseDelay) {
  EXPECT_EQ(qos_error("{pfc: {cable_length: 0}}"),
            "x.yaml: qos.pfc.cable_length: 0: must be a length 1m .. 100000m");
  EXPECT_EQ(qos_error("{pfc: {cable_length: 100001m}}"),
            "x.yaml: qos.pfc.cable_length: \"100001m\": must be a length 1m .. 100000m");
  EXPECT_EQ(qos_error("{pfc: {cable_length: 300ft}}"),
            "x.yaml: qos.pfc.cable_length: \"300ft\": not a length (expected e.g. 100m, 2km or an "
            "integer in metres)");
  EXPECT_EQ(qos_error("{pfc: {cable_length: 1.5m}}"),
            "x.yaml: qos.pfc.cable_length: \"1.5m\": not a whole number of metres");
  EXPECT_EQ(qos_error("{pfc: {response_delay: 2ms}}"),
            "x.yaml: qos.pfc.response_delay: \"2ms\": must be a duration 0ns .. 1ms");
  EXPECT_EQ(qos_error("{pfc: {response_delay: 1}}"),
            "x.yaml: qos.pfc.response_delay: 1: not a duration (expected a number with unit ns, "
            "us, ms or s, e.g. 256us)");
}

TEST(ConfigLosslessRules, SharedBuffer) {
  const std::string rule = ": must be a byte size 64KB .. 1GB";
  EXPECT_EQ(qos_error("{buffer: {shared_size: 63999}}"),
            "x.yaml: qos.buffer.shared_size: 63999" + rule);
  EXPECT_EQ(qos_error("{buffer: {shared_size: 2GB}}"),
            "x.yaml: qos.buffer.shared_size: \"2GB\"" + rule);
}

TEST(ConfigLosslessRules, Wred) {
  EXPECT_EQ(qos_error("{wred: {8: {green_min_threshold: 1KB, green_max_threshold: 2KB}}}"),
            "x.yaml: qos.wred.8: traffic class must be an integer 0..7");
  EXPECT_EQ(qos_error("{wred: {tc3: {green_min_threshold: 1KB, green_max_threshold: 2KB}}}"),
            "x.yaml: qos.wred.tc3: traffic class must be an integer 0..7");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB, green_max_threshold: 2KB}, "
                      "0x3: {green_min_threshold: 1KB, green_max_threshold: 2KB}}}"),
            "x.yaml: qos.wred.0x3: duplicate traffic class 3 (also qos.wred.3)");
  EXPECT_EQ(qos_error("{wred: [3]}"), "x.yaml: qos.wred: expected a map, found a list");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB}}}"),
            "x.yaml: qos.wred.3: missing required key \"green_max_threshold\"");
  EXPECT_EQ(qos_error("{wred: {3: {green_max_threshold: 1KB}}}"),
            "x.yaml: qos.wred.3: missing required key \"green_min_threshold\"");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1.5MB, green_max_threshold: 150KB}}}"),
            "x.yaml: qos.wred.3.green_max_threshold: \"150KB\": green_max_threshold must be above "
            "green_min_threshold (1.5MB)");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB, green_max_threshold: 1000}}}"),
            "x.yaml: qos.wred.3.green_max_threshold: 1000: green_max_threshold must be above "
            "green_min_threshold (1KB)");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 2GB, green_max_threshold: 3GB}}}"),
            "x.yaml: qos.wred.3.green_min_threshold: \"2GB\": must be a byte size 0B .. 1GB");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB, green_max_threshold: 3GB}}}"),
            "x.yaml: qos.wred.3.green_max_threshold: \"3GB\": must be a byte size 0B .. 1GB");
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB, green_max_threshold: 2KB, "
                      "green_drop_probability: 101}}}"),
            "x.yaml: qos.wred.3.green_drop_probability: 101: must be an integer 0..100 (percent)");
  EXPECT_EQ(qos_error("{wred: {0: {green_min_threshold: 1KB, green_max_threshold: 2KB, "
                      "ecn: ecn_green}}}"),
            "x.yaml: qos.wred.0.ecn: \"ecn_green\": must be one of ecn_all, ecn_none");
}

TEST(ConfigLosslessRules, LosslessClassIsNeverWredDropped) {
  EXPECT_EQ(qos_error("{wred: {3: {green_min_threshold: 1KB, green_max_threshold: 2KB, "
                      "ecn: ecn_none}}}"),
            "x.yaml: qos.wred.3.ecn: \"ecn_none\": class 3 is lossless (qos.pfc_enable): WRED "
            "may mark it (ecn_all) but not drop from it (ecn_none)");
  // An override that makes the class lossless takes the blame.
  EXPECT_EQ(qos_error("{pfc_enable: [], wred: {4: {green_min_threshold: 1KB, "
                      "green_max_threshold: 2KB, ecn: ecn_none}}}",
                      {"qos.pfc_enable=[3,4]"}),
            "--set qos.pfc_enable=[3,4]: qos.wred.4.ecn: \"ecn_none\": class 4 is lossless "
            "(qos.pfc_enable): WRED may mark it (ecn_all) but not drop from it (ecn_none)");
}

TEST(ConfigLosslessRules, EcnMark) {
  EXPECT_EQ(qos_error("{ecn_mark: egress}"),
            "x.yaml: qos.ecn_mark: \"egress\": must be one of enqueue, dequeue");
}

TEST(ConfigLosslessRules, Watchdog) {
  EXPECT_EQ(qos_error("{pfc_watchdog: {enabled: yes}}"),
            "x.yaml: qos.pfc_watchdog.enabled: \"yes\": must be true or false");
  EXPECT_EQ(qos_error("{pfc_watchdog: {detection_time: 500us}}"),
            "x.yaml: qos.pfc_watchdog.detection_time: \"500us\": must be a duration 1ms .. 60s");
  EXPECT_EQ(qos_error("{pfc_watchdog: {detection_time: 61s}}"),
            "x.yaml: qos.pfc_watchdog.detection_time: \"61s\": must be a duration 1ms .. 60s");
  EXPECT_EQ(qos_error("{pfc_watchdog: {restoration_time: 0}}"),
            "x.yaml: qos.pfc_watchdog.restoration_time: 0: must be a duration 1ms .. 60s");
  EXPECT_EQ(qos_error("{pfc_watchdog: {action: shutdown}}"),
            "x.yaml: qos.pfc_watchdog.action: \"shutdown\": must be one of drop, forward, alert");
  EXPECT_EQ(qos_error("{pfc_watchdog: {poll_interval: 50us}}"),
            "x.yaml: qos.pfc_watchdog.poll_interval: \"50us\": must be a duration 100us .. 1s");
  EXPECT_EQ(qos_error("{pfc_watchdog: {detection_time: 10s, restoration_time: 10s, "
                      "poll_interval: 2s}}"),
            "x.yaml: qos.pfc_watchdog.poll_interval: \"2s\": must be a duration 100us .. 1s");
  EXPECT_EQ(qos_error("{pfc_watchdog: {detection_time: 1ms, poll_interval: 2ms}}"),
            "x.yaml: qos.pfc_watchdog.poll_interval: \"2ms\": poll interval must not exceed "
            "detection_time (1ms)");
  EXPECT_EQ(qos_error("{pfc_watchdog: {restoration_time: 5ms, poll_interval: 10ms}}"),
            "x.yaml: qos.pfc_watchdog.poll_interval: \"10ms\": poll interval must not exceed "
            "restoration_time (5ms)");
  // Shortening detection_time by --set below the file's poll interval blames the --set.
  EXPECT_EQ(
      qos_error("{pfc_watchdog: {poll_interval: 10ms}}", {"qos.pfc_watchdog.detection_time=5ms"}),
      "--set qos.pfc_watchdog.detection_time=5ms: qos.pfc_watchdog.poll_interval: \"10ms\": "
      "poll interval must not exceed detection_time (5ms)");
}

}  // namespace
}  // namespace rocelb
