#include "tools/ctl/fabric_sockets.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "control/bounded_file.h"
#include "control/control_client.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

// A refusal: one line, already complete.
struct Refusal {
  std::string line;
};

YAML::Node load(const std::string& path, const char* what, size_t max_nodes) {
  try {
    return load_yaml_document(read_bounded_file(path, kMaxYamlFileBytes, what), path, max_nodes);
  } catch (const BoundedFileError& e) {
    throw Refusal{e.what()};
  } catch (const YamlDocumentError& e) {
    throw Refusal{e.what()};
  }
}

// The control.socket of one switch config (the default when it has none).
std::string socket_of(const std::string& cfg) {
  const YAML::Node sw = load(cfg, "config file", kMaxSwitchConfigNodes);
  auto refuse = [&](const std::string& path, const std::string& rule) {
    return Refusal{cfg + ": " + path + ": " + rule};
  };
  if (sw.IsNull()) return std::string(kDefaultControlSocket);
  if (!sw.IsMap()) throw refuse("", "a switch config is a map (found " + yaml_kind(sw) + ")");
  const YAML::Node control = sw["control"];
  if (!control || control.IsNull()) return std::string(kDefaultControlSocket);
  if (!control.IsMap()) throw refuse("control", "expected a map, found " + yaml_show(control));
  const YAML::Node socket = control["socket"];
  if (!socket || socket.IsNull()) return std::string(kDefaultControlSocket);
  if (!socket.IsScalar() || socket.Scalar().empty())
    throw refuse("control.socket", "expected a socket path, found " + yaml_show(socket));
  return socket.Scalar();
}

std::vector<FabricSwitchSocket> sockets(const std::string& file) {
  namespace fs = std::filesystem;
  const YAML::Node doc = load(file, "fabric file", kMaxYamlNodes);
  const YAML::Node switches = doc.IsMap() ? doc["switches"] : YAML::Node();
  if (!switches || !switches.IsMap() || switches.size() == 0)
    throw Refusal{
        file + ": switches: " +
        (switches ? "expected a map of switch name to config file, found " + yaml_kind(switches)
                  : std::string("missing")) +
        ": --fabric takes a fabric in the explicit form (switches: {NAME: CONFIG.yaml}; "
        "rocelb-dp fabric --export writes one)"};
  if (auto problem = check_map_keys(switches, "switches"))
    throw Refusal{file + ": " + problem->path + ": " + problem->rule};
  std::vector<FabricSwitchSocket> out;
  for (const auto& kv : switches) {
    FabricSwitchSocket s;
    s.name = kv.first.Scalar();
    const std::string key = join_path("switches", s.name);
    // NAME: FILE, or NAME: {config: FILE}, as the explicit form allows.
    YAML::Node value = kv.second;
    if (value.IsMap() && value["config"]) value = value["config"];
    if (!value.IsScalar() || value.Scalar().empty())
      throw Refusal{file + ": " + key + ": expected the switch's config file, found " +
                    yaml_show(value)};
    fs::path cfg = value.Scalar();
    if (cfg.is_relative()) cfg = fs::path(file).parent_path() / cfg;
    try {
      s.socket = socket_of(cfg.string());
    } catch (const Refusal& r) {
      throw Refusal{file + ": " + key + ": " + r.line};
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::optional<std::vector<FabricSwitchSocket>> fabric_sockets(const std::string& file,
                                                              std::string* why) {
  try {
    return sockets(file);
  } catch (const Refusal& r) {
    *why = r.line;
    return std::nullopt;
  }
}

}  // namespace rocelb
