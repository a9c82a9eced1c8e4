// The control socket's transport: requests in, replies out, bad requests
// answered without losing the connection, stalled and surplus clients
// dropped, and peers that are not permitted refused before a request is read.
#include "control/control_server.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace rocelb {
namespace {

namespace fs = std::filesystem;
constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

void send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    ASSERT_GT(n, 0) << std::strerror(errno);
    off += static_cast<size_t>(n);
  }
}

// One line from fd ("" on EOF or after timeout_ms).
std::string read_line(int fd, int timeout_ms = 5000) {
  std::string line;
  char c;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return line;
    if (::recv(fd, &c, 1, 0) != 1) return line;
    if (c == '\n') return line;
    line += c;
  }
}

bool closed_by_peer(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return false;
  char c;
  const ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-cs-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::chmod(dir_.c_str(), 0755);
    opt_.path = (dir_ / "rocelb.sock").string();
  }
  void TearDown() override {
    stop();
    fs::remove_all(dir_);
  }
  void start() {
    server_ = std::make_unique<ControlServer>(
        opt_, [this](const ParsedRequest& r, const ControlPeer& peer) {
          ++handled_;
          last_uid_ = peer.uid;
          nlohmann::json res;
          res["verb"] = std::string(control_verb_name(r.verb));
          res["what"] = r.what;
          return reply_ok(r.id, res);
        });
    running_ = true;
    thread_ = std::thread([this] {
      while (running_) server_->poll(10);
    });
  }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }
  // Runs fn in a child process with the given ids; returns its exit code.
  template <typename Fn>
  int as_user(uid_t uid, gid_t gid, Fn fn) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setgroups(0, nullptr);
      if (::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(100);
      ::_exit(fn());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
  }

  fs::path dir_;
  ControlServerOptions opt_;
  std::unique_ptr<ControlServer> server_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<int> handled_{0};
  std::atomic<uid_t> last_uid_{9999};
};

