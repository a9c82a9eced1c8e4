#include "tools/docgen/config_keys_page.h"

#include <cctype>

#include "control/switch_config_keys.h"
#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"
#include "tools/gen/scenario.h"

namespace rocelb {
namespace {

// Every file whose keys the page lists, in page order. A file's schema
// joins with one row here (its library linked to rocelb_docgen in
// tools/CMakeLists.txt); tools/gen-docs then rewrites the page.
constexpr ConfigKeysFile kFiles[] = {
    {"Switch config",
     "The switch's config file: `rocelb-dp --config FILE` (the embedded `configs/default.yaml` "
     "when omitted), the file `rocelbd` watches and `rocelbctl config apply` sends, and each "
     "switch of a fabric topology. `--set KEY.PATH=VALUE` on the command line and "
     "`rocelbctl set KEY.PATH=VALUE` on a running switch change one key under the same rules. "
     "The rules between keys (duplicates, references to ports, neighbors and groups, static or "
     "dynamic PFC thresholds, the memory estimate) are in [config.md](config.md), "
     "[engines.md](engines.md) and [lossless.md](lossless.md).",
     switch_config_schema},
    {"Topology",
     "A fabric's topology in the generated form, `rocelb-dp fabric --topology FILE` "
     "(`configs/fabrics/leaf_spine_*.yaml`): a leaf-spine from its shape, every switch's config "
     "from `switch_config`, the addresses generated "
     "([dataplane/sim/README.md](../../dataplane/sim/README.md)). `--set KEY.PATH=VALUE` goes to "
     "every switch's config (spines skip `groups.*`), `--set NAME:KEY.PATH=VALUE` to switch NAME "
     "only, `--set nic.KEY=VALUE` to every host's NIC ([its keys](#topology-nic-map)); an error "
     "a `--set` causes names the `--set`.",
     topology_schema},
    {"Topology, fat tree",
     "A generated 3-tier k-ary fat tree, marked by its `k` key "
     "(`configs/fabrics/fat_k4_100G_OS2.yaml`, `fat_k8_100G_OS2.yaml`: ConWeave's and HPCC's "
     "shapes, wired as their `fat_topology_gen.py`): switches `edge0…`, `agg0…`, `core0…`, hosts "
     "`h0…` edge by edge, shortest-path ECMP routes, each switch's ECMP group `uplinks` "
     "(`dataplane/sim/fat_tree.h`, `topology_graph.h`). An HPCC/ConWeave ns-3 topology file "
     "(`N S L`, the switch ids, `src dst rate delay error_rate` per link) is read as it is, "
     "recognised by its content: hosts `h<id>`, switches `sw<id>`, the default switch config "
     "and NIC, `--set` for the rest (`dataplane/sim/ns3_topology.h`); so is an ns-3 flow file "
     "given as `--workload` (`dataplane/sim/ns3_flows.h`). Their errors are `FILE:LINE: rule`.",
     fat_tree_topology_schema},
    {"Topology, explicit form",
     "A topology file with `switches`, `links` and `hosts` (`configs/fabrics/asymmetric_2x2/`, "
     "or what `rocelb-dp fabric --export DIR` writes): every switch its own config file, every "
     "link and host listed, for custom and asymmetric fabrics. What makes the fabric workable "
     "is checked at load with the key path: a host's port has an IPv4 subnet holding its `ip`, "
     "which is a neighbor of that switch on that port; a link's ends have one speed; every port "
     "a route leaves by has a link or a host (`dataplane/sim/topology_explicit.h`).",
     explicit_topology_schema},
    {"Topology nic map",
     "The `nic` map of a topology, either form: every host's RoCE NIC model with NVIDIA's names "
     "and defaults (where each default comes from: `dataplane/sim/nic_params.h`, `dcqcn.h`). "
     "`--set nic.KEY=VALUE` changes one key for a run.",
     nic_schema},
    {"Workload, flows list",
     "A fabric run's workload, `rocelb-dp fabric --workload FILE` (`configs/workloads/`), with "
     "a top-level `flows` list: each flow one RDMA message between two hosts of the topology. "
     "The other forms have a `type` and the keys below. Every limit the NIC model holds a flow "
     "to is checked at load (`dataplane/sim/workload.h`).",
     workload_flows_schema},
    {"Workload, type poisson",
     "Open-loop arrivals, the HPCC/ConWeave generator's model: each host an independent Poisson "
     "source at `load` of its link speed, sizes drawn from a flow-size CDF, destinations "
     "uniform over the allowed hosts.",
     workload_poisson_schema},
    {"Workload, type incast", "Many senders, one receiver, all at once, in one or more rounds.",
     workload_incast_schema},
    {"Workload, type all_to_all",
     "Every ordered pair of distinct hosts, in phases: phase k+1 starts `gap` after every "
     "phase-k flow finished.",
     workload_all_to_all_schema},
    {"Scenario",
     "A traffic scenario for `rocelb-gen --scenario FILE` (`configs/scenarios/`): RoCEv2 flows "
     "and PFC frame sources entering a switch's ports, one pcap per port. It is checked against "
     "the switch config `--config` names (each `in_port` one of its ports; MACs from its "
     "neighbors); all its frames are sent within 30 days.",
     scenario_schema},
};

// A GitHub-style anchor of a heading.
std::string anchor(std::string_view title) {
  std::string out;
  for (char c : title) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_')  // GitHub keeps '_' ("all_to_all")
      out += static_cast<char>(std::tolower(u));
    else if (c == ' ' || c == '-')
      out += '-';
  }
  return out;
}

}  // namespace

std::span<const ConfigKeysFile> config_keys_files() {
  return kFiles;
}

std::string config_keys_page() {
  std::string out =
      "# Config keys\n\n"
      "<!-- Generated by tools/gen-docs from the key tables (control/key_schema.h); do not "
      "edit. -->\n\n"
      "Every key of every YAML file rocelb reads, from the key table its reader takes each "
      "key's range, rule and default from: this page and the readers cannot disagree "
      "(`tools/gen-docs` writes it; a test fails when it is out of date). The rules every file "
      "follows are in [config.md](config.md#rules-of-every-file).\n\n"
      "A key is written as its path: `ports[].speed` is `speed` in each element of the list "
      "`ports`, `groups.*.mode` is `mode` in each entry of the map `groups`, whose keys the user "
      "names. *value* is what the key takes, with its range; *applies* says when a change takes "
      "effect on a running switch: **live** at once (`rocelbctl set`, `rocelbctl config apply`, "
      "SIGHUP, `rocelbd`), **restart** refused until the switch restarts (the error names the "
      "key), **at start** read when the switch or the run starts and kept.\n\n";
  for (const ConfigKeysFile& f : kFiles)
    out += "- [" + std::string(f.title) + "](#" + anchor(f.title) + ")\n";
  for (const ConfigKeysFile& f : kFiles) {
    out += "\n## " + std::string(f.title) + "\n\n" + std::string(f.intro) + "\n";
    out += schema_markdown(f.schema());
  }
  return out;
}

}  // namespace rocelb
