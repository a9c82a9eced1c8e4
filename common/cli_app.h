// What every rocelb program does with its command line beyond CLI11:
// `--version` prints version_text() (common/version.h) and exits 0, and an
// argument CLI11 did not expect gets the nearest option or subcommand
// ("rocelb-dp: --timline: no such option; did you mean --timeline?"), exit
// 2 as for any usage error. Include it only from a program's main.cc (CLI11
// costs seconds of compile time per file). No knobs, no counters.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "common/suggest.h"
#include "common/version.h"

namespace rocelb {

inline void add_version_flag(CLI::App& app) {
  app.set_version_flag("--version", std::string(version_text()), "print the version and exit");
}

// The long options (--name) and subcommand names usable where `app` stopped:
// in the deepest subcommand that was parsed, and its parents' options.
inline std::vector<std::string> cli_names(CLI::App& app) {
  std::vector<std::string> out;
  CLI::App* at = &app;
  for (;;) {
    for (const CLI::Option* o : at->get_options())
      for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
    const std::vector<CLI::App*> parsed = at->get_subcommands();
    if (parsed.empty()) {
      for (const CLI::App* s : at->get_subcommands({})) out.push_back(s->get_name());
      break;
    }
    at = parsed.front();
  }
  return out;
}

// Handles a CLI11 error: help and --version print and give 0; an argument
// nobody expected is named with the nearest name (exit 2); any other error
// is CLI11's message (exit 2). `prog` prefixes the suggestion line ("":
// none, for a caller that prefixes what it prints).
inline int cli_error(CLI::App& app, const CLI::ParseError& e, const std::string& prog,
                     std::ostream& out, std::ostream& err) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e, out, err);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::vector<std::string> names = cli_names(app);
    for (const std::string& extra : app.remaining(true)) {
      const std::string word = extra.substr(0, extra.find('='));
      const std::string near = nearest_name(word, names);
      err << (prog.empty() ? "" : prog + ": ") << word << ": no such "
          << (word.rfind("-", 0) == 0 ? "option" : "subcommand or argument");
      if (!near.empty()) err << "; did you mean " << near << "?";
      err << " (--help lists them)\n";
      return 2;
    }
  }
  app.exit(e, out, err);
  return 2;
}

}  // namespace rocelb
