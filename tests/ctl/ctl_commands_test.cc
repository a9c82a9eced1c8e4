// rocelbctl's command runner (tools/ctl/ctl_commands.h) in-process: usage
// errors, the socket choice and the exit-code mapping. The refusal cases use
// a tiny fake switch (a Unix socket thread answering canned replies), or the
// real control server when the transport is the point; the real switch is
// exercised end to end in tests/integration/ctl_cli_test.cc.
#include "tools/ctl/ctl_commands.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "control/control_client.h"
#include "control/control_server.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct CtlRun {
  int code = -1;
  std::string out, err;
};

CtlRun ctl(const std::vector<std::string>& args, const std::string& env_socket = "") {
  std::ostringstream out, err;
  CtlRun r;
  r.code = run_ctl(args, CtlContext{out, err, false, env_socket});
  r.out = out.str();
  r.err = err.str();
  return r;
}

class ScratchDir {
 public:
  ScratchDir() {
    path_ = fs::temp_directory_path() /
            ("rocelbctl-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Listens on `path`, serves one connection: each request line gets
// answer(request) back with the request's id. Stops after the connection.
class FakeSwitch {
 public:
  FakeSwitch(const std::string& path, std::function<json(const json&)> answer)
      : answer_(std::move(answer)) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << strerror(errno);
    EXPECT_EQ(::listen(fd_, 1), 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeSwitch() {
    thread_.join();
    ::close(fd_);
  }
  std::vector<json> requests;

 private:
  void serve() {
    const int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    std::string buf;
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::recv(c, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      buf.append(chunk, static_cast<size_t>(n));
      for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
        const json req = json::parse(buf.substr(0, nl));
        buf.erase(0, nl + 1);
        requests.push_back(req);
        json reply = answer_(req);
        reply["id"] = req["id"];
        const std::string line = reply.dump() + "\n";
        if (::send(c, line.data(), line.size(), MSG_NOSIGNAL) < 0) break;
      }
    }
    ::close(c);
  }

  int fd_ = -1;
  std::function<json(const json&)> answer_;
  std::thread thread_;
};

TEST(CtlCommands, UsageErrorsExit2) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"show"},
                                               {"show", "bogus"},
                                               {"set", "groups.uplinks.mode"},
                                               {"clear"},
                                               {"clear", "everything"},
                                               {"config"},
                                               {"config", "apply"},
                                               {"watch", "--interval", "0"},
                                               {"watch", "--count", "-1"},
                                               {"frobnicate"},
                                               {"show", "ports", "--bogus"}}) {
    const CtlRun r = ctl(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.code, kCtlExitUsage) << joined << r.err;
    EXPECT_FALSE(r.err.empty()) << joined;
    EXPECT_TRUE(r.out.empty()) << joined << r.out;
  }
}

TEST(CtlCommands, AMistypedNameGetsTheNearestOne) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"sho", "counters"}, "rocelbctl: sho: no such command; did you mean show?"},
      {{"--socket", "/x", "conifg", "apply", "f"},
       "rocelbctl: conifg: no such command; did you mean config?"},
      {{"frobnicate"}, "rocelbctl: frobnicate: no such command (rocelbctl --help)"},
      {{"show", "countrs"}, "countrs: no such target; did you mean counters?"},
      {{"--sockt", "/x", "show", "ports"},
       "rocelbctl: --sockt: no such option; did you mean --socket?"},
  };
  for (const auto& [args, want] : cases) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.code, kCtlExitUsage) << args[0];
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  }
}

TEST(CtlCommands, VersionExits0) {
  const CtlRun r = ctl({"--version"});
  EXPECT_EQ(r.code, kCtlExitOk);
  EXPECT_EQ(r.out.rfind("rocelb 0.1.0 (", 0), 0u) << r.out;
}

TEST(CtlCommands, HelpExits0) {
  const CtlRun r = ctl({"--help"});
  EXPECT_EQ(r.code, kCtlExitOk);
  EXPECT_NE(r.out.find("watch"), std::string::npos) << r.out;
}

TEST(CtlCommands, UnreadableConfigFileIsAUsageErrorNamingIt) {
  ScratchDir dir;
  const CtlRun missing = ctl({"--socket", dir / "sock", "config", "apply", dir / "nope.yaml"});
  EXPECT_EQ(missing.code, kCtlExitUsage);
  EXPECT_EQ(missing.err,
            "rocelbctl: config apply " + (dir / "nope.yaml") + ": No such file or directory\n");
  const CtlRun directory = ctl({"config", "apply", dir / ""});
  EXPECT_EQ(directory.code, kCtlExitUsage);
  EXPECT_NE(directory.err.find("not a regular file (a directory)"), std::string::npos)
      << directory.err;
}

