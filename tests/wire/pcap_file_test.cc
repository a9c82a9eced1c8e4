// PcapReader / PcapWriter: nanosecond round trip, microsecond and nanosecond
// files written by hand in both byte orders, buffer reuse, and every error.
#include "dataplane/wire/pcap_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace rocelb {
namespace {

using Bytes = std::vector<uint8_t>;

std::string temp_path(const std::string& name) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "rocelb_pcap_" + t->name() + "_" + name;
}

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

Bytes read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

// Appends a 32/16-bit value in the chosen byte order.
struct Out {
  bool big;
  Bytes b;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (big ? 24 - 8 * i : 8 * i)));
  }
  void u16(uint16_t v) {
    for (int i = 0; i < 2; ++i) b.push_back(static_cast<uint8_t>(v >> (big ? 8 - 8 * i : 8 * i)));
  }
  void header(uint32_t magic, uint32_t linktype = 1, uint32_t snaplen = 65535) {
    u32(magic);
    u16(2);
    u16(4);
    u32(0);
    u32(0);
    u32(snaplen);
    u32(linktype);
  }
  void record(uint32_t sec, uint32_t frac, const Bytes& data, uint32_t origlen = 0) {
    u32(sec);
    u32(frac);
    u32(static_cast<uint32_t>(data.size()));
    u32(origlen ? origlen : static_cast<uint32_t>(data.size()));
    b.insert(b.end(), data.begin(), data.end());
  }
};

std::string error_of(const std::string& path) {
  try {
    PcapReader r(path);
    PcapRecord rec;
    while (r.next(rec)) {
    }
  } catch (const PcapError& e) {
    return e.what();
  }
  return "";
}

TEST(Pcap, RoundTripNanoseconds) {
  std::string path = temp_path("rt.pcap");
  Bytes a(60, 0xaa), b(1514, 0xbb), c(9000, 0xcc);
  {
    PcapWriter w(path);
    w.write(1700000000123456789ull, a.data(), a.size());
    w.write(1700000000123456790ull, b.data(), b.size(), 2000);
    w.write(5, c.data(), c.size());
    w.close();
    w.close();  // twice is harmless
  }
  Bytes file = read_file(path);
  ASSERT_GE(file.size(), 24u);
  // Little-endian nanosecond magic, version 2.4, snaplen 262144, Ethernet.
  EXPECT_EQ(Bytes(file.begin(), file.begin() + 24),
            (Bytes{0x4d, 0x3c, 0xb2, 0xa1, 2,    0,    4,    0,    0, 0, 0, 0,
                   0,    0,    0,    0,    0x00, 0x00, 0x04, 0x00, 1, 0, 0, 0}));
  PcapReader r(path);
  EXPECT_EQ(r.linktype(), kLinktypeEthernet);
  EXPECT_EQ(r.snaplen(), 262144u);
  EXPECT_TRUE(r.nanosecond());
  EXPECT_FALSE(r.big_endian());
  PcapRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, 1700000000123456789ull);
  EXPECT_EQ(Bytes(rec.data, rec.data + rec.caplen), a);
  EXPECT_EQ(rec.origlen, 60u);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, 1700000000123456790ull);
  EXPECT_EQ(rec.caplen, 1514u);
  EXPECT_EQ(rec.origlen, 2000u);
  EXPECT_EQ(Bytes(rec.data, rec.data + rec.caplen), b);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, 5u);
  EXPECT_EQ(Bytes(rec.data, rec.data + rec.caplen), c);
  EXPECT_FALSE(r.next(rec));
  EXPECT_FALSE(r.next(rec));
  std::remove(path.c_str());
}

TEST(Pcap, HandWrittenFilesBothOrders) {
  struct Kind {
    uint32_t magic;
    bool big;
    bool nsec;
  };
  for (Kind k : {Kind{kPcapMagicUsec, false, false}, Kind{kPcapMagicUsec, true, false},
                 Kind{kPcapMagicNsec, false, true}, Kind{kPcapMagicNsec, true, true}}) {
    SCOPED_TRACE(std::to_string(k.magic) + (k.big ? " big-endian" : " little-endian"));
    Out o{k.big, {}};
    o.header(k.magic, 101, 128);  // linktype raw IP, just to see it read
    o.record(1000, k.nsec ? 999999999 : 999999, {1, 2, 3});
    o.record(4294967295u, 1, {5}, 64);
    o.record(0, 0, Bytes(128, 7));
    std::string path = temp_path("hand.pcap");
    write_file(path, o.b);
    PcapReader r(path);
    EXPECT_EQ(r.linktype(), 101u);
    EXPECT_EQ(r.snaplen(), 128u);
    EXPECT_EQ(r.nanosecond(), k.nsec);
    EXPECT_EQ(r.big_endian(), k.big);
    PcapRecord rec;
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(rec.ts_ns, 1000999999000ull + (k.nsec ? 999 : 0));
    EXPECT_EQ(Bytes(rec.data, rec.data + rec.caplen), (Bytes{1, 2, 3}));
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(rec.ts_ns, 4294967295ull * 1000000000ull + (k.nsec ? 1 : 1000));
    EXPECT_EQ(rec.caplen, 1u);
    EXPECT_EQ(rec.origlen, 64u);
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(rec.caplen, 128u);
    EXPECT_EQ(rec.data[127], 7);
    EXPECT_FALSE(r.next(rec));
    std::remove(path.c_str());
  }
}

