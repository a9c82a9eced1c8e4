#include "tools/ctl/ctl_commands.h"

#include "common/cli_app.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <ostream>
#include <thread>

#include "control/bounded_file.h"
#include "control/control_client.h"
#include "control/control_protocol.h"
#include "tools/ctl/fabric_sockets.h"
#include "tools/ctl/show_format.h"
#include "tools/ctl/watch_view.h"

namespace rocelb {
namespace {

using json = nlohmann::json;

// What the command line asked for.
struct CtlArgs {
  std::string socket;
  std::string fabric;  // --fabric FILE: every switch of the fabric
  std::string what;    // show / clear target
  bool json = false;
  std::string key, value;
  std::string file;
  double interval_s = 1.0;
  uint64_t count = 0;
};

// The whole file (a regular file of at most kMaxYamlFileBytes:
// control/bounded_file.h), or nullopt with the reason in *why.
std::optional<std::string> read_whole_file(const std::string& path, std::string* why) {
  try {
    return read_bounded_file(path, kMaxYamlFileBytes, "config file");
  } catch (const BoundedFileError& e) {
    *why = e.why();
    return std::nullopt;
  }
}

// Requests of one invocation, and how their failures map to exit codes.
class Session {
 public:
  Session(const CtlContext& ctx, const std::string& socket) : ctx_(ctx), client_(socket) {}

  // Connects; false (with the message printed) when the switch cannot be reached.
  bool connect() {
    try {
      client_.connect();
      return true;
    } catch (const ControlConnectError& e) {
      ctx_.err << "rocelbctl: cannot connect to the switch at " << e.what() << "\n";
      return false;
    }
  }

  // One request; the result, or nullopt with exit_code set and the error printed.
  std::optional<json> call(const json& request) {
    ControlReply reply;
    try {
      reply = client_.request(request);
    } catch (const ControlRefusedError& e) {
      // Turned away (too many clients, not permitted): the switch's own words.
      ctx_.err << "rocelbctl: the switch at " << client_.socket_path()
               << " refused this client: " << e.reason() << "\n";
      exit_code = kCtlExitRefused;
      return std::nullopt;
    } catch (const ControlConnectError& e) {
      ctx_.err << "rocelbctl: lost the connection to the switch at " << e.what() << "\n";
      exit_code = kCtlExitCannotConnect;
      return std::nullopt;
    }
    if (!reply.ok) {
      ctx_.err << "rocelbctl: " << reply.error << "\n";
      exit_code = kCtlExitRefused;
      return std::nullopt;
    }
    return std::move(reply.result);
  }

  int exit_code = kCtlExitOk;

