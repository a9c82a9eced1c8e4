// Every limit the NIC model holds a flow to (roce_nic.cc: a message is at
// most 2^31 bytes, a QP sends one flow at a time, QPNs are 24 bits) and the
// run's own bounds (time, flow counts) are checked when the workload loads,
// with the key path: a run never stops mid-way on a flow it cannot start.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

// 2 leaves x 4 hosts at 100G (h0..h3 on leaf0, h4..h7 on leaf1).
const Topology& fabric() {
  static const Topology t = load_topology_text(
      "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
      "link_delay: 1us\n",
      "f.yaml", ".");
  return t;
}

Workload load(const std::string& text, const std::string& base_dir = ".") {
  return load_workload_text(text, "w.yaml", base_dir, fabric(), 1);
}

std::string error_of(const std::string& text, const std::string& base_dir = ".") {
  try {
    load(text, base_dir);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(WorkloadNicLimits, AFlowIsAtMostOneRdmaMessage) {
  EXPECT_EQ(load("flows: [{src: h0, dst: h4, size: 2GiB}]\n").flows[0].size_bytes, 1ull << 31);
  EXPECT_EQ(error_of("flows: [{src: h0, dst: h4, size: 2147483649}]\n"),
            "w.yaml: flows[0].size: 2147483649: must be a byte size 1B .. 2GiB");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: 2\nsize: 1TB\n"),
            "w.yaml: size: \"1TB\": must be a byte size 1B .. 2GiB");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: all\nsize: 3GB\n"),
            "w.yaml: size: \"3GB\": must be a byte size 1B .. 2GiB");
}

TEST(WorkloadNicLimits, ACdfSizeIsAtMostOneRdmaMessage) {
  EXPECT_NO_THROW(FlowSizeCdf::parse("1 0\n2147483648 100\n", "c.txt"));
  try {
    FlowSizeCdf::parse("1 0\n1e12 100\n", "c.txt");
    ADD_FAILURE() << "a 1e12-byte size was accepted";
  } catch (const FlowSizeCdfError& e) {
    EXPECT_STREQ(e.what(),
                 "c.txt:2: size 1e12 is out of range: sizes are 0 .. 2147483648 bytes (2 GiB, "
                 "the largest RDMA message)");
  }
  // Through a workload, with the key.
  const auto dir =
      std::filesystem::temp_directory_path() / ("rocelb-cdf-limit-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "huge.txt") << "1 0\n3000000000 100\n";
  EXPECT_EQ(error_of("type: poisson\ncdf: huge.txt\nload: 0.5\nduration: 1ms\n", dir.string()),
            "w.yaml: cdf: " + (dir / "huge.txt").string() +
                ":2: size 3000000000 is out of range: sizes are 0 .. 2147483648 bytes (2 GiB, the "
                "largest RDMA message)");
  std::filesystem::remove_all(dir);
}

TEST(WorkloadNicLimits, EachFlowOfAHostHasItsOwnQp) {
  // Two flows from h0 on QP 0x11: the NIC refused the second only when it
  // started, mid-run.
  EXPECT_EQ(error_of("flows:\n  - {src: h0, dst: h4, size: 1MB, qp: 0x11}\n"
                     "  - {src: h1, dst: h4, size: 1MB, qp: 0x11}\n"
                     "  - {src: h0, dst: h5, size: 1MB, start: 1ms, qp: 17}\n"),
            "w.yaml: flows[2].qp: 0x11: h0 already sends flows[0] on QP 0x11: a QP carries one "
            "flow, so each flow of a host needs its own qp");
  // A qp equal to the one a flow without qp takes (0x100 + its place in
  // start order; flows[1] starts first).
  EXPECT_EQ(error_of("flows:\n  - {src: h0, dst: h4, size: 1MB, start: 1us, qp: 0x100}\n"
                     "  - {src: h0, dst: h5, size: 1MB}\n"),
            "w.yaml: flows[0].qp: 0x100: h0 already sends flows[1] on QP 0x100 (a flow without "
            "qp takes 0x100 + its place in start order): a QP carries one flow, so each flow of "
            "a host needs its own qp");
  // Different hosts, or distinct QPs: fine.
  EXPECT_EQ(load("flows:\n  - {src: h0, dst: h4, size: 1MB, qp: 0x11}\n"
                 "  - {src: h1, dst: h4, size: 1MB, qp: 0x11}\n"
                 "  - {src: h0, dst: h4, size: 1MB, qp: 0x12}\n")
                .flows.size(),
            3u);
  EXPECT_EQ(default_qpn(0), 0x100u);
}

TEST(WorkloadNicLimits, TimesAreAtMost3600sAndTheBoundReadsBackAsItsText) {
  // "1h" was printed as the bound, but a duration has no h unit.
  EXPECT_EQ(error_of("flows: [{src: h0, dst: h4, size: 1, start: 3601s}]\n"),
            "w.yaml: flows[0].start: \"3601s\": must be a duration 0ns .. 3600s");
  EXPECT_EQ(load("flows: [{src: h0, dst: h4, size: 1, start: 3600s}]\n").flows[0].start_ns,
            3'600'000'000'000u);
  EXPECT_EQ(error_of("type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 0\n"),
            "w.yaml: duration: 0: must be a duration 1ns .. 3600s");
  // Incast rounds and all_to_all gaps: the whole schedule fits, not only
  // each value.
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: 2\nsize: 1KB\nrepeat: 10000\n"
                     "interval: 1s\n"),
            "w.yaml: interval: the last round would start at 9999s, after 3600s (start + "
            "(repeat - 1) x interval)");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: [h0, h4]\nsize: 1KB\nphases: 10000\ngap: 1s\n"),
            "w.yaml: gap: the phases' gaps alone would take to 9999s, after 3600s (start + "
            "(phases - 1) x gap)");
  EXPECT_EQ(load("type: incast\nreceiver: h0\nsenders: 2\nsize: 1KB\nrepeat: 3601\n"
                 "interval: 1s\n")
                .flows.size(),
            7202u);
}

TEST(WorkloadNicLimits, GeneratedWorkloadsMakeAtMost5MillionFlows) {
  EXPECT_EQ(error_of("type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 1ms\n"
                     "max_flows: 5000001\n"),
            "w.yaml: max_flows: 5000001: must be an integer 1..5000000");
  EXPECT_GT(load("type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 1ms\n"
                 "max_flows: 5000000\n")
                .flows.size(),
            0u);
}

}  // namespace
}  // namespace rocelb
