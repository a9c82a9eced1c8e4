// The pcap and pcapng writers hand the kernel large pieces: a replay writes
// hundreds of MB, and a system call per 4 KiB (glibc's default buffer) cost
// more than the frames' copying. What a writer holds reaches the file at
// close, whole.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/wire/pcap_file.h"
#include "dataplane/wire/pcapng_file.h"

namespace rocelb {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "pcap_buffer_" + std::to_string(::getpid()) + "_" + name;
}

uint64_t size_on_disk(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

constexpr uint32_t kFrame = 1000;
constexpr int kFrames = 500;  // 500 KB of records: 122 pieces of 4 KiB, one of 1 MiB

TEST(PcapBuffer, APcapWriterHoldsHalfAMegabyteOfRecordsBeforeItWrites) {
  const std::string path = temp_path("w.pcap");
  std::vector<uint8_t> frame(kFrame, 0xab);
  PcapWriter w(path);
  for (int i = 0; i < kFrames; ++i) w.write(1000 + i, frame.data(), kFrame);
  EXPECT_EQ(size_on_disk(path), 0u) << "records written in small pieces";
  w.close();
  EXPECT_EQ(size_on_disk(path), 24u + kFrames * (16u + kFrame));
  PcapReader r(path);
  PcapRecord rec;
  int n = 0;
  while (r.next(rec)) {
    EXPECT_EQ(rec.ts_ns, 1000u + n);
    EXPECT_EQ(rec.caplen, kFrame);
    ++n;
  }
  EXPECT_EQ(n, kFrames);
  ::unlink(path.c_str());
}

TEST(PcapBuffer, APcapngWriterHoldsHalfAMegabyteOfRecordsBeforeItWrites) {
  const std::string path = temp_path("w.pcapng");
  std::vector<uint8_t> frame(kFrame, 0xcd);
  PcapngWriter w(path, "port0");
  for (int i = 0; i < kFrames; ++i) w.write(1000 + i, frame.data(), kFrame, "queued");
  EXPECT_EQ(size_on_disk(path), 0u) << "blocks written in small pieces";
  w.close();
  EXPECT_GT(size_on_disk(path), uint64_t{kFrames} * kFrame);
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace rocelb