 private:
  const CtlContext& ctx_;
  ControlClient client_;
};

json show_request(const std::string& what) {
  return {{"verb", "show"}, {"what", what}};
}

int unreadable_result(const CtlContext& ctx, const std::string& what, const std::exception& e) {
  ctx.err << "rocelbctl: " << what << ": the switch's result is not as documented: " << e.what()
          << "\n";
  return kCtlExitRefused;
}

int cmd_show(Session& s, const CtlArgs& a, const CtlContext& ctx) {
  const auto result = s.call(show_request(a.what));
  if (!result) return s.exit_code;
  if (a.json) {
    ctx.out << result->dump(2) << "\n";
    return kCtlExitOk;
  }
  try {
    ctx.out << format_show(a.what, *result);
  } catch (const json::exception& e) {
    return unreadable_result(ctx, "show " + a.what, e);
  }
  return kCtlExitOk;
}

int cmd_set(Session& s, const CtlArgs& a, const CtlContext& ctx) {
  const json value = parse_set_value(a.value);
  const auto result = s.call({{"verb", "set"}, {"key", a.key}, {"value", value}});
  if (!result) return s.exit_code;
  ctx.out << "set " << result->value("key", a.key) << "=" << result->value("value", value).dump()
          << ": generation " << result->value("generation", json()).dump() << "\n";
  return kCtlExitOk;
}

int cmd_apply(Session& s, const CtlContext& ctx, const std::string& text) {
  const auto result = s.call({{"verb", "apply"}, {"config", text}});
  if (!result) return s.exit_code;
  ctx.out << "applied: generation " << result->value("generation", json()).dump() << "\n";
  return kCtlExitOk;
}

int cmd_clear(Session& s, const CtlArgs& a, const CtlContext& ctx) {
  const auto result = s.call({{"verb", "clear"}, {"what", a.what}});
  if (!result) return s.exit_code;
  ctx.out << "cleared: " << a.what << " (switch time "
          << result->value("cleared_at_ns", json()).dump() << " ns)\n";
  return kCtlExitOk;
}

int cmd_watch(Session& s, const CtlArgs& a, const CtlContext& ctx) {
  std::optional<WatchSample> prev;
  for (uint64_t n = 0; a.count == 0 || n < a.count; ++n) {
    if (n > 0) std::this_thread::sleep_for(std::chrono::duration<double>(a.interval_s));
    WatchSample cur;
    for (auto [what, slot] : {std::pair{"ports", &cur.ports}, std::pair{"queues", &cur.queues},
                              std::pair{"pfc", &cur.pfc}, std::pair{"groups", &cur.groups}}) {
      auto result = s.call(show_request(what));
      if (!result) return s.exit_code;
      *slot = std::move(*result);
    }
    std::string screen;
    try {
      screen = render_watch(prev ? &*prev : nullptr, cur);
    } catch (const json::exception& e) {
      return unreadable_result(ctx, "watch", e);
    }
    if (ctx.out_is_tty)
      ctx.out << "\x1b[H\x1b[2J";
    else if (n > 0)
      ctx.out << "\n";
    ctx.out << screen << std::flush;
    prev = std::move(cur);
  }
  return kCtlExitOk;
}

}  // namespace

json parse_set_value(const std::string& text) {
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return v.is_discarded() ? json(text) : v;
}

// --fabric: the same request to every switch of the fabric, each result
// under its switch's name (text: a heading line per switch; JSON: one object
// keyed by switch). A switch that cannot be reached or refuses is reported
// and the others still get the request; the exit code is the worst one.
int run_fabric(const CtlArgs& a, const CtlContext& ctx, bool show, bool set, bool clear) {
  if (!show && !set && !clear) {
    ctx.err << "rocelbctl: --fabric takes show, set and clear\n";
    return kCtlExitUsage;
  }
  std::string why;
  const auto switches = fabric_sockets(a.fabric, &why);
  if (!switches) {
    ctx.err << "rocelbctl: --fabric " << why << "\n";
    return kCtlExitUsage;
  }
  int worst = kCtlExitOk;
  json all = json::object();
  for (const FabricSwitchSocket& sw : *switches) {
    Session s(ctx, sw.socket);
    int rc = kCtlExitOk;
    std::optional<json> result;
    if (!s.connect()) {
      rc = kCtlExitCannotConnect;
    } else if (show) {
      result = s.call(show_request(a.what));
    } else if (set) {
      result = s.call({{"verb", "set"}, {"key", a.key}, {"value", parse_set_value(a.value)}});
    } else {
      result = s.call({{"verb", "clear"}, {"what", a.what}});
    }
    if (rc == kCtlExitOk && !result) rc = s.exit_code;
    worst = std::max(worst, rc);
    if (!result) {
      ctx.err << "rocelbctl: (switch " << sw.name << ")\n";
      continue;
    }
    if (a.json || !show) {
      all[sw.name] = std::move(*result);
      continue;
    }
    ctx.out << "== " << sw.name << " (" << sw.socket << ")\n";
    try {
      ctx.out << format_show(a.what, *result);
    } catch (const json::exception& e) {
      worst = std::max(worst, unreadable_result(ctx, sw.name + ": show " + a.what, e));
    }
  }
  if (a.json || !show) ctx.out << all.dump(2) << "\n";
  return worst;
}

int run_ctl(const std::vector<std::string>& args, const CtlContext& ctx) {
  CLI::App app{"rocelbctl: operate a running rocelb switch through its control socket",
               "rocelbctl"};
  app.require_subcommand(1);
  app.fallthrough();  // --socket may also follow the subcommand
  CtlArgs a;
  auto* socket_opt =
      app.add_option("--socket", a.socket,
                     std::string("control socket of the switch (default: $ROCELB_SOCKET, else ") +
                         kDefaultControlSocket + ")");
  app.add_option("--fabric", a.fabric,
                 "every switch of a fabric in the explicit form (fabric.yaml, as rocelb-dp "
                 "fabric --export and tools/fabric-live write it): show, set and clear go to "
                 "each, in turn")
      ->excludes(socket_opt);

  std::vector<std::string> targets(std::begin(kShowTargets), std::end(kShowTargets));
  CLI::App* show = app.add_subcommand("show", "print what the switch reports");
  show->add_option("what", a.what, "what to show")
      ->required()
      ->check(CLI::Validator(
          [targets](std::string& w) -> std::string {
            if (std::find(targets.begin(), targets.end(), w) != targets.end()) return "";
            const std::string near = nearest_name(w, targets);
            std::string all;
            for (const auto& t : targets) all += (all.empty() ? "" : ", ") + t;
            return w + ": no such target" + (near.empty() ? "" : "; did you mean " + near + "?") +
                   " (" + all + ")";
          },
          "TARGET"));
  show->add_flag("--json", a.json, "print the result as JSON");

  CLI::App* set = app.add_subcommand("set", "change one key of the running config");
  set->add_option("key", a.key, "config key path, e.g. groups.uplinks.mode")->required();
  set->add_option("value", a.value, "new value: JSON (100, true, [3,4]) or else a string (drill)")
      ->required();

  CLI::App* config = app.add_subcommand("config", "the whole config");
  config->require_subcommand(1);
  CLI::App* apply = config->add_subcommand("apply", "replace the running config with a YAML file");
  apply->add_option("file", a.file, "config YAML")->required();

  CLI::App* clear = app.add_subcommand("clear", "zero what show reports");
  clear->add_option("what", a.what, "counters")
      ->required()
      ->check(CLI::IsMember(std::vector<std::string>{"counters"}));

  CLI::App* watch = app.add_subcommand("watch", "refresh rates, queues, PFC and shares (top-like)");
  watch->add_option("--interval", a.interval_s, "seconds between refreshes (default 1)")
      ->check(CLI::Range(0.01, 86400.0));
  watch->add_option("--count", a.count, "stop after N refreshes (default 0: never)")
      ->check(CLI::NonNegativeNumber);

  add_version_flag(app);

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, ctx.out, ctx.err);  // --help, --version
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      cli_error(app, e, "rocelbctl", ctx.out, ctx.err);
      return kCtlExitUsage;
    }
    // An unknown command reads as "a subcommand is required": name the nearest.
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--socket" || args[i] == "--fabric") {
        ++i;  // and its value
        continue;
      }
      if (args[i].empty() || args[i][0] == '-') continue;
      if (std::find(commands.begin(), commands.end(), args[i]) != commands.end()) break;
      const std::string near = nearest_name(args[i], commands);
      ctx.err << "rocelbctl: " << args[i] << ": no such command"
              << (near.empty() ? "" : "; did you mean " + near + "?") << " (rocelbctl --help)\n";
      return kCtlExitUsage;
    }
    ctx.err << "rocelbctl: " << e.what() << " (rocelbctl --help for usage)\n";
    return kCtlExitUsage;
  }

  std::string text;  // config apply: read before connecting, a bad FILE is a usage error
  if (apply->parsed()) {
    std::string why;
    auto contents = read_whole_file(a.file, &why);
    if (!contents) {
      ctx.err << "rocelbctl: config apply " << a.file << ": " << why << "\n";
      return kCtlExitUsage;
    }
    text = std::move(*contents);
    if (const auto problem = apply_request_problem(text)) {
      ctx.err << "rocelbctl: config apply " << a.file << ": " << *problem << "\n";
      return kCtlExitUsage;
    }
  }

  if (!a.fabric.empty()) return run_fabric(a, ctx, show->parsed(), set->parsed(), clear->parsed());

  const std::string socket = !a.socket.empty()         ? a.socket
                             : !ctx.env_socket.empty() ? ctx.env_socket
                                                       : std::string(kDefaultControlSocket);
  Session session(ctx, socket);
  if (!session.connect()) return kCtlExitCannotConnect;
  if (show->parsed()) return cmd_show(session, a, ctx);
  if (set->parsed()) return cmd_set(session, a, ctx);
  if (apply->parsed()) return cmd_apply(session, ctx, text);
  if (clear->parsed()) return cmd_clear(session, a, ctx);
  return cmd_watch(session, a, ctx);
}

}  // namespace rocelb
