// The HTTP side of rocelbd, through a real HTTP client (httplib::Client):
// /metrics with its content type, /healthz 200 or 503 with the reason,
// 404 elsewhere, a busy address refused with a clear error.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>

#include "control/daemon/metrics_server.h"

namespace rocelb {
namespace {

TEST(MetricsServer, ServesMetricsHealthAnd404) {
  std::atomic<int> scrapes{0};
  std::string problem;
  std::mutex mu;
  MetricsServer server({"127.0.0.1", 0}, {[&] {
                                            ++scrapes;
                                            return std::string("# TYPE x gauge\nx 1\n");
                                          },
                                          [&] {
                                            std::lock_guard l(mu);
                                            return problem;
                                          }});
  server.start();
  ASSERT_NE(server.port(), 0);
  httplib::Client client("127.0.0.1", server.port());

  auto r = client.Get("/metrics");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "# TYPE x gauge\nx 1\n");
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(scrapes, 1);

  r = client.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok\n");

  {
    std::lock_guard l(mu);
    problem = "dataplane not connected:\nsecond line";
  }
  r = client.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, "dataplane not connected: second line\n");

  r = client.Get("/elsewhere");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  server.stop();
  EXPECT_FALSE(client.Get("/metrics"));
}

TEST(MetricsServer, AHandlerExceptionIsA500) {
  MetricsServer server({"127.0.0.1", 0}, {[]() -> std::string { throw std::runtime_error("boom"); },
                                          [] { return std::string(); }});
  server.start();
  httplib::Client client("127.0.0.1", server.port());
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(r->body.find("boom"), std::string::npos) << r->body;
}

TEST(MetricsServer, BusyAddressIsAClearError) {
  MetricsServer first({"127.0.0.1", 0},
                      {[] { return std::string(); }, [] { return std::string(); }});
  first.start();
  MetricsServer second({"127.0.0.1", first.port()},
                       {[] { return std::string(); }, [] { return std::string(); }});
  try {
    second.start();
    FAIL() << "bound twice";
  } catch (const MetricsServerError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "--metrics 127.0.0.1:" + std::to_string(first.port()) + ": cannot listen", 0),
              0u)
        << e.what();
  }
}

TEST(MetricsServer, StopRightAfterStartReturns) {
  for (int i = 0; i < 5; ++i) {
    MetricsServer s({"127.0.0.1", 0}, {[] { return std::string(); }, [] { return std::string(); }});
    s.start();
    s.stop();
  }
}

}  // namespace
}  // namespace rocelb
