#include "tools/gen/presets.h"

#include <algorithm>

#include "control/yaml_util.h"
#include "tools/gen/preset_ai_alltoall.h"
#include "tools/gen/preset_cdf.h"
#include "tools/gen/preset_ecmp_collision.h"
#include "tools/gen/preset_multitenant.h"
#include "tools/gen/preset_nvmeof.h"
#include "tools/gen/preset_pfc_storm.h"
#include "tools/gen/scenario_yaml.h"

namespace rocelb {
namespace {

// Each line broken at spaces to at most `width` characters (a longer word
// stays whole); continuation lines are indented by two spaces.
std::string wrap(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    std::string indent;
    while (line.size() > width) {
      size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent.size()) break;
      out += line.substr(0, cut) + "\n";
      indent = "  ";
      line = indent + line.substr(cut + 1);
    }
    out += line + "\n";
    start = nl + 1;
  }
  return out;
}

}  // namespace

std::span<const PresetDef* const> all_presets() {
  static const PresetDef* const kAll[] = {&ai_alltoall_preset(), &nvmeof_preset(),
                                          &multitenant_preset(), &ecmp_collision_preset(),
                                          &pfc_storm_preset(),   &cdf_preset()};
  return kAll;
}

const PresetDef* find_preset(std::string_view name) {
  for (const PresetDef* p : all_presets())
    if (p->name == name) return p;
  return nullptr;
}

std::string list_presets_text() {
  std::string out;
  for (const PresetDef* p : all_presets()) {
    out += std::string(p->name) + ": " + std::string(p->description) + "\n";
    for (const auto& s : p->params) {
      std::string left = "    " + std::string(s.name) + "=" + std::string(s.def);
      left.resize(std::max<size_t>(left.size() + 1, 30), ' ');
      out += left + std::string(s.help) + "\n";
    }
  }
  return out;
}

PresetResult run_preset(std::string_view name, const std::vector<std::string>& params,
                        const ConfigParams& config, std::optional<uint64_t> seed) {
  const PresetDef* def = find_preset(name);
  if (!def) {
    std::string known;
    for (const PresetDef* p : all_presets())
      known += (known.empty() ? "" : ", ") + std::string(p->name);
    throw PresetError("--preset " + quote(name) + ": unknown preset (known: " + known + ")");
  }
  PresetArgs args(std::string(name), def->params, params);
  PresetContext ctx{config, seed.value_or(kDefaultScenarioSeed), {}};
  ScenarioParams sc = def->build(args, ctx);
  sc.seed = ctx.seed;

  std::string comment = "rocelb-gen preset " + std::string(name) + ": " +
                        std::string(def->description) + ".\n" + "Written by: rocelb-gen --preset " +
                        std::string(name) + " --seed " + std::to_string(ctx.seed);
  for (const auto& p : params) comment += " --param " + p;
  comment += "\nParameters: " + args.summary() + "\nSwitch config: " + config.source +
             " (switch.hash_seed " + std::to_string(config.sw.hash_seed) + ")\n";
  for (const auto& n : ctx.notes) comment += n + "\n";
  comment +=
      "\nAn ordinary scenario (tools/gen/scenario.h): edit it and generate with\n"
      "  rocelb-gen --scenario FILE --out-dir DIR\n"
      "then replay each DIR/port<N>.pcap into switch port N:\n"
      "  rocelb-dp replay --in 0=DIR/port0.pcap --in 1=DIR/port1.pcap ... --out-dir OUT\n"
      "Every random choice is already made: --seed changes only `sport: random` flows.";

  PresetResult r;
  r.yaml = scenario_to_yaml(sc, wrap(comment, 96));
  r.scenario = load_scenario_text(r.yaml, "preset " + std::string(name), config, ctx.seed);
  r.notes = std::move(ctx.notes);
  return r;
}

}  // namespace rocelb