TEST(Pcap, ReusesItsBuffer) {
  std::string path = temp_path("reuse.pcap");
  {
    PcapWriter w(path);
    for (uint32_t len : {1500u, 60u, 1000u, 1500u}) {
      Bytes d(len, static_cast<uint8_t>(len));
      w.write(len, d.data(), len);
    }
  }  // the destructor closes
  PcapReader r(path);
  PcapRecord rec;
  ASSERT_TRUE(r.next(rec));
  const uint8_t* first = rec.data;
  while (r.next(rec)) {
    EXPECT_EQ(rec.data, first);
    EXPECT_EQ(rec.data[rec.caplen - 1], static_cast<uint8_t>(rec.caplen));
  }
  std::remove(path.c_str());
}

TEST(Pcap, ReaderErrors) {
  std::string path = temp_path("bad.pcap");
  auto expect_error = [&](const Bytes& content, const std::string& what) {
    write_file(path, content);
    std::string e = error_of(path);
    EXPECT_NE(e.find(path + ": "), std::string::npos) << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  };
  // Missing file.
  std::string missing = temp_path("does_not_exist.pcap");
  std::string e = error_of(missing);
  EXPECT_EQ(e, missing + ": cannot open: No such file or directory");
  // Empty and short files.
  expect_error({}, "truncated pcap global header (0 of 24 bytes)");
  Out o{false, {}};
  o.header(kPcapMagicUsec);
  expect_error(Bytes(o.b.begin(), o.b.begin() + 10), "truncated pcap global header (10 of 24");
  // pcapng and other magic.
  Bytes ng = {0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a};
  ng.resize(28, 0);
  expect_error(ng, "is pcapng, not pcap: convert with editcap -F pcap");
  expect_error(Bytes{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!',
                     '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!', '!'},
               "not a pcap file (magic 0x68656c6c)");
  // Truncated record header: 24-byte header, one whole record (16 + 4), 7 bytes.
  o.record(1, 2, {9, 9, 9, 9});
  Bytes t = o.b;
  t.insert(t.end(), 7, 0);
  expect_error(t, "truncated record header at byte offset 44 (7 of 16 bytes)");
  // Truncated record data.
  Out d{false, {}};
  d.header(kPcapMagicNsec);
  d.record(1, 2, Bytes(100, 1));
  d.b.resize(d.b.size() - 30);
  expect_error(d.b, "truncated record data at byte offset 40 (caplen 100, only 70 bytes left)");
  // caplen above 262144.
  Out big{true, {}};
  big.header(kPcapMagicUsec);
  big.u32(0);
  big.u32(0);
  big.u32(262145);
  big.u32(262145);
  expect_error(big.b, "record at byte offset 24 has caplen 262145 > 262144");
  // A directory.
  e = error_of(::testing::TempDir());
  EXPECT_NE(e.find("read error"), std::string::npos) << e;
  std::remove(path.c_str());
}

TEST(Pcap, WriterErrors) {
  std::string bad_dir = temp_path("no_such_dir") + "/out.pcap";
  try {
    PcapWriter w(bad_dir);
    FAIL();
  } catch (const PcapError& e) {
    EXPECT_EQ(std::string(e.what()), bad_dir + ": cannot create: No such file or directory");
  }
  std::string path = temp_path("w.pcap");
  PcapWriter w(path);
  Bytes huge(262145);
  try {
    w.write(0, huge.data(), static_cast<uint32_t>(huge.size()));
    FAIL();
  } catch (const PcapError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": record of 262145 bytes > snaplen 262144");
  }
  w.write(0, huge.data(), 262144);  // exactly the snaplen is fine
  w.flush();
  w.close();
  EXPECT_THROW(w.write(0, huge.data(), 1), PcapError);
  PcapReader r(path);
  PcapRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.caplen, 262144u);
  std::remove(path.c_str());
  // A full disk shows up at the latest on close.
  std::FILE* probe = std::fopen("/dev/full", "wb");
  if (probe) {
    std::fclose(probe);
    PcapWriter full("/dev/full");
    EXPECT_THROW(
        {
          for (int i = 0; i < 100; ++i) full.write(0, huge.data(), 262144);
          full.close();
        },
        PcapError);
  }
}