TEST(CtlCommands, CannotConnectExits3NamingTheSocket) {
  ScratchDir dir;
  const std::string sock = dir / "rocelb.sock";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--socket", sock, "show", "ports"},
        {"show", "groups", "--json", "--socket", sock},
        {"--socket", sock, "set", "groups.uplinks.mode", "drill"},
        {"--socket", sock, "clear", "counters"},
        {"--socket", sock, "watch", "--count", "1"}}) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.code, kCtlExitCannotConnect) << r.err;
    EXPECT_EQ(r.err, "rocelbctl: cannot connect to the switch at " + sock +
                         ": No such file or directory\n");
  }
}

TEST(CtlCommands, SocketComesFromTheFlagThenTheEnvironmentThenTheDefault) {
  ScratchDir dir;
  const CtlRun from_env = ctl({"show", "ports"}, dir / "env.sock");
  EXPECT_NE(from_env.err.find(dir / "env.sock"), std::string::npos) << from_env.err;
  const CtlRun from_flag = ctl({"--socket", dir / "flag.sock", "show", "ports"}, dir / "env.sock");
  EXPECT_NE(from_flag.err.find(dir / "flag.sock"), std::string::npos) << from_flag.err;
  EXPECT_EQ(from_flag.err.find("env.sock"), std::string::npos) << from_flag.err;
  const CtlRun fallback = ctl({"show", "ports"});
  EXPECT_NE(fallback.err.find(std::string("at ") + kDefaultControlSocket + ": "), std::string::npos)
      << fallback.err;
}

