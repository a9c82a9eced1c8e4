// What `rocelb-dp run` answers on its control socket (control/control-protocol.md):
// `show` views, `set` of one key, `apply` of a whole config, `clear
// counters`, and the SIGHUP reload of the config file. Writes go through the
// config loader (the file's validation) and LiveRun::apply (an RCU
// grace period); a refused write changes nothing.
//
// The running config is kept as text plus overrides: the YAML it came from
// (the file, the embedded default or the last `apply`), the command line's
// --set, then every accepted `set`, in order. `show config` prints that
// text with the overrides applied; SIGHUP goes back to the file and the
// command line's --set.
//
// Every write is validated with this switch's memory runtime (its workers,
// pool and rings: memory_runtime.h) against limits.max_memory; `show
// config` carries the running config's estimate. The attached control
// server (attach_server) adopts each write's control.* keys with it: before
// the dataplane, as it may refuse (an unknown group), and back again if the
// dataplane refuses. `show metrics` adds the server's own figures.
// Counters: writes_applied, writes_refused (stats()).
#pragma once

#include <string>
#include <vector>

#include "control/control_server.h"
#include "control/memory_estimate.h"
#include "dataplane/run/live_run.h"

namespace rocelb {

struct RunningConfigText {
  std::string text;                       // the YAML the config was built from
  std::string source;                     // its name in messages
  std::string file;                       // what SIGHUP reads again ("": the embedded default)
  std::vector<std::string> startup_sets;  // --set KEY.PATH=VALUE from the command line
  std::vector<std::string> overrides;     // in effect: startup_sets, then `set`s
};

// The config a switch starts from, and SIGHUP goes back to: `file` (the
// embedded default when empty) with the command line's --sets. Throws
// ConfigError when the file cannot be read.
RunningConfigText startup_config_text(const std::string& file,
                                      const std::vector<std::string>& sets);

struct ControlServiceStats {
  uint64_t writes_applied = 0, writes_refused = 0;
};

class ControlService {
 public:
  ControlService(LiveRun& live, RunningConfigText running);

  // The server whose handler this is: it follows control.* writes and its
  // figures join `show metrics`. It must outlive the service's use.
  void attach_server(ControlServer& server) { server_ = &server; }

  // One request → its reply line (a ControlServer::Handler).
  std::string handle(const ParsedRequest& req, const ControlPeer& peer);

  // SIGHUP: the file and the startup --sets again. Returns a log line;
  // a broken file leaves everything as it was and says why.
  std::string reload_file();

  const RunningConfigText& running() const { return running_; }
  const ControlServiceStats& stats() const { return stats_; }

 private:
  Json show(const std::string& what);
  // [{"id", "xdp": XdpSteering::stats()}] for the ports with XDP steering.
  Json xdp_ports() const;
  // Builds and publishes; throws ConfigError / std::exception. `peer`: the
  // client whose write this is (its files are opened with its rights);
  // null for SIGHUP. `reload`: groups whose bpf policy is read again.
  uint64_t publish(const ConfigParams& params, const ControlPeer* peer = nullptr,
                   const std::vector<std::string>& reload = {});
  Json counters_cleared(uint64_t now_ns) const;

  LiveRun& live_;
  ControlServer* server_ = nullptr;
  MemoryRuntime memory_;  // this switch's, for limits.max_memory
  RunningConfigText running_;
  Json baseline_;  // the counters when `clear counters` ran (null: never)
  ControlServiceStats stats_;
};

}  // namespace rocelb
