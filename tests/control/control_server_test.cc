// The control socket's transport: requests in, replies out, bad requests
// answered without losing the connection, stalled, idle and surplus clients
// dropped (one uid never takes every slot), what is queued for a client that
// never reads bounded, and peers that are not permitted refused before a
// request is read. Also ControlClient against it: refusals and idle closes.
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
#include <mutex>
#include <thread>

#include "control/config_loader.h"
#include "control/control_client.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// Connects to the socket at `path`; -1 with errno on failure. Allocates
// nothing, so a forked child of this threaded test may call it.
int connect_path(const char* path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path, std::strlen(path));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int connect_to(const std::string& path) {
  return connect_path(path.c_str());
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

// Whether the next line from fd contains `needle`. Allocates nothing: a
// forked child calls it (another thread may have held the allocator's lock
// at the fork, and a child that allocates would wait on it forever).
bool line_has(int fd, const char* needle, int timeout_ms = 5000) {
  char line[4096];
  size_t len = 0;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) break;
    char c;
    if (::recv(fd, &c, 1, 0) != 1 || c == '\n') break;
    if (len + 1 < sizeof(line)) line[len++] = c;
  }
  line[len] = '\0';
  return std::strstr(line, needle) != nullptr;
}

// What a child sends: a request line and its length.
constexpr char kShowPorts[] = R"({"verb":"show","what":"ports"})"
                              "\n";
constexpr char kSetPfcEnable[] = R"({"verb":"set","key":"qos.pfc_enable","value":[]})"
                                 "\n";

// Sends `req` on a new connection to `path` and reads one line: 0 when it
// holds `expect`, 2 when the connection failed, 3 otherwise. Allocates nothing.
int child_request(const char* path, const char* req, const char* expect) {
  const int fd = connect_path(path);
  if (fd < 0) return 2;
  [[maybe_unused]] ssize_t n = ::send(fd, req, std::strlen(req), MSG_NOSIGNAL);
  return line_has(fd, expect) ? 0 : 3;
}

// Sends as much of `s` as the peer takes, never reading, until all is sent or
// nothing moves for 300 ms (the server stopped reading). Returns bytes sent.
size_t push_without_reading(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) break;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 300) <= 0) break;
  }
  return off;
}

// `count` pipelined requests for the big reply.
std::string pipelined_metrics(int count) {
  std::string s;
  for (int i = 0; i < count; ++i)
    s += R"({"verb":"show","what":"metrics"})"
         "\n";
  return s;
}