TEST_F(ControlServerTest, SocketIs0660AndRemovedOnStop) {
  start();
  struct stat st {};
  ASSERT_EQ(::stat(opt_.path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(st.st_gid, getegid());
  stop();
  EXPECT_FALSE(fs::exists(opt_.path));
}

TEST_F(ControlServerTest, CreatesTheParentDirectory) {
  opt_.path = (dir_ / "run" / "rocelb" / "s.sock").string();
  start();
  EXPECT_TRUE(fs::exists(opt_.path));
}

TEST_F(ControlServerTest, AnswersRequestsInOrderWithTheirIds) {
  start();
  const int fd = connect_to(opt_.path);
  ASSERT_GE(fd, 0);
  send_all(fd, R"({"id":1,"verb":"show","what":"ports"})"
               "\n"
               R"({"id":"b","verb":"clear","what":"counters"})"
               "\n");
  EXPECT_EQ(read_line(fd), R"({"id":1,"ok":true,"result":{"verb":"show","what":"ports"}})");
  EXPECT_EQ(read_line(fd), R"({"id":"b","ok":true,"result":{"verb":"clear","what":"counters"}})");
  EXPECT_EQ(last_uid_.load(), getuid());
  ::close(fd);
}

TEST_F(ControlServerTest, BadRequestsGetAnErrorAndTheConnectionStays) {
  start();
  const int fd = connect_to(opt_.path);
  ASSERT_GE(fd, 0);
  const std::pair<std::string, std::string> cases[] = {
      {"{not json", "malformed JSON"},
      {R"({"verb":"reboot"})", "unknown verb \"reboot\""},
      {R"({"verb":"show","what":7})", "\"what\" must be a string, got number"},
      {R"({"verb":"set","key":"a.b"})", "set: missing \"value\""},
      {"[1,2]", "request must be a JSON object"},
  };
  for (const auto& [req, want] : cases) {
    send_all(fd, req + "\n");
    const auto reply = nlohmann::json::parse(read_line(fd));
    EXPECT_EQ(reply["ok"], false) << req;
    EXPECT_NE(reply["error"].get<std::string>().find(want), std::string::npos)
        << req << " -> " << reply;
  }
  EXPECT_EQ(handled_.load(), 0);
  send_all(fd, R"({"verb":"show","what":"pfc"})"
               "\n");
  EXPECT_NE(read_line(fd).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->stats().bad_requests, 5u);
  ::close(fd);
}

TEST_F(ControlServerTest, OversizeRequestIsSkippedToItsEnd) {
  start();
  const int fd = connect_to(opt_.path);
  ASSERT_GE(fd, 0);
  std::string big = R"({"verb":"set","key":"x","value":")" + std::string(200'000, 'a') + "\"}\n";
  send_all(fd, big + R"({"id":2,"verb":"show","what":"queues"})"
                     "\n");
  const std::string first = read_line(fd);
  EXPECT_NE(first.find("request larger than 65536 bytes"), std::string::npos) << first;
  EXPECT_EQ(read_line(fd), R"({"id":2,"ok":true,"result":{"verb":"show","what":"queues"}})");
  EXPECT_EQ(handled_.load(), 1);
  ::close(fd);
}

TEST_F(ControlServerTest, HalfClosedClientStillGetsItsReply) {
  start();
  const int fd = connect_to(opt_.path);
  ASSERT_GE(fd, 0);
  send_all(fd, R"({"verb":"show","what":"groups"})"
               "\n");
  ::shutdown(fd, SHUT_WR);
  EXPECT_NE(read_line(fd).find("\"what\":\"groups\""), std::string::npos);
  EXPECT_TRUE(closed_by_peer(fd, 2000));
  ::close(fd);
}

TEST_F(ControlServerTest, StalledClientIsDroppedIdleOneStays) {
  opt_.client_timeout_ns = 200'000'000;
  start();
  const int stalled = connect_to(opt_.path);
  const int idle = connect_to(opt_.path);
  ASSERT_GE(stalled, 0);
  ASSERT_GE(idle, 0);
  send_all(stalled, R"({"verb":"show",)");  // and nothing more
  EXPECT_TRUE(closed_by_peer(stalled, 3000));
  // The idle one is still served.
  send_all(idle, R"({"verb":"show","what":"ecn"})"
                 "\n");
  EXPECT_NE(read_line(idle).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->stats().timeouts, 1u);
  ::close(stalled);
  ::close(idle);
}

TEST_F(ControlServerTest, ClientsBeyondTheLimitAreRefused) {
  opt_.max_clients = 2;
  start();
  const int a = connect_to(opt_.path), b = connect_to(opt_.path);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  send_all(a, R"({"verb":"show","what":"ports"})"
              "\n");
  send_all(b, R"({"verb":"show","what":"ports"})"
              "\n");
  read_line(a);
  read_line(b);  // both accepted by now
  const int c = connect_to(opt_.path);
  ASSERT_GE(c, 0);
  EXPECT_NE(read_line(c).find("too many clients (control.max_clients is 2)"), std::string::npos);
  EXPECT_TRUE(closed_by_peer(c, 2000));
  ::close(a);
  ::close(c);
  // One left: a new client fits again.
  for (int i = 0; i < 100 && server_->clients() > 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int d = connect_to(opt_.path);
  send_all(d, R"({"verb":"show","what":"pfc"})"
              "\n");
  EXPECT_NE(read_line(d).find("\"ok\":true"), std::string::npos);
  ::close(b);
  ::close(d);
}

TEST_F(ControlServerTest, NobodyCannotOpenTheSocket) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as nobody";
  start();
  const std::string path = opt_.path;
  // 0660 root:root: the kernel refuses the connection itself.
  EXPECT_EQ(
      as_user(kNobody, kNogroup, [&] { return connect_to(path) < 0 && errno == EACCES ? 0 : 1; }),
      0);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(ControlServerTest, PeerNotPermittedIsRefusedBeforeItsRequestIsRead) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as nobody";
  start();
  ::chmod(opt_.path.c_str(), 0666);  // as if someone loosened the mode: SO_PEERCRED still holds
  const std::string path = opt_.path;
  const int rc = as_user(kNobody, kNogroup, [&] {
    const int fd = connect_to(path);
    if (fd < 0) return 2;
    const std::string req = R"({"verb":"set","key":"qos.pfc_enable","value":[]})"
                            "\n";
    [[maybe_unused]] ssize_t n = ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    const std::string reply = read_line(fd);
    if (reply.find("permission denied: uid 65534 is not root and not in the control "
                   "socket's group") == std::string::npos)
      return 3;
    return closed_by_peer(fd, 2000) ? 0 : 4;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(handled_.load(), 0);
  EXPECT_EQ(server_->stats().refused_peer, 1u);
}

TEST_F(ControlServerTest, MembersOfTheSocketGroupAreServed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as nobody";
  opt_.group = "nogroup";
  start();
  struct stat st {};
  ASSERT_EQ(::stat(opt_.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, kNogroup);
  const std::string path = opt_.path;
  const int rc = as_user(kNobody, kNogroup, [&] {
    const int fd = connect_to(path);
    if (fd < 0) return 2;
    const std::string req = R"({"verb":"show","what":"ports"})"
                            "\n";
    [[maybe_unused]] ssize_t n = ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    return read_line(fd).find("\"ok\":true") != std::string::npos ? 0 : 3;
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(last_uid_.load(), kNobody);
}

TEST_F(ControlServerTest, StaleSocketIsReplacedLiveOneAndOtherFilesAreNot) {
  start();
  // A second server on the same path while the first listens: refused.
  try {
    ControlServer second(opt_, [](const ParsedRequest&, const ControlPeer&) { return ""; });
    FAIL() << "a second server took a live socket";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("another process is serving it"), std::string::npos)
        << e.what();
  }
  stop();
  // A stale socket file (bound, nobody listening) is replaced.
  {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, opt_.path.data(), opt_.path.size());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ::close(fd);
  }
  ASSERT_TRUE(fs::exists(opt_.path));
  EXPECT_NO_THROW(start());
  stop();
  // A regular file is never removed.
  std::ofstream(opt_.path) << "precious";
  try {
    ControlServer s(opt_, [](const ParsedRequest&, const ControlPeer&) { return ""; });
    FAIL() << "a regular file was replaced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("exists and is not a socket"), std::string::npos);
  }
  EXPECT_TRUE(fs::is_regular_file(opt_.path));
}

TEST_F(ControlServerTest, UnknownGroupIsAnError) {
  opt_.group = "no-such-group-rocelb";
  try {
    ControlServer s(opt_, [](const ParsedRequest&, const ControlPeer&) { return ""; });
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "control.group: no group named \"no-such-group-rocelb\"");
  }
}

}  // namespace
}  // namespace rocelb
