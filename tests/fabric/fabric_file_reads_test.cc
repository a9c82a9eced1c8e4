// Every file `rocelb-dp fabric` reads (the topology, its switch_config or
// config: files, the workload, a CDF) is read bounded: a FIFO, a device or
// an oversized file is one line naming the file and the rule, at once; a
// flows list or a YAML tree too big to hold is refused before it is built;
// and a key given twice is refused in every one of them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "control/yaml_document.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

const char* kSmall =
    "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\n";

class FabricFileReads : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-reads-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    // 17 MiB, over every YAML limit, without writing it (sparse).
    std::ofstream(path("big.yaml")) << "";
    fs::resize_file(path("big.yaml"), 17u << 20);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  // The one-line error `f` throws, and that it came at once: nothing may
  // block on a FIFO or read a device without end.
  template <typename Error>
  std::string quick_error(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string msg = "(no error)";
    try {
      f();
    } catch (const Error& e) {
      msg = e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0)
        << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    return msg;
  }
  std::string topology_error(const std::string& file) {
    return quick_error<TopologyError>([&] { load_topology_file(file); });
  }
  std::string workload_error(const std::string& file) {
    const Topology t = load_topology_text(kSmall, "f.yaml", dir_.string());
    return quick_error<WorkloadError>([&] { load_workload_file(file, t, 1); });
  }
  std::string workload_text_error(const std::string& text) {
    const Topology t = load_topology_text(kSmall, "f.yaml", dir_.string());
    return quick_error<WorkloadError>(
        [&] { load_workload_text(text, "w.yaml", dir_.string(), t, 1); });
  }

  fs::path dir_;
};

TEST_F(FabricFileReads, ATopologyIsARegularFileOfAtMost16MiB) {
  EXPECT_EQ(topology_error("/dev/zero"),
            "cannot read topology file \"/dev/zero\": not a regular file (a character device)");
  EXPECT_EQ(topology_error(path("fifo")),
            "cannot read topology file \"" + path("fifo") + "\": not a regular file (a FIFO)");
  EXPECT_EQ(topology_error(path("big.yaml")),
            "cannot read topology file \"" + path("big.yaml") +
                "\": 17825792 bytes, over the limit of 16 MiB for this file");
}

TEST_F(FabricFileReads, ASwitchConfigAFabricNamesIsReadBoundedToo) {
  for (const char* file : {"/dev/zero", "fifo", "big.yaml"}) {
    const std::string p = file[0] == '/' ? file : path(file);
    write("gen.yaml", std::string(kSmall) + "switch_config: " + p + "\n");
    const std::string e = topology_error(path("gen.yaml"));
    EXPECT_EQ(
        e.rfind(path("gen.yaml") + ": switch_config: cannot read config file \"" + p + "\": ", 0),
        0u)
        << e;
    write("exp.yaml", "switches: {leaf0: {config: " + p +
                          "}}\nlinks: []\nhosts: [{name: h0, at: leaf0:0, ip: 10.0.0.2, "
                          "delay: 1us}]\n");
    const std::string x = topology_error(path("exp.yaml"));
    EXPECT_EQ(
        x.rfind(path("exp.yaml") + ": switches.leaf0: cannot read config file \"" + p + "\": ", 0),
        0u)
        << x;
  }
}

TEST_F(FabricFileReads, AWorkloadAndItsCdfAreReadBounded) {
  EXPECT_EQ(workload_error("/dev/zero"),
            "cannot read workload file \"/dev/zero\": not a regular file (a character device)");
  EXPECT_EQ(workload_error(path("fifo")),
            "cannot read workload file \"" + path("fifo") + "\": not a regular file (a FIFO)");
  EXPECT_EQ(workload_error(path("big.yaml")),
            "cannot read workload file \"" + path("big.yaml") +
                "\": 17825792 bytes, over the limit of 16 MiB for this file");
  // A CDF: 1 MiB at most (the published ones are a few hundred lines).
  std::ofstream(dir_ / "big.txt") << "";
  fs::resize_file(dir_ / "big.txt", 2u << 20);
  const std::string wl = "type: poisson\nload: 0.5\nduration: 1ms\ncdf: ";
  EXPECT_EQ(
      workload_text_error(wl + "fifo\n"),
      "w.yaml: cdf: " + path("fifo") + ": cannot read the CDF file: not a regular file (a FIFO)");
  EXPECT_EQ(workload_text_error(wl + "big.txt\n"),
            "w.yaml: cdf: " + path("big.txt") +
                ": cannot read the CDF file: 2097152 bytes, over the limit of 1 MiB for this file");
}

