// Every file under configs/ that a user runs as it is loads: each topology
// (both forms), each workload (on the tests' fabric, leaf_spine_2x2_8h) and
// each scenario (against the default switch config), wherever it lives
// (fabrics/, workloads/, scenarios/, labs/). A file is told by its keys; a
// YAML file of no known kind fails the test, so a new kind is not skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"
#include "gen_test_util.h"
#include "tools/gen/scenario.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;

enum class Kind { kTopology, kWorkload, kScenario, kSwitchConfig, kUnknown };

Kind kind_of(const YAML::Node& doc) {
  if (!doc.IsMap()) return Kind::kUnknown;
  if (doc["leaves"] || doc["switches"] || doc["k"]) return Kind::kTopology;
  if (doc["type"]) return Kind::kWorkload;
  if (const YAML::Node flows = doc["flows"]) {
    if (flows.IsSequence() && flows.size() > 0 && flows[0].IsMap() && flows[0]["in_port"])
      return Kind::kScenario;
    return Kind::kWorkload;
  }
  // The switch configs (the default, profiles, a fabric's base and its
  // switches) are the config loader's: tests/control.
  if (doc["ports"] || doc["switch"] || doc["qos"] || doc["groups"]) return Kind::kSwitchConfig;
  return Kind::kUnknown;
}

TEST(ShippedFiles, EveryTopologyWorkloadAndScenarioUnderConfigsLoads) {
  const fs::path root = fs::path(ROCELB_SOURCE_DIR) / "configs";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const Topology fabric =
      load_topology_file((root / "fabrics" / "leaf_spine_2x2_8h.yaml").string());
  size_t topologies = 0, workloads = 0, scenarios = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    try {
      switch (kind_of(YAML::LoadFile(f.string()))) {
        case Kind::kTopology:
          EXPECT_FALSE(load_topology_file(f.string()).hosts.empty());
          ++topologies;
          break;
        case Kind::kWorkload:
          EXPECT_FALSE(load_workload_file(f.string(), fabric, 1).flows.empty());
          ++workloads;
          break;
        case Kind::kScenario:
          EXPECT_FALSE(load_scenario_file(f.string(), test::default_config()).flows.empty());
          ++scenarios;
          break;
        case Kind::kSwitchConfig:
          break;
        case Kind::kUnknown:
          ADD_FAILURE() << "a YAML file of no known kind";
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  // What configs/ holds today: fabrics/ (6 topologies), workloads/ and two
  // labs' (13 workloads), scenarios/ and five labs' (19 scenarios).
  EXPECT_GE(topologies, 6u);
  EXPECT_GE(workloads, 13u);
  EXPECT_GE(scenarios, 19u);
}

}  // namespace
}  // namespace rocelb
