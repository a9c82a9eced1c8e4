// rocelb-gen: the deterministic RoCEv2 traffic generator. Reads a scenario
// (tools/gen/scenario.h) or builds one from a preset (tools/gen/presets.h)
// for a switch config, writes D/port<N>.pcap for every switch port with
// traffic entering it, and prints one line per pcap (a preset prints its
// notes first). --emit-scenario writes the preset's scenario as YAML. The
// same inputs give byte-identical output. A bad scenario, preset, config or
// option exits 2 with one line; an I/O failure exits 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "common/cli_app.h"
#include "common/cli_uint.h"
#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/wire/pcap_file.h"
#include "tools/gen/generator.h"
#include "tools/gen/presets.h"
#include "tools/gen/scenario.h"

namespace {

using namespace rocelb;

constexpr int kExitIo = 1;
constexpr int kExitUsage = 2;

std::string seconds(uint64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000),
                static_cast<unsigned long long>(ns % 1000000000));
  return buf;
}

int usage_error(const std::string& msg) {
  std::cerr << "rocelb-gen: " << msg << "\n";
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocelb-gen: deterministic RoCEv2 traffic generator (pcap per switch port)"};
  add_version_flag(app);
  std::string scenario_path, preset, emit_path, config_path, out_dir;
  std::vector<std::string> params, sets;
  std::optional<uint64_t> seed;
  bool list = false;
  auto* scen = app.add_option("--scenario", scenario_path,
                              "scenario YAML (e.g. configs/scenarios/demo.yaml)");
  auto* pre =
      app.add_option("--preset", preset, "build the scenario from a preset (--list-presets)");
  scen->excludes(pre);
  app.add_option("--param", params, "a preset parameter: NAME=VALUE (repeatable)")->needs(pre);
  app.add_option("--emit-scenario", emit_path,
                 "write the preset's scenario as YAML to FILE (- for stdout)")
      ->needs(pre);
  app.add_flag("--list-presets", list, "list the presets, their parameters and defaults");
  app.add_option("--config", config_path,
                 "switch config YAML (default: the embedded configs/default.yaml)");
  app.add_option("--set", sets, "override a switch config value: KEY.PATH=VALUE (repeatable)");
  app.add_option("--out-dir", out_dir, "directory for port<N>.pcap (created if missing)");
  app.add_option("--seed", seed, "replaces the scenario's seed (a preset's: default 1)")
      ->transform(uint_range(0, UINT64_MAX));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ValidationError& e) {  // a value out of its option's range: one line
    print_validation_error("rocelb-gen", e);
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    return cli_error(app, e, "rocelb-gen", std::cout, std::cerr);
  }
  if (list) {
    std::cout << list_presets_text();
    return 0;
  }
  if (scenario_path.empty() && preset.empty())
    return usage_error("--scenario or --preset is required");
  if (out_dir.empty() && emit_path.empty()) return usage_error("--out-dir is required");

  ConfigParams config;
  ScenarioParams sc;
  try {
    config = config_path.empty() ? load_config_text(std::string(embedded_default_config()),
                                                    std::string(kEmbeddedDefaultName), sets)
                                 : load_config_file(config_path, sets);
    if (preset.empty()) {
      sc = load_scenario_file(scenario_path, config, seed);
    } else {
      PresetResult r = run_preset(preset, params, config, seed);
      std::ostream& notes = emit_path == "-" ? std::cerr : std::cout;
      for (const auto& n : r.notes) notes << n << "\n";
      if (emit_path == "-") {
        std::cout << r.yaml;
      } else if (!emit_path.empty()) {
        std::ofstream out(emit_path, std::ios::binary);
        out << r.yaml;
        out.close();
        if (!out) {
          std::cerr << "rocelb-gen: --emit-scenario " << emit_path << ": cannot write\n";
          return kExitIo;
        }
        std::cout << emit_path << ": scenario of preset " << preset << "\n";
      }
      sc = std::move(r.scenario);
    }
  } catch (const ConfigError& e) {
    return usage_error(e.what());
  } catch (const ScenarioError& e) {
    return usage_error(e.what());
  } catch (const PresetError& e) {
    return usage_error(e.what());
  }
  if (out_dir.empty()) return 0;

  std::vector<PortSummary> sums;
  try {
    sums = write_port_pcaps(sc, out_dir);
  } catch (const PcapError& e) {
    std::cerr << "rocelb-gen: " << e.what() << "\n";
    return kExitIo;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "rocelb-gen: --out-dir " << out_dir << ": " << e.code().message() << "\n";
    return kExitIo;
  }
  for (const auto& s : sums)
    std::cout << s.path << ": port " << s.port << ", " << s.packets << " packets, " << s.bytes
              << " bytes, first " << seconds(s.first_ts_ns) << " s, last " << seconds(s.last_ts_ns)
              << " s\n";
  return 0;
}