TEST_F(FabricFileReads, AFlowsListHoldsAtMost100000Flows) {
  std::string list = "flows:\n";
  for (uint64_t i = 0; i <= kMaxExplicitFlows; ++i) list += "- {src: h0, dst: h4, size: 1}\n";
  EXPECT_EQ(workload_text_error(list),
            "w.yaml: flows: 100001 flows: a flows list holds at most 100000 (use type: poisson, "
            "incast or all_to_all for more)");
  // A list too big to hold as YAML is refused before its tree is built.
  std::string nodes = "flows:\n";
  for (size_t i = 0; i < kMaxYamlNodes; ++i) nodes += "- 0\n";
  EXPECT_EQ(workload_text_error(nodes),
            "w.yaml:1999999:3: flows[1999997]: more than 2000000 YAML nodes (keys, values, lists "
            "and maps): the limit of one file, about 1000 MB in memory");
}

TEST_F(FabricFileReads, ASwitchConfigOfNestedAliasesIsRefusedNotWalked) {
  // Copying it for every leaf met 10^12 nodes; an alias inside its own node
  // never ended.
  std::string laughs = "x0: &a0 [q, q, q, q, q, q, q, q, q, q]\n";
  for (int k = 1; k <= 12; ++k) {
    laughs += "x" + std::to_string(k) + ": &a" + std::to_string(k) + " [";
    for (int i = 0; i < 10; ++i)
      laughs += std::string(i ? ", " : "") + "*a" + std::to_string(k - 1);
    laughs += "]\n";
  }
  write("laughs.yaml", laughs);
  const std::string e = quick_error<TopologyError>([&] {
    load_topology_text(std::string(kSmall) + "switch_config: laughs.yaml\n", "t.yaml",
                       dir_.string());
  });
  EXPECT_EQ(e.rfind("t.yaml: switch_config: " + path("laughs.yaml") + ":7:", 0), 0u) << e;
  EXPECT_NE(e.find("more than 3000000 YAML nodes"), std::string::npos) << e;
  write("loop.yaml", "qos: &q {x: [*q]}\n");
  EXPECT_EQ(quick_error<TopologyError>([&] {
              load_topology_text(std::string(kSmall) + "switch_config: loop.yaml\n", "t.yaml",
                                 dir_.string());
            }),
            "t.yaml: switch_config: " + path("loop.yaml") +
                ":1:14: qos.x[0]: an alias inside the node it names (a structure without end)");
}

TEST_F(FabricFileReads, AKeyGivenTwiceIsRefusedInEveryFile) {
  auto topo_text_error = [&](const std::string& text) {
    return quick_error<TopologyError>([&] { load_topology_text(text, "t.yaml", dir_.string()); });
  };
  // `leaves: 2` then `leaves: 3` used 2.
  EXPECT_EQ(topo_text_error(std::string(kSmall) + "leaves: 3\n"),
            "t.yaml:7:1: leaves: duplicate key");
  EXPECT_EQ(topo_text_error(std::string(kSmall) + "nic: {mtu: 1024, mtu: 4096}\n"),
            "t.yaml:7:18: nic.mtu: duplicate key");
  // The base switch config: named as itself.
  write("sw.yaml", "qos:\n  pfc_enable: [3]\nqos:\n  pfc_enable: [2]\n");
  EXPECT_EQ(topo_text_error(std::string(kSmall) + "switch_config: sw.yaml\n"),
            "t.yaml: switch_config: " + path("sw.yaml") + ":3:1: qos: duplicate key");
  // The explicit form: a switch named twice ran the whole simulation and
  // then failed on its counters file.
  for (const char* s : {"leaf0", "spine0"})
    fs::copy_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/asymmetric_2x2/" + s + ".yaml",
                  dir_ / (std::string(s) + ".yaml"));
  EXPECT_EQ(topo_text_error("switches:\n  leaf0: leaf0.yaml\n  spine0: spine0.yaml\n"
                            "  leaf0: spine0.yaml\nlinks: []\nhosts: []\n"),
            "t.yaml:4:3: switches.leaf0: duplicate key");
  // A workload.
  EXPECT_EQ(workload_text_error("type: incast\nreceiver: h0\nsenders: 2\nsize: 1MB\nsize: 2MB\n"),
            "w.yaml:5:1: size: duplicate key");
}

}  // namespace
}  // namespace rocelb
