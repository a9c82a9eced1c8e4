#include "control/daemon/config_keeper.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "control/config_loader.h"

namespace rocelb {

ConfigRead ConfigKeeper::read() const {
  ConfigRead r;
  std::ifstream f(path_, std::ios::binary);
  if (!f) {
    r.error = path_ + ": cannot read: " + std::strerror(errno);
    return r;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) {
    r.error = path_ + ": cannot read: " + std::strerror(errno);
    return r;
  }
  r.text = ss.str();
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
