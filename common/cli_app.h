// What every rocelb program does with its command line beyond CLI11:
// `--version` prints version_text() (common/version.h) and exits 0, and an
// argument CLI11 did not expect gets the nearest option or subcommand
// ("rocelb-dp: --timline: no such option; did you mean --timeline?"), exit
// 2 as for any usage error. Include it only from a program's main.cc (CLI11
// costs seconds of compile time per file). No knobs, no counters.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
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
// nobody expected is named with the nearest name (exit 2), and so is an
// unknown command where `app` requires one (`args`: the command line
// without the program's name); any other error is CLI11's message (exit
// 2). `prog` prefixes the suggestion line ("": none, for a caller that
// prefixes what it prints).
inline int cli_error(CLI::App& app, const CLI::ParseError& e, const std::string& prog,
                     std::ostream& out, std::ostream& err,
                     const std::vector<std::string>& args = {}) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e, out, err);
  const std::string lead = prog.empty() ? "" : prog + ": ";
  auto name = [&](const std::string& word, const std::vector<std::string>& names, bool option) {
    const std::string near = nearest_name(word, names);
    err << lead << word << ": no such " << (option ? "option" : "command");
    if (!near.empty()) err << "; did you mean " << near << "?";
    err << " (--help lists them)\n";
    return 2;
  };
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // An option first (a value after a mistyped option is only its value).
    const std::vector<std::string> extras = app.remaining(true);
    for (const std::string& extra : extras)
      if (extra.rfind("-", 0) == 0)
        return name(extra.substr(0, extra.find('=')), cli_names(app), true);
    if (!extras.empty()) return name(extras.front(), cli_names(app), false);
  }
  if (app.get_require_subcommand_min() > 0 && app.get_subcommands().empty()) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    for (const std::string& a : args)
      if (!a.empty() && a[0] != '-' &&
          std::find(commands.begin(), commands.end(), a) == commands.end())
        return name(a, commands, false);
  }
  app.exit(e, out, err);
  return 2;
}

}  // namespace rocelb
