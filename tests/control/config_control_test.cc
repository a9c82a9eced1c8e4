// The `control` section: the socket rocelb-dp run serves, who may use it,
// and its limits, with key-path errors like every other section.
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace rocelb {
namespace {

using test::Doc;
using test::error_of;
using test::load;

std::string with_control(const std::string& control) {
  Doc d;
  d.sw = control;
  return d.text();
}

TEST(ConfigControl, Defaults) {
  const ConfigParams p = load(Doc{}.text());
  EXPECT_EQ(p.control.socket, "/run/rocelb/rocelb.sock");
  EXPECT_EQ(p.control.group, "");
  EXPECT_EQ(p.control.max_clients, 16u);
  EXPECT_EQ(p.control.max_clients_per_uid, 15u);
  EXPECT_EQ(p.control.client_timeout_ns, 10'000'000'000u);
  EXPECT_EQ(p.control.idle_timeout_ns, 30'000'000'000u);
}

TEST(ConfigControl, PerUidLimitFollowsMaxClientsUnlessSet) {
  EXPECT_EQ(load(with_control("control: {max_clients: 4}\n")).control.max_clients_per_uid, 3u);
  EXPECT_EQ(load(with_control("control: {max_clients: 1}\n")).control.max_clients_per_uid, 1u);
  EXPECT_EQ(load(with_control("control: {max_clients: 4, max_clients_per_uid: 4}\n"))
                .control.max_clients_per_uid,
            4u);
}

TEST(ConfigControl, Values) {
  const ConfigParams p = load(with_control(
      "control: {socket: /tmp/x/s.sock, group: adm, max_clients: 4, max_clients_per_uid: 2,\n"
      "          client_timeout: 250ms, idle_timeout: 120s}\n"));
  EXPECT_EQ(p.control.socket, "/tmp/x/s.sock");
  EXPECT_EQ(p.control.group, "adm");
  EXPECT_EQ(p.control.max_clients, 4u);
  EXPECT_EQ(p.control.max_clients_per_uid, 2u);
  EXPECT_EQ(p.control.client_timeout_ns, 250'000'000u);
  EXPECT_EQ(p.control.idle_timeout_ns, 120'000'000'000u);
  // --set works as for any key (the tests and scripts rely on it).
  EXPECT_EQ(load(Doc{}.text(), {"control.socket=/tmp/y.sock"}).control.socket, "/tmp/y.sock");
}

TEST(ConfigControl, Errors) {
  EXPECT_EQ(error_of(with_control("control: {socket: rel/s.sock}\n")),
            "x.yaml: control.socket: \"rel/s.sock\": must be an absolute path of at most 107 "
            "bytes");
  EXPECT_EQ(error_of(with_control("control: {socket: /" + std::string(120, 'a') + "}\n"))
                .rfind("x.yaml: control.socket: ", 0),
            0u);
  EXPECT_EQ(error_of(with_control("control: {max_clients: 0}\n")),
            "x.yaml: control.max_clients: 0: must be an integer 1..1024");
  EXPECT_EQ(
      error_of(with_control("control: {client_timeout: 1us}\n"))
          .rfind("x.yaml: control.client_timeout: \"1us\": must be a duration 1ms .. 3600s", 0),
      0u);
  EXPECT_EQ(error_of(with_control("control: {max_clients_per_uid: 0}\n")),
            "x.yaml: control.max_clients_per_uid: 0: must be an integer 1..1024");
  EXPECT_EQ(error_of(with_control("control: {max_clients: 4, max_clients_per_uid: 5}\n")),
            "x.yaml: control.max_clients_per_uid: 5: must be at most control.max_clients (4)");
  EXPECT_EQ(error_of(with_control("control: {idle_timeout: 0s}\n"))
                .rfind("x.yaml: control.idle_timeout: \"0s\": must be a duration 1ms .. 3600s", 0),
            0u)
      << error_of(with_control("control: {idle_timeout: 0s}\n"));
  EXPECT_EQ(error_of(with_control("control: {idle_timeout: soon}\n"))
                .rfind("x.yaml: control.idle_timeout: \"soon\": ", 0),
            0u);
  EXPECT_EQ(error_of(with_control("control: {sock: /a}\n")),
            "x.yaml: control.sock: unknown key (known: socket, group, max_clients, "
            "max_clients_per_uid, client_timeout, idle_timeout)");
}

}  // namespace
}  // namespace rocelb