TEST(CtlCommands, RefusedByTheSwitchExits1WithItsError) {
  ScratchDir dir;
  const std::string sock = dir / "rocelb.sock";
  const std::string why =
      "--set qos.wred.3.green_min_threshold=\"2MB\": qos.wred.3: green_min_threshold (2000000) "
      "must be below green_max_threshold (1500000)";
  CtlRun r;
  {
    FakeSwitch sw(sock, [&](const json&) { return json{{"ok", false}, {"error", why}}; });
    r = ctl({"--socket", sock, "set", "qos.wred.3.green_min_threshold", "2MB"});
    ASSERT_EQ(sw.requests.size(), 1u);
    EXPECT_EQ(sw.requests[0]["verb"], "set");
    EXPECT_EQ(sw.requests[0]["key"], "qos.wred.3.green_min_threshold");
    EXPECT_EQ(sw.requests[0]["value"], "2MB");
  }
  EXPECT_EQ(r.code, kCtlExitRefused);
  EXPECT_EQ(r.err, "rocelbctl: " + why + "\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// A value (or a config file) that is not UTF-8 cannot be JSON: it is
// refused before anything is sent, not sent with U+FFFD in its place, which
// the switch would apply as a value the user never wrote.
TEST(CtlCommands, TextThatIsNotUtf8IsNotSent) {
  ScratchDir dir;
  const std::string sock = dir / "rocelb.sock";
  int answered = 0;
  CtlRun r;
  {
    FakeSwitch sw(sock, [&](const json&) {
      ++answered;
      return json{{"ok", true}, {"result", json::object()}};
    });
    r = ctl({"--socket", sock, "set", "ports[0].device", "net_tap0,iface=rl\xfe"});
  }
  EXPECT_EQ(answered, 0);
  EXPECT_EQ(r.code, kCtlExitRefused);
  EXPECT_NE(r.err.find("rocelbctl: not sent: the request has text that is not UTF-8 (invalid UTF-8 "
                       "byte at index "),
            std::string::npos)
      << r.err;
}

// The real server with room for one client, which another holds: the
// switch's refusal, not "Broken pipe".
TEST(CtlCommands, TurnedAwayByAFullSwitchExits1WithItsReason) {
  ScratchDir dir;
  ControlServerOptions opt;
  opt.path = dir / "rocelb.sock";
  opt.max_clients = 1;
  ControlServer server(opt, [](const ParsedRequest& r, const ControlPeer&) {
    return reply_ok(r.id, json::object());
  });
  std::atomic<bool> running{true};
  std::thread loop([&] {
    while (running) server.poll(10);
  });
  ControlClient holder(opt.path);
  const bool held = holder.show("ports").ok;
  std::vector<CtlRun> runs;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--socket", opt.path, "show", "ports"},
        {"--socket", opt.path, "set", "groups.uplinks.mode", "drill"},
        {"--socket", opt.path, "watch", "--count", "1"}})
    runs.push_back(ctl(args));
  running = false;
  loop.join();
  ASSERT_TRUE(held);
  for (const CtlRun& r : runs) {
    EXPECT_EQ(r.code, kCtlExitRefused) << r.err;
    EXPECT_EQ(r.err, "rocelbctl: the switch at " + opt.path +
                         " refused this client: too many clients (control.max_clients is 1)\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CtlCommands, AResultNotAsDocumentedExits1) {
  ScratchDir dir;
  const std::string sock = dir / "rocelb.sock";
  CtlRun r;
  {
    FakeSwitch sw(sock, [](const json&) { return json{{"ok", true}, {"result", {{"x", 1}}}}; });
    r = ctl({"--socket", sock, "show", "ports"});
  }
  EXPECT_EQ(r.code, kCtlExitRefused);
  EXPECT_EQ(r.err.rfind("rocelbctl: show ports: the switch's result is not as documented: ", 0), 0u)
      << r.err;
}

TEST(CtlCommands, SetValueIsJsonWhenItParsesElseAString) {
  EXPECT_EQ(parse_set_value("drill"), json("drill"));
  EXPECT_EQ(parse_set_value("100KB"), json("100KB"));
  EXPECT_EQ(parse_set_value("1.5MB"), json("1.5MB"));
  EXPECT_EQ(parse_set_value("100"), json(100));
  EXPECT_EQ(parse_set_value("-2"), json(-2));
  EXPECT_EQ(parse_set_value("0.25"), json(0.25));
  EXPECT_EQ(parse_set_value("true"), json(true));
  EXPECT_EQ(parse_set_value("[3,4]"), json::array({3, 4}));
  EXPECT_EQ(parse_set_value("[]"), json::array());
  EXPECT_EQ(parse_set_value(R"({"d":2,"m":1})"), json({{"d", 2}, {"m", 1}}));
  EXPECT_EQ(parse_set_value(R"("quoted")"), json("quoted"));
  EXPECT_EQ(parse_set_value("[3,"), json("[3,"));
  EXPECT_EQ(parse_set_value(""), json(""));
}

TEST(CtlCommands, NegativeSetValueIsAValueNotAnOption) {
  ScratchDir dir;
  const CtlRun r = ctl({"--socket", dir / "sock", "set", "qos.pfc.dynamic_th", "-2"});
  EXPECT_EQ(r.code, kCtlExitCannotConnect) << r.err;  // parsed, then no switch
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// --fabric: one request per switch of an explicit-form fabric, each
// switch's socket from its config; an unreachable switch is reported and
// the others still answer; the exit code is the worst.
TEST(CtlCommands, FabricSendsToEverySwitchOfTheFile) {
  ScratchDir dir;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
  };
  write("fabric.yaml",
        "switches:\n  leaf0: leaf0.yaml\n  spine0: spine0.yaml\n  gone: gone.yaml\n");
  write("leaf0.yaml", "control: {socket: " + (dir / "leaf0.sock") + "}\n");
  write("spine0.yaml", "control: {socket: " + (dir / "spine0.sock") + "}\n");
  write("gone.yaml", "control: {socket: " + (dir / "gone.sock") + "}\n");
  auto answer = [](const std::string& who) {
    return [who](const json& req) {
      return json{{"ok", true}, {"result", {{"switch", who}, {"what", req["what"]}}}};
    };
  };
  CtlRun r;
  {
    FakeSwitch leaf(dir / "leaf0.sock", answer("leaf0"));
    FakeSwitch spine(dir / "spine0.sock", answer("spine0"));
    r = ctl({"--fabric", dir / "fabric.yaml", "show", "counters", "--json"});
  }
  EXPECT_EQ(r.code, kCtlExitCannotConnect) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["leaf0"]["switch"], "leaf0");
  EXPECT_EQ(j["spine0"]["switch"], "spine0");
  EXPECT_EQ(j["spine0"]["what"], "counters");
  EXPECT_FALSE(j.contains("gone"));
  EXPECT_NE(r.err.find("(switch gone)"), std::string::npos) << r.err;

  EXPECT_EQ(ctl({"--fabric", dir / "leaf0.yaml", "show", "ports"}).code, kCtlExitUsage);
  const CtlRun both = ctl({"--fabric", dir / "fabric.yaml", "--socket", "x", "show", "ports"});
  EXPECT_EQ(both.code, kCtlExitUsage) << both.err;
  EXPECT_EQ(ctl({"--fabric", dir / "fabric.yaml", "watch"}).code, kCtlExitUsage);
}

}  // namespace
}  // namespace rocelb
