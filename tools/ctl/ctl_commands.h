// rocelbctl's commands, runnable in-process: parses the command line
// (CLI11), talks to the switch through ControlClient
// (control/control_client.h) and prints to the streams it is given, so the
// tests drive it without a subprocess.
//   show ports|queues|pfc|ecn|groups|flowlets|counters|config|metrics [--json]
//   set KEY.PATH VALUE        VALUE as JSON when it parses, else a string
//   config apply FILE         the whole YAML file
//   clear counters
//   watch [--interval S] [--count N]   refreshes until N screens (0: forever)
// Socket: --socket PATH, else $ROCELB_SOCKET, else kDefaultControlSocket.
// Exit codes: 0 done; 1 the switch refused (its error on err, after
// "rocelbctl: "; or, when it turned the connection away — too many clients,
// not permitted — "rocelbctl: the switch at PATH refused this client: "
// and its reason) or sent a result that is not as documented; 2 usage (bad
// arguments, an unreadable FILE or one that cannot be one request: not
// UTF-8, over 64 KiB JSON-escaped); 3 the switch cannot be reached ("rocelbctl:
// cannot connect to the switch at PATH: reason").
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rocelb {

inline constexpr int kCtlExitOk = 0;
inline constexpr int kCtlExitRefused = 1;
inline constexpr int kCtlExitUsage = 2;
inline constexpr int kCtlExitCannotConnect = 3;

struct CtlContext {
  std::ostream& out;
  std::ostream& err;
  bool out_is_tty = false;  // watch clears the screen before each refresh only then
  std::string env_socket;   // $ROCELB_SOCKET; empty when unset
};

// args: the command line without the program name.
int run_ctl(const std::vector<std::string>& args, const CtlContext& ctx);

// VALUE of `set`: the JSON it is when it parses as JSON (100, true, [3,4],
// {"d":2}, "quoted"), otherwise the text itself as a string (drill, 100KB).
nlohmann::json parse_set_value(const std::string& text);

}  // namespace rocelb