// A record holds 1..snaplen bytes (and never more than 262144): a run of
// zeros after a valid header (a preallocated or zero-filled file) is refused
// at its first record instead of being read as endless empty frames at time 0.
TEST(Pcap, RecordsHoldOneByteUpToTheSnaplen) {
  std::string path = temp_path("zeros.pcap");
  Out z{false, {}};
  z.header(kPcapMagicNsec);
  z.b.resize(z.b.size() + (1 << 20), 0);
  write_file(path, z.b);
  EXPECT_EQ(error_of(path),
            path + ": record at byte offset 24 has caplen 0: a record holds at least one byte");
  // Above the snaplen the file declares.
  Out s{false, {}};
  s.header(kPcapMagicUsec, 1, 128);
  s.record(0, 0, Bytes(128, 1));
  s.record(0, 0, Bytes(129, 1));
  write_file(path, s.b);
  EXPECT_EQ(error_of(path),
            path + ": record at byte offset 168 has caplen 129 > the file's snaplen 128");
  // A header snaplen of 0 sets no limit of its own.
  Out n{false, {}};
  n.header(kPcapMagicUsec, 1, 0);
  n.record(0, 0, Bytes(9000, 1));
  write_file(path, n.b);
  EXPECT_EQ(error_of(path), "");
  std::remove(path.c_str());
}

TEST(Pcap, PeekShowsTheNextRecordWithoutTakingIt) {
  std::string path = temp_path("peek.pcap");
  Out o{false, {}};
  o.header(kPcapMagicNsec);
  o.record(7, 1, {1, 2});
  o.record(8, 2, {3, 4, 5});
  write_file(path, o.b);
  PcapReader r(path);
  const PcapRecord* p = r.peek();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ts_ns, 7'000'000'001u);
  EXPECT_EQ(r.peek(), p);  // still the same record
  PcapRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, 7'000'000'001u);
  EXPECT_EQ(Bytes(rec.data, rec.data + rec.caplen), (Bytes{1, 2}));
  EXPECT_EQ(rec.offset, 24u);
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, 8'000'000'002u);
  EXPECT_EQ(rec.offset, 24u + 16 + 2);
  EXPECT_EQ(r.peek(), nullptr);
  EXPECT_FALSE(r.next(rec));
  std::remove(path.c_str());
}

// Streams are read once, front to back: a FIFO, and stdin as "-".
class PcapStream : public ::testing::Test {
 protected:
  static Bytes two_records() {
    Out o{false, {}};
    o.header(kPcapMagicNsec);
    o.record(1, 0, Bytes(60, 0xaa));
    o.record(2, 0, Bytes(1500, 0xbb));
    return o.b;
  }
  static void expect_two_records(PcapReader& r) {
    PcapRecord rec;
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(rec.caplen, 60u);
    ASSERT_TRUE(r.next(rec));
    EXPECT_EQ(rec.ts_ns, 2'000'000'000u);
    EXPECT_EQ(rec.caplen, 1500u);
    EXPECT_FALSE(r.next(rec));
  }
};

TEST_F(PcapStream, ReadsAFifo) {
  const std::string path = temp_path("fifo");
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  std::thread writer([&] { write_file(path, two_records()); });
  {
    PcapReader r(path);
    expect_two_records(r);
  }
  writer.join();
  std::remove(path.c_str());
}

TEST_F(PcapStream, ReadsStdinAsDash) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  const int saved = dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
  close(p[0]);
  std::thread writer([fd = p[1]] {
    const Bytes b = two_records();
    EXPECT_EQ(write(fd, b.data(), b.size()), static_cast<ssize_t>(b.size()));
    close(fd);
  });
  try {
    PcapReader r("-");
    expect_two_records(r);
  } catch (const PcapError& e) {
    ADD_FAILURE() << e.what();
  }
  writer.join();
  dup2(saved, STDIN_FILENO);  // the test's own stdin back
  close(saved);
}

TEST(Pcap, ErrorsKeepTheirDetailApartFromTheFileName) {
  const std::string missing = temp_path("missing.pcap");
  try {
    PcapReader r(missing);
    FAIL();
  } catch (const PcapError& e) {
    EXPECT_EQ(e.file(), missing);
    EXPECT_EQ(e.detail(), "cannot open: No such file or directory");
  }
}

// The record header holds seconds in 32 bits: a later time would wrap to 1970.
TEST(Pcap, WriterRefusesTimesPcapCannotHold) {
  const std::string path = temp_path("2106.pcap");
  PcapWriter w(path);
  const Bytes d(60, 1);
  const uint64_t last = uint64_t{UINT32_MAX} * 1'000'000'000u + 999'999'999u;
  w.write(last, d.data(), 60);  // 2106-02-07T06:28:15.999999999Z is the last
  try {
    w.write(last + 1, d.data(), 60);
    ADD_FAILURE() << "a time past 2106 was written";
  } catch (const PcapError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": time 4294967296.000000000 s is past what pcap holds (4294967295 s)");
  }
  w.close();
  PcapReader r(path);
  PcapRecord rec;
  ASSERT_TRUE(r.next(rec));
  EXPECT_EQ(rec.ts_ns, last);
  EXPECT_FALSE(r.next(rec));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace rocelb