// Polls `done` every 10 ms for up to timeout_ms.
template <typename Pred>
bool eventually(Pred done, int timeout_ms = 3000) {
  for (int i = 0; i < timeout_ms / 10; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

constexpr size_t kBigReply = 20'000;  // "show metrics" here: a reply this big

// `o` with one control.* key changed (durations in ms).
ControlServerOptions set_control(ControlServerOptions o, const std::string& key,
                                 const nlohmann::json& v) {
  if (key == "max_clients") o.max_clients = v.get<uint32_t>();
  if (key == "max_clients_per_uid") o.max_clients_per_uid = v.get<uint32_t>();
  if (key == "idle_timeout") o.idle_timeout_ns = v.get<uint64_t>() * 1'000'000;
  if (key == "client_timeout") o.client_timeout_ns = v.get<uint64_t>() * 1'000'000;
  if (key == "group") o.group = v.get<std::string>();
  if (key == "socket") o.path = v.get<std::string>();
  return o;
}

std::string set_request(const std::string& key, const std::string& value_json) {
  return R"({"verb":"set","key":"control.)" + key + R"(","value":)" + value_json + "}\n";
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
          {
            std::lock_guard lock(peer_mu_);
            last_groups_ = peer.groups;
          }
          // `set control.K V`: the server adopts it, as rocelb-dp's service does.
          if (r.verb == ControlVerb::kSet && r.key.rfind("control.", 0) == 0) {
            try {
              server_->reconfigure(set_control(server_->options(), r.key.substr(8), r.value));
            } catch (const std::exception& e) {
              return reply_error(r.id, e.what());
            }
          }
          nlohmann::json res;
          res["verb"] = std::string(control_verb_name(r.verb));
          res["what"] = r.what;
          if (r.what == "metrics") res["text"] = std::string(kBigReply, 'm');
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
  // Waits until the server handles no more requests (300 ms without one).
  void settle() {
    uint64_t seen = server_->stats().requests;
    for (int quiet = 0, i = 0; quiet < 30 && i < 500; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const uint64_t now = server_->stats().requests;
      quiet = now == seen ? quiet + 1 : 0;
      seen = now;
    }
  }
  // Runs fn in a child process with the given ids; returns its exit code,
  // 200 when it did not exit, 201 when it had not exited after 20 s (it is
  // killed). fn must not allocate: the server thread may hold the
  // allocator's lock at the fork.
  template <typename Fn>
  int as_user(uid_t uid, gid_t gid, Fn fn) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setgroups(0, nullptr);
      if (::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(100);
      ::_exit(fn());
    }
    return wait_child(pid);
  }
  static int wait_child(pid_t pid) {
    int status = 0;
    for (int i = 0; i < 2000; ++i) {
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
      if (r < 0) return 200;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return 201;
  }

  fs::path dir_;
  ControlServerOptions opt_;
  std::unique_ptr<ControlServer> server_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<int> handled_{0};
  std::atomic<uid_t> last_uid_{9999};
  std::mutex peer_mu_;
  std::vector<gid_t> last_groups_;  // of the last request's peer
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
  const std::string last = read_line(stalled, 3000);
  EXPECT_NE(last.find("closed: no whole request within 200ms (control.client_timeout)"),
            std::string::npos)
      << last;
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
  opt_.max_clients_per_uid = 2;  // both of this test's clients are one uid
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
  const std::string refusal = read_line(c);
  EXPECT_NE(refusal.find("too many clients (control.max_clients is 2)"), std::string::npos);
  EXPECT_NE(refusal.find("\"closed\":true"), std::string::npos) << refusal;
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

TEST_F(ControlServerTest, IdleClientIsClosedAfterTheIdleTimeoutBusyOneStays) {
  opt_.idle_timeout_ns = 300'000'000;
  start();
  const int idle = connect_to(opt_.path);
  const int busy = connect_to(opt_.path);
  ASSERT_GE(idle, 0);
  ASSERT_GE(busy, 0);
  // Requests every 100 ms keep `busy` open well past the idle timeout.
  for (int i = 0; i < 8; ++i) {
    send_all(busy, R"({"verb":"show","what":"ports"})"
                   "\n");
    EXPECT_NE(read_line(busy).find("\"ok\":true"), std::string::npos) << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // `idle` sent nothing: it gets the reason, then the end of the connection.
  const std::string last = read_line(idle, 3000);
  EXPECT_NE(last.find("control.idle_timeout"), std::string::npos) << last;
  EXPECT_NE(last.find("\"closed\":true"), std::string::npos) << last;
  EXPECT_TRUE(closed_by_peer(idle, 2000));
  EXPECT_EQ(server_->stats().idle_closed, 1u);
  EXPECT_EQ(server_->stats().timeouts, 0u);
  ::close(idle);
  ::close(busy);
}

TEST_F(ControlServerTest, OneUidCannotTakeEverySlot) {
  opt_.max_clients = 3;  // max_clients_per_uid unset: 2 for one uid
  opt_.group = geteuid() == 0 ? "nogroup" : "";
  start();
  const int a = connect_to(opt_.path), b = connect_to(opt_.path);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  for (int fd : {a, b}) {
    send_all(fd, R"({"verb":"show","what":"ports"})"
                 "\n");
    EXPECT_NE(read_line(fd).find("\"ok\":true"), std::string::npos);
  }
  // A third connection of the same uid is refused, though a slot is free...
  const int c = connect_to(opt_.path);
  ASSERT_GE(c, 0);
  const std::string refusal = read_line(c);
  EXPECT_NE(refusal.find("too many clients of uid " + std::to_string(geteuid()) +
                         " (control.max_clients_per_uid is 2)"),
            std::string::npos)
      << refusal;
  EXPECT_TRUE(closed_by_peer(c, 2000));
  EXPECT_EQ(server_->stats().refused_uid, 1u);
  EXPECT_EQ(server_->stats().refused_full, 0u);
  ::close(c);
  // ... which someone else gets.
  if (geteuid() == 0) {
    const char* path = opt_.path.c_str();
    const int rc =
        as_user(kNobody, kNogroup, [&] { return child_request(path, kShowPorts, "\"ok\":true"); });
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(last_uid_.load(), kNobody);
  }
  ::close(a);
  ::close(b);
}

TEST_F(ControlServerTest, ClientThatNeverReadsHoldsAtMostOneReplyOthersAreServed) {
  opt_.client_timeout_ns = 1'000'000'000;
  start();
  const int hog = connect_to(opt_.path);
  ASSERT_GE(hog, 0);
  // Thousands of requests, each for a 20 kB reply, never read.
  std::thread pusher([&] { push_without_reading(hog, pipelined_metrics(4000)); });
  const int good = connect_to(opt_.path);
  ASSERT_GE(good, 0);
  for (int i = 0; i < 20; ++i) {
    send_all(good, R"({"verb":"show","what":"ports"})"
                   "\n");
    EXPECT_NE(read_line(good, 1000).find("\"ok\":true"), std::string::npos) << i;
  }
  pusher.join();
  settle();
  // The kernel holds what fits in the socket; the server itself one reply.
  EXPECT_LE(server_->peak_queued_bytes(), kBigReply + 1000);
  // Never read: dropped at client_timeout, and what it held is freed.
  EXPECT_TRUE(eventually([&] { return server_->stats().timeouts == 1; }));
  EXPECT_TRUE(eventually([&] { return server_->queued_bytes() == 0; }));
  send_all(good, R"({"verb":"show","what":"ports"})"
                 "\n");
  EXPECT_NE(read_line(good).find("\"ok\":true"), std::string::npos);
  ::close(hog);
  ::close(good);
}

TEST_F(ControlServerTest, RepliesQueuedForAllClientsAreBounded) {
  opt_.client_timeout_ns = 2'000'000'000;
  opt_.max_queued_bytes = 50'000;  // two and a half replies
  start();
  std::vector<int> hogs;
  std::vector<std::thread> pushers;
  for (int i = 0; i < 4; ++i) {
    hogs.push_back(connect_to(opt_.path));
    ASSERT_GE(hogs.back(), 0);
    pushers.emplace_back([fd = hogs.back()] { push_without_reading(fd, pipelined_metrics(2000)); });
  }
  for (auto& t : pushers) t.join();
  settle();
  // Over the bound, requests wait: the total stays within one reply of it.
  EXPECT_LE(server_->peak_queued_bytes(), opt_.max_queued_bytes + kBigReply + 1000);
  // A client that reads waits too while the hogs hold the bound...
  const int good = connect_to(opt_.path);
  ASSERT_GE(good, 0);
  send_all(good, R"({"verb":"show","what":"ports"})"
                 "\n");
  EXPECT_EQ(read_line(good, 300), "");
  EXPECT_EQ(server_->stats().timeouts, 0u);
  // ... and is served once they are dropped at client_timeout.
  EXPECT_NE(read_line(good, 8000).find("\"ok\":true"), std::string::npos);
  EXPECT_GE(server_->stats().timeouts, 1u);
  for (int fd : hogs) ::close(fd);
  ::close(good);
}

TEST_F(ControlServerTest, ClientGetsTheRefusalNotABrokenPipe) {
  opt_.max_clients = 1;
  start();
  const int holder = connect_to(opt_.path);
  ASSERT_GE(holder, 0);
  send_all(holder, R"({"verb":"show","what":"ports"})"
                   "\n");
  ASSERT_NE(read_line(holder).find("\"ok\":true"), std::string::npos);
  // Refused before the request is sent (the send fails), and while it is
  // being sent (the refusal is waiting to be read).
  for (bool wait_for_refusal : {true, false}) {
    ControlClient client(opt_.path, std::chrono::seconds(3));
    const uint64_t refused = server_->stats().refused_full;
    client.connect();
    if (wait_for_refusal) {
      ASSERT_TRUE(eventually([&] { return server_->stats().refused_full > refused; }));
    }
    try {
      client.show("ports");
      ADD_FAILURE() << "served beyond max_clients";
    } catch (const ControlRefusedError& e) {
      EXPECT_EQ(e.reason(), "too many clients (control.max_clients is 1)");
      EXPECT_EQ(std::string(e.what()), opt_.path + ": " + e.reason());
    } catch (const ControlConnectError& e) {
      ADD_FAILURE() << "not the switch's refusal: " << e.what();
    }
  }
  ::close(holder);
}

TEST_F(ControlServerTest, ClientReconnectsWhenItsIdleConnectionWasClosed) {
  opt_.idle_timeout_ns = 200'000'000;
  start();
  ControlClient client(opt_.path, std::chrono::seconds(3));
  EXPECT_TRUE(client.show("ports").ok);
  ASSERT_TRUE(eventually([&] { return server_->stats().idle_closed == 1; }));
  const ControlReply r = client.show("pfc");  // on a fresh connection, unnoticed
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.result["what"], "pfc");
  EXPECT_EQ(server_->stats().accepted, 2u);
  // A write too: sent once, on a fresh connection, answered once.
  ASSERT_TRUE(eventually([&] { return server_->stats().idle_closed == 2; }));
  const int before = handled_.load();
  EXPECT_TRUE(client.clear_counters().ok);
  EXPECT_EQ(handled_.load(), before + 1);
}

// A kept connection that ends without the closing line: the switch stopped
// or restarted, which a caller such as rocelbd must hear of (it reapplies
// its config then), so no silent reconnection.
TEST_F(ControlServerTest, ClientReportsASwitchThatWentAway) {
  start();
  ControlClient client(opt_.path, std::chrono::seconds(3));
  EXPECT_TRUE(client.show("ports").ok);
  stop();
  start();
  try {
    client.show("ports");
    ADD_FAILURE() << "a restarted switch went unnoticed";
  } catch (const ControlRefusedError& e) {
    ADD_FAILURE() << "not a refusal: " << e.what();
  } catch (const ControlConnectError& e) {
    EXPECT_EQ(std::string(e.what()), opt_.path + ": the switch closed the connection");
  }
  EXPECT_TRUE(client.show("ports").ok);  // the next call connects to the new one
}

TEST_F(ControlServerTest, OptionsComeFromTheControlSection) {
  const ConfigParams p = load_config_text(
      "control: {socket: /tmp/o.sock, group: adm, max_clients: 8, max_clients_per_uid: 3,\n"
      "          client_timeout: 2s, idle_timeout: 45s}\n"
      "ports:\n  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\"}\n",
      "x.yaml");
  const ControlServerOptions o = control_server_options(p.control);
  EXPECT_EQ(o.path, "/tmp/o.sock");
  EXPECT_EQ(o.group, "adm");
  EXPECT_EQ(o.max_clients, 8u);
  EXPECT_EQ(o.max_clients_per_uid, 3u);
  EXPECT_EQ(o.client_timeout_ns, 2'000'000'000u);
  EXPECT_EQ(o.idle_timeout_ns, 45'000'000'000u);
}

TEST_F(ControlServerTest, NobodyCannotOpenTheSocket) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as nobody";
  start();
  const char* path = opt_.path.c_str();
  // 0660 root:root: the kernel refuses the connection itself.
  EXPECT_EQ(
      as_user(kNobody, kNogroup, [&] { return connect_path(path) < 0 && errno == EACCES ? 0 : 1; }),
      0);
  EXPECT_EQ(handled_.load(), 0);
}

TEST_F(ControlServerTest, PeerNotPermittedIsRefusedBeforeItsRequestIsRead) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run a client as nobody";
  start();
  ::chmod(opt_.path.c_str(), 0666);  // as if someone loosened the mode: SO_PEERCRED still holds
  const char* path = opt_.path.c_str();
  const int rc = as_user(kNobody, kNogroup, [&] {
    const int fd = connect_path(path);
    if (fd < 0) return 2;
    [[maybe_unused]] ssize_t n =
        ::send(fd, kSetPfcEnable, std::strlen(kSetPfcEnable), MSG_NOSIGNAL);
    if (!line_has(fd,
                  "permission denied: uid 65534 is not root and not in the control "
                  "socket's group"))
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
  const char* path = opt_.path.c_str();
  const int rc =
      as_user(kNobody, kNogroup, [&] { return child_request(path, kShowPorts, "\"ok\":true"); });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(last_uid_.load(), kNobody);
}

// A request is handled with the groups its peer connected with, even when
// the process that connected is gone by then (its pid may belong to another
// process with other groups): the kernel's record, never /proc/PID.
TEST_F(ControlServerTest, APeersGroupsAreThoseItConnectedWith) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a client other groups";
  start();
  const char* path = opt_.path.c_str();
  const pid_t pid = ::fork();
  if (pid == 0) {  // allocates nothing: see as_user
    const gid_t groups[] = {4242, 4343};
    if (::setgroups(2, groups) != 0) ::_exit(100);
    const int fd = connect_path(path);
    if (fd < 0) ::_exit(2);
    // Gone before its request is handled: the connection outlives it.
    const ssize_t len = ssize_t(std::strlen(kShowPorts));
    ::_exit(::send(fd, kShowPorts, size_t(len), MSG_NOSIGNAL) == len ? 0 : 3);
  }
  ASSERT_EQ(wait_child(pid), 0);
  settle();
  EXPECT_EQ(handled_.load(), 1);
  std::lock_guard lock(peer_mu_);
  EXPECT_EQ(last_groups_, (std::vector<gid_t>{4242, 4343}));
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

// ---- set control.* on a running server ---------------------------------------

// A lowered max_clients closes nobody (the one that asked is answered, the
// others go on) and refuses newcomers until the count is under it.
TEST_F(ControlServerTest, LoweredMaxClientsKeepsItsClientsAndRefusesNewOnes) {
  opt_.max_clients = 4;
  opt_.max_clients_per_uid = 4;
  start();
  int fd[3];
  for (int& f : fd) {
    f = connect_to(opt_.path);
    ASSERT_GE(f, 0);
    send_all(f, R"({"verb":"show","what":"ports"})"
                "\n");
    EXPECT_NE(read_line(f).find("\"ok\":true"), std::string::npos);
  }
  send_all(fd[0], set_request("max_clients_per_uid", "2") + set_request("max_clients", "2"));
  EXPECT_NE(read_line(fd[0]).find("\"ok\":true"), std::string::npos);
  EXPECT_NE(read_line(fd[0]).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->options().max_clients, 2u);
  for (int f : fd) {  // all three still served
    send_all(f, R"({"verb":"show","what":"queues"})"
                "\n");
    EXPECT_NE(read_line(f).find("\"ok\":true"), std::string::npos);
  }
  const int late = connect_to(opt_.path);
  ASSERT_GE(late, 0);
  EXPECT_NE(read_line(late).find("too many clients (control.max_clients is 2)"), std::string::npos);
  EXPECT_TRUE(closed_by_peer(late, 2000));
  ::close(late);
  EXPECT_EQ(server_->stats().refused_full, 1u);
  // Two leave: one is under the new limit, a newcomer fits.
  ::close(fd[1]);
  ::close(fd[2]);
  EXPECT_TRUE(eventually([&] { return server_->clients() == 1; }));
  const int next = connect_to(opt_.path);
  send_all(next, R"({"verb":"show","what":"pfc"})"
                 "\n");
  EXPECT_NE(read_line(next).find("\"ok\":true"), std::string::npos);
  ::close(next);
  ::close(fd[0]);
}

// A raised per-uid limit lets the same uid in again at once.
TEST_F(ControlServerTest, RaisedPerUidLimitAdmitsAtOnce) {
  opt_.max_clients = 3;  // one uid: 2
  start();
  const int a = connect_to(opt_.path), b = connect_to(opt_.path);
  for (int f : {a, b}) {
    send_all(f, R"({"verb":"show","what":"ports"})"
                "\n");
    EXPECT_NE(read_line(f).find("\"ok\":true"), std::string::npos);
  }
  const int refused = connect_to(opt_.path);
  EXPECT_NE(read_line(refused).find("control.max_clients_per_uid is 2"), std::string::npos);
  ::close(refused);
  send_all(a, set_request("max_clients_per_uid", "3"));
  EXPECT_NE(read_line(a).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->per_uid_limit(), 3u);
  const int c = connect_to(opt_.path);
  send_all(c, R"({"verb":"show","what":"ports"})"
              "\n");
  EXPECT_NE(read_line(c).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->stats().refused_uid, 1u);
  for (int f : {a, b, c}) ::close(f);
}

// A shorter idle timeout holds from the change on: a client idle since
// before is closed a whole new timeout after the change (not at once, not
// at its old deadline); one that keeps asking stays.
TEST_F(ControlServerTest, ShorterIdleTimeoutAppliesToIdleClientsFromThenOn) {
  opt_.idle_timeout_ns = 60'000'000'000;
  start();
  const int idle = connect_to(opt_.path), busy = connect_to(opt_.path);
  ASSERT_GE(idle, 0);
  ASSERT_GE(busy, 0);
  send_all(idle, R"({"verb":"show","what":"ports"})"
                 "\n");
  EXPECT_NE(read_line(idle).find("\"ok\":true"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // idle longer than the new timeout
  const auto changed = std::chrono::steady_clock::now();
  send_all(busy, set_request("idle_timeout", "300"));
  EXPECT_NE(read_line(busy).find("\"ok\":true"), std::string::npos);
  std::string last;
  auto closed_at = changed;
  std::thread watch([&] {
    last = read_line(idle, 5000);
    closed_at = std::chrono::steady_clock::now();
  });
  for (int i = 0; i < 8; ++i) {
    send_all(busy, R"({"verb":"show","what":"ports"})"
                   "\n");
    EXPECT_NE(read_line(busy).find("\"ok\":true"), std::string::npos) << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  watch.join();
  const auto after = closed_at - changed;
  EXPECT_NE(last.find("closed: idle for 300ms (control.idle_timeout)"), std::string::npos) << last;
  EXPECT_TRUE(closed_by_peer(idle, 2000));
  EXPECT_GE(after, std::chrono::milliseconds(290));
  EXPECT_EQ(server_->stats().idle_closed, 1u);
  ::close(idle);
  ::close(busy);
}

// The group changes at once (the socket file and who may connect); an
// unknown one is refused and changes nothing; the path never moves.
TEST_F(ControlServerTest, GroupChangesLiveUnknownOneChangesNothing) {
  start();
  const int fd = connect_to(opt_.path);
  ASSERT_GE(fd, 0);
  send_all(fd, set_request("max_clients", "8"));
  EXPECT_NE(read_line(fd).find("\"ok\":true"), std::string::npos);
  send_all(fd, set_request("group", "\"no-such-group-rocelb\""));
  EXPECT_EQ(nlohmann::json::parse(read_line(fd))["error"],
            "control.group: no group named \"no-such-group-rocelb\"");
  EXPECT_EQ(server_->options().group, "");
  EXPECT_EQ(server_->options().max_clients, 8u);
  send_all(fd, set_request("socket", "\"/tmp/elsewhere.sock\""));
  EXPECT_NE(read_line(fd).find("\"ok\":true"), std::string::npos);
  EXPECT_EQ(server_->path(), opt_.path);
  EXPECT_FALSE(fs::exists("/tmp/elsewhere.sock"));
  if (geteuid() != 0) {
    ::close(fd);
    GTEST_SKIP() << "needs root to give the socket to another group";
  }
  send_all(fd, set_request("group", "\"nogroup\""));
  EXPECT_NE(read_line(fd).find("\"ok\":true"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(opt_.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, kNogroup);
  const char* path = opt_.path.c_str();
  ::chmod(path, 0666);  // let nobody reach the socket: SO_PEERCRED decides
  EXPECT_EQ(
      as_user(kNobody, kNogroup, [&] { return child_request(path, kShowPorts, "\"ok\":true"); }),
      0);
  ::close(fd);
}

}  // namespace
}  // namespace rocelb
