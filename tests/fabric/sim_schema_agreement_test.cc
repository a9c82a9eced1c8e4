// The simulator's key tables agree with their readers: every number row's
// bounds, every choice and every boolean a table states is the rule its
// reader applies, at the row's key path (tests/fabric/schema_agreement.h).
#include <gtest/gtest.h>

#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"
#include "tests/fabric/schema_agreement.h"

namespace rocelb {
namespace {

using test::expect_table_and_reader_agree;

const char* kTiny =
    "leaves: 2\nspines: 1\nhosts_per_leaf: 1\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\n";

template <typename Error, typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string topology_error(const std::string& text, const std::string& dir = ".") {
  return error_of<TopologyError>([&] { load_topology_text(text, "t.yaml", dir); });
}

TEST(SimSchemaAgreement, TheGeneratedTopology) {
  EXPECT_EQ(expect_table_and_reader_agree(topology_schema(), kTiny,
                                          [](const std::string& t) { return topology_error(t); }),
            13u);
}

TEST(SimSchemaAgreement, TheExplicitTopology) {
  const std::string dir = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/asymmetric_2x2";
  const std::string minimal =
      "switches: {leaf0: leaf0.yaml, leaf1: leaf1.yaml, spine0: spine0.yaml, spine1: "
      "spine1.yaml}\n"
      "links:\n"
      "  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
      "  - {a: leaf0:5, b: spine1:0, delay: 1us, speed: 25G}\n"
      "  - {a: leaf1:4, b: spine0:1, delay: 1us}\n"
      "  - {a: leaf1:5, b: spine1:1, delay: 1us}\n"
      "hosts:\n  - {name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}\n";
  EXPECT_EQ(
      expect_table_and_reader_agree(explicit_topology_schema(), minimal,
                                    [&](const std::string& t) { return topology_error(t, dir); }),
      5u);
}

TEST(SimSchemaAgreement, TheNicMap) {
  // Through a topology, as a user writes it.
  const std::string minimal = std::string(kTiny) + "nic: {dcqcn: {}}\n";
  EXPECT_EQ(expect_table_and_reader_agree(nic_schema(), minimal,
                                          [](const std::string& t) { return topology_error(t); }),
            44u);
}

const Topology& fabric() {
  static const Topology t = load_topology_text(
      "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
      "link_delay: 1us\n",
      "f.yaml", ".");
  return t;
}

std::string workload_error(const std::string& text) {
  return error_of<WorkloadError>([&] { load_workload_text(text, "w.yaml", ".", fabric(), 1); });
}

TEST(SimSchemaAgreement, EveryWorkloadForm) {
  EXPECT_EQ(
      expect_table_and_reader_agree(workload_flows_schema(),
                                    "flows: [{src: h0, dst: h4, size: 1KB}]\n", workload_error),
      7u);
  EXPECT_EQ(expect_table_and_reader_agree(
                workload_poisson_schema(),
                "type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 10us\n", workload_error),
            7u);
  EXPECT_EQ(expect_table_and_reader_agree(workload_incast_schema(),
                                          "type: incast\nreceiver: h0\nsenders: 2\nsize: 1KB\n",
                                          workload_error),
            10u);
  EXPECT_EQ(expect_table_and_reader_agree(workload_all_to_all_schema(),
                                          "type: all_to_all\nhosts: [h0, h4]\nsize: 1KB\n",
                                          workload_error),
            9u);
}

}  // namespace
}  // namespace rocelb
