#include "control/daemon/config_keeper.h"

#include "control/bounded_file.h"
#include "control/config_loader.h"
#include "control/control_protocol.h"

namespace rocelb {

ConfigRead ConfigKeeper::read() const {
  ConfigRead r;
  try {
    r.text = read_bounded_file(path_, kMaxYamlFileBytes, "config file");
  } catch (const BoundedFileError& e) {
    r.error = path_ + ": cannot read: " + e.why();
    return r;
  }
  // Sent in one request: one that cannot be is refused here, with why.
  if (const auto problem = apply_request_problem(r.text)) {
    r.error = path_ + ": " + *problem;
    r.text.clear();
    return r;
  }
  try {
    load_config_text(r.text, path_);
  } catch (const ConfigError& e) {
    r.error = e.what();
    r.text.clear();
    return r;
  } catch (const std::exception& e) {
    // The loader's contract is ConfigError; anything else is still a refusal.
    r.error = path_ + ": " + e.what();
    r.text.clear();
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace rocelb
