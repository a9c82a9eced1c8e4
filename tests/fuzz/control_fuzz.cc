// libFuzzer target for the control protocol: the input is one request line
// as a client would send it. Whatever it holds, parse_request must give a
// request or an error message, the reply built from it must be one valid
// JSON line, and a `set` or `apply` must end in a config or a ConfigError
// against the default config, as the switch would handle it.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "control/config_loader.h"
#include "control/control_protocol.h"
#include "control/default_config.h"
#include "control/yaml_override.h"

namespace {

void check_reply(const std::string& line) {
  if (line.empty() || line.back() != '\n' || line.find('\n') != line.size() - 1) std::abort();
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ok")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const rocelb::ParsedRequest req = rocelb::parse_request(line);
  if (!req.ok()) {
    check_reply(rocelb::reply_error(req.id, req.error));
    return 0;
  }
  const std::string base(rocelb::embedded_default_config());
  try {
    if (req.verb == rocelb::ControlVerb::kSet) {
      const std::string ov = rocelb::set_override(req);
      rocelb::load_config_text(base, "fuzz.yaml", {ov});
      rocelb::effective_config_yaml(base, {ov});
    } else if (req.verb == rocelb::ControlVerb::kApply) {
      rocelb::load_config_text(req.config, "control apply");
    }
    check_reply(rocelb::reply_ok(req.id, nlohmann::json{{"what", req.what}}));
  } catch (const rocelb::ConfigError& e) {
    check_reply(rocelb::reply_error(req.id, e.what()));
  }
  return 0;
}
