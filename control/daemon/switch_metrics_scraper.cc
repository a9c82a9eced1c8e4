#include "control/daemon/switch_metrics_scraper.h"

namespace rocelb {

SwitchMetricsScraper::SwitchMetricsScraper(std::string socket_path,
                                           std::chrono::milliseconds timeout)
    : client_(std::move(socket_path), timeout) {}

std::optional<std::string> SwitchMetricsScraper::fetch(std::string* why) {
  std::lock_guard lock(mu_);
  ControlReply reply;
  try {
    const bool was_connected = client_.connected();
    try {
      reply = client_.show("metrics");
    } catch (const ControlConnectError&) {
      // A connection kept from an earlier scrape may lead to a switch that
      // has since restarted: try once on a fresh one.
      if (!was_connected) throw;
      reply = client_.show("metrics");
    }
  } catch (const ControlConnectError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
  if (!reply.ok) {
    if (why) *why = "show metrics: " + reply.error;
    return std::nullopt;
  }
  const auto text = reply.result.find("text");
  if (text == reply.result.end() || !text->is_string()) {
    if (why) *why = "show metrics: the reply has no \"text\"";
    return std::nullopt;
  }
  std::string out = text->get<std::string>();
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

}  // namespace rocelb
