#include "tools/ctl/fabric_sockets.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "control/control_client.h"

namespace rocelb {

std::optional<std::vector<FabricSwitchSocket>> fabric_sockets(const std::string& file,
                                                              std::string* why) {
  namespace fs = std::filesystem;
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    *why = file + ": " + e.what();
    return std::nullopt;
  }
  const YAML::Node switches = doc["switches"];
  if (!switches || !switches.IsMap() || switches.size() == 0) {
    *why = file +
           ": switches: missing: --fabric takes a fabric in the explicit form "
           "(switches: {NAME: CONFIG.yaml}; rocelb-dp fabric --export writes one)";
    return std::nullopt;
  }
  std::vector<FabricSwitchSocket> out;
  for (const auto& kv : switches) {
    FabricSwitchSocket s;
    s.name = kv.first.as<std::string>("");
    const std::string key = "switches." + s.name;
    if (!kv.second.IsScalar()) {
      *why = file + ": " + key + ": must be the switch's config file";
      return std::nullopt;
    }
    fs::path cfg = kv.second.as<std::string>();
    if (cfg.is_relative()) cfg = fs::path(file).parent_path() / cfg;
    try {
      const YAML::Node sw = YAML::LoadFile(cfg.string());
      const YAML::Node sock = sw["control"] ? sw["control"]["socket"] : YAML::Node();
      s.socket = sock && sock.IsScalar() ? sock.as<std::string>() : kDefaultControlSocket;
    } catch (const YAML::Exception& e) {
      *why = file + ": " + key + ": " + cfg.string() + ": " + e.what();
      return std::nullopt;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rocelb
