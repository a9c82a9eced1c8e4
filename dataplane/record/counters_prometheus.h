// Every switch counter in the Prometheus text exposition format (0.0.4),
// rendered from a counters JSON (counters_json.h) with the names and help
// texts of the counter tables (counters.h, pfc/, lb/), so there is one list.
//
// Naming: rocelb_<scope>_<counter>, `_total` on counters, base units
// (a counter kept in `_ns`, `_us` or `_ms` becomes `_seconds_total`, its
// value exact to the unit: lcore sleep_ns is rocelb_lcore_sleep_seconds_total;
// speeds `_bytes_per_second`). promtool check metrics accepts the text.
// Labels: port (id), queue (class), priority, group, member (next-hop
// address), reason (drop reason); rocelb_port_info carries the port's name.
// Never per flow. Gauges: queue depth/watermark/limit, storm state, speed,
// queued packets, conservation.
//
// control_prometheus(): the control socket's own figures (rocelb_control_*):
// connections accepted, refused by reason (not_permitted, no_credentials,
// max_clients, max_clients_per_uid) and closed by reason (client_timeout,
// idle_timeout), requests and bad ones, config writes by result; gauges for
// clients now, reply bytes held now / at most / allowed, and the limits in
// force (they follow `set control.*`).
//
// xdp_prometheus(): per AF_XDP port with XDP steering, the frames and bytes
// its program sent to the switch (by reason) and to the kernel.
#pragma once

#include <string>

#include "control/control_server.h"
#include "dataplane/record/counters_json.h"

namespace rocelb {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string counters_prometheus(const Json& counters);

// What control_prometheus() shows, read on the control thread.
struct ControlMetrics {
  ControlServerStats server;
  uint64_t clients = 0, queued_bytes = 0, peak_queued_bytes = 0;
  ControlServerOptions limits;  // in force
  uint64_t writes_applied = 0, writes_refused = 0;
};
ControlMetrics control_metrics(const ControlServer& server);

std::string control_prometheus(const ControlMetrics& m);

// The XDP steering programs' counters (rocelb_port_xdp_frames_total and
// _bytes_total, labels port, to: switch|kernel, reason) from
// [{"id": port, "xdp": XdpSteering::stats()}, ...].
std::string xdp_prometheus(const Json& ports);

}  // namespace rocelb
