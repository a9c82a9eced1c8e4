// The replay's upstream device: what it holds in memory while its pcap is
// read is bounded whatever the backlog, and the bound does not change what
// it sends.
#include "dataplane/run/upstream_sender.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/wire/pcap_file.h"
#include "test_support.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kT0 = 1'767'225'600'000'000'000ull;

class Upstream : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());  // SwitchConfig builds DPDK route tables
    cfg_ = SwitchConfig::build(test::default_params());
    path_ = (fs::temp_directory_path() /
             ("rocelb-upstream-" + std::to_string(getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".pcap"))
                .string();
  }
  void TearDown() override { fs::remove(path_); }

  // `count` frames of `len` bytes, all stamped at the same instant: the whole
  // file is backlog as soon as the first frame is on the wire.
  void write_same_instant(uint32_t count, uint32_t len) {
    PcapWriter w(path_);
    std::vector<uint8_t> f(len, 0);
    f[0] = 0x02;  // a unicast MAC; the payload does not matter here
    for (uint32_t i = 0; i < count; ++i) {
      f[len - 1] = static_cast<uint8_t>(i);
      w.write(kT0, f.data(), len);
    }
    w.close();
  }

  struct Drained {
    uint64_t sent = 0;
    size_t max_frames = 0;
    size_t max_bytes = 0;
  };
  // Sends everything; checks each frame leaves in pcap order, back to back
  // at the port's speed.
  Drained drain(uint32_t len) {
    UpstreamSender s(0, std::make_unique<PcapReader>(path_), *cfg_, kT0, 0);
    const uint64_t wire_ps = (uint64_t{len} + 20) * 80;  // 100G: 80 ps a byte
    Drained d;
    for (;;) {
      const uint64_t when = s.next_send_ps();
      d.max_frames = std::max(d.max_frames, s.frames_queued());
      d.max_bytes = std::max(d.max_bytes, s.bytes_queued());
      if (when == UpstreamSender::kNever) break;
      const UpstreamSender::Frame& f = s.send();
      EXPECT_EQ(f.seq, d.sent);
      EXPECT_EQ(f.ts_ps, d.sent * wire_ps);
      EXPECT_EQ(f.bytes.back(), static_cast<uint8_t>(d.sent));
      if (f.seq != d.sent) break;
      ++d.sent;
    }
    EXPECT_TRUE(s.done());
    return d;
  }

  std::unique_ptr<SwitchConfig> cfg_;
  std::string path_;
};

TEST_F(Upstream, ManySmallFramesAtOneInstantHoldABoundedNumber) {
  const uint32_t n = UpstreamSender::kMaxQueuedFrames * 2 + 17;
  write_same_instant(n, 64);
  const Drained d = drain(64);
  EXPECT_EQ(d.sent, n);
  EXPECT_LE(d.max_frames, UpstreamSender::kMaxQueuedFrames);
}

TEST_F(Upstream, LargeFramesAtOneInstantHoldABoundedNumberOfBytes) {
  const uint32_t len = 9000;
  const uint32_t n = static_cast<uint32_t>(UpstreamSender::kMaxQueuedBytes / len) * 2;
  write_same_instant(n, len);
  const Drained d = drain(len);
  EXPECT_EQ(d.sent, n);
  EXPECT_LE(d.max_bytes, UpstreamSender::kMaxQueuedBytes);
}

}  // namespace
}  // namespace rocelb
