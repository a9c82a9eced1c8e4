// rocelb-docgen: writes a reference page generated from the code to
// stdout. tools/gen-docs runs it; the pages live in docs/reference/.
//
//   rocelb-docgen counters      docs/reference/counters.md
//   rocelb-docgen config-keys   docs/reference/config-keys.md
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "tools/docgen/config_keys_page.h"
#include "tools/docgen/counters_page.h"

int main(int argc, char** argv) {
  const bool counters = argc == 2 && std::strcmp(argv[1], "counters") == 0;
  const bool config_keys = argc == 2 && std::strcmp(argv[1], "config-keys") == 0;
  if (!counters && !config_keys) {
    std::fprintf(stderr,
                 "rocelb-docgen: usage: rocelb-docgen counters|config-keys (the page to write)\n");
    return 2;
  }
  try {
    const std::string page = counters ? rocelb::counters_page() : rocelb::config_keys_page();
    std::fwrite(page.data(), 1, page.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocelb-docgen: %s\n", e.what());
    return 1;
  }
}
