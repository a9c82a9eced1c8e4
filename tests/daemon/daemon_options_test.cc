// rocelbd's command line: defaults, every option, and the usage errors
// (exit 2, one line naming the option and what is wrong).
#include <gtest/gtest.h>

#include <vector>

#include "control/control_client.h"
#include "control/daemon/daemon_options.h"

namespace rocelb {
namespace {

DaemonOptionsOutcome parse(std::vector<const char*> args) {
  args.insert(args.begin(), "rocelbd");
  return parse_daemon_options(static_cast<int>(args.size()), args.data());
}

TEST(ListenAddress, ParsesIpv4HostNamesAndBracketedIpv6) {
  EXPECT_EQ(parse_listen_address("127.0.0.1:9790"), (ListenAddress{"127.0.0.1", 9790}));
  EXPECT_EQ(parse_listen_address("0.0.0.0:1"), (ListenAddress{"0.0.0.0", 1}));
  EXPECT_EQ(parse_listen_address("localhost:65535"), (ListenAddress{"localhost", 65535}));
  EXPECT_EQ(parse_listen_address("[::1]:9790"), (ListenAddress{"::1", 9790}));
  EXPECT_EQ(parse_listen_address("[::]:80"), (ListenAddress{"::", 80}));
  EXPECT_EQ((ListenAddress{"::1", 9790}).to_string(), "[::1]:9790");
  EXPECT_EQ((ListenAddress{"127.0.0.1", 9790}).to_string(), "127.0.0.1:9790");
}

std::string error_of(const std::string& text) {
  try {
    parse_listen_address(text);
  } catch (const ListenAddressError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ListenAddress, RefusesWhatIsNotAddrColonPort) {
  EXPECT_EQ(error_of("127.0.0.1"),
            "\"127.0.0.1\": no port; expected ADDR:PORT, e.g. 127.0.0.1:9790 or [::1]:9790");
  EXPECT_EQ(error_of("127.0.0.1:"),
            "\"127.0.0.1:\": no port; expected ADDR:PORT, e.g. 127.0.0.1:9790 or [::1]:9790");
  EXPECT_EQ(error_of(":9790"),
            "\":9790\": no address before the port; expected ADDR:PORT, e.g. "
            "127.0.0.1:9790 or [::1]:9790");
  EXPECT_EQ(error_of("127.0.0.1:0"), "\"127.0.0.1:0\": port must be 1..65535");
  EXPECT_EQ(error_of("127.0.0.1:65536"), "\"127.0.0.1:65536\": port must be 1..65535");
  EXPECT_EQ(error_of("127.0.0.1:http"), "\"127.0.0.1:http\": port \"http\" is not a number");
  EXPECT_EQ(error_of("127.0.0.1:-1"), "\"127.0.0.1:-1\": port \"-1\" is not a number");
  EXPECT_EQ(error_of("127.0.0.1:80x"), "\"127.0.0.1:80x\": port \"80x\" is not a number");
  EXPECT_NE(error_of("::1:9790").find("an IPv6 address needs brackets"), std::string::npos);
  EXPECT_NE(error_of("[::1:9790").find("no ']'"), std::string::npos);
  EXPECT_NE(error_of("[::1]9790").find("no port"), std::string::npos);
  EXPECT_NE(error_of("[]:9790").find("empty address"), std::string::npos);
  EXPECT_NE(error_of("[zz]:9790").find("not an IPv6 address"), std::string::npos);
  EXPECT_NE(error_of("a b:9790").find("not an address or host name"), std::string::npos);
  EXPECT_NE(error_of("").find("no port"), std::string::npos);
}

TEST(DaemonOptions, Defaults) {
  const auto r = parse({});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(r.options->config_path, "/etc/rocelb/rocelb.yaml");
  EXPECT_EQ(r.options->socket_path, kDefaultControlSocket);
  EXPECT_EQ(r.options->metrics, (ListenAddress{"127.0.0.1", 9790}));
  EXPECT_EQ(r.options->log_file, "");
  EXPECT_EQ(r.options->log_level, "info");
}

TEST(DaemonOptions, EveryOption) {
  const auto r = parse({"--config", "/tmp/x.yaml", "--socket", "/tmp/s.sock", "--metrics",
                        "[::1]:9100", "--log-file", "/tmp/d.log", "--log-level", "debug"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(r.options->config_path, "/tmp/x.yaml");
  EXPECT_EQ(r.options->socket_path, "/tmp/s.sock");
  EXPECT_EQ(r.options->metrics, (ListenAddress{"::1", 9100}));
  EXPECT_EQ(r.options->log_file, "/tmp/d.log");
  EXPECT_EQ(r.options->log_level, "debug");
}

TEST(DaemonOptions, BadMetricsAddressIsAUsageErrorNamingTheOption) {
  const auto r = parse({"--metrics", "localhost"});
  EXPECT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "--metrics: \"localhost\": no port; expected ADDR:PORT, e.g. 127.0.0.1:9790 or "
            "[::1]:9790\n");
}

TEST(DaemonOptions, OtherUsageErrors) {
  for (const auto& args : std::vector<std::vector<const char*>>{
           {"--log-level", "loud"}, {"--bogus"}, {"--config"}, {"extra"}, {"--config", ""}}) {
    const auto r = parse(args);
    EXPECT_FALSE(r.options) << args[0];
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_FALSE(r.err.empty()) << args[0];
  }
}

TEST(DaemonOptions, AMistypedOptionGetsTheNearestName) {
  auto r = parse({"--confg", "/tmp/x.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "--confg: no such option; did you mean --config? (--help lists them)\n");
  r = parse({"--log-levl=debug"});
  EXPECT_EQ(r.err, "--log-levl: no such option; did you mean --log-level? (--help lists them)\n");
  r = parse({"--zzzzzz"});
  EXPECT_EQ(r.err, "--zzzzzz: no such option (--help lists them)\n");
}

TEST(DaemonOptions, VersionNamesTheBuild) {
  const auto r = parse({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.options);
  EXPECT_EQ(r.out.rfind("rocelb 0.1.0 (", 0), 0u) << r.out;
}

TEST(DaemonOptions, HelpExitsZeroOnStdout) {
  const auto r = parse({"--help"});
  EXPECT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--metrics"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/etc/rocelb/rocelb.yaml"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rocelb
