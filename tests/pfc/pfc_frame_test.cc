// pfc_frame: PFC and PAUSE encode/decode round trips, the exact bytes, each
// malformed frame, and pause-time conversions with their rounding.
#include "pfc/pfc_frame.h"
#include "dataplane/wire/mac_control.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rocelb {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr std::array<uint8_t, 6> kSrc = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
constexpr uint64_t k100G = 100'000'000'000ull;
constexpr uint64_t k25G = 25'000'000'000ull;
constexpr uint64_t k10G = 10'000'000'000ull;

Bytes encoded_pfc(uint8_t enable, std::array<uint16_t, 8> quanta) {
  Bytes b(64, 0x5a);
  PfcFrame f;
  f.src_mac = kSrc;
  f.class_enable = enable;
  f.quanta = quanta;
  EXPECT_EQ(encode_pfc(f, b.data(), b.size()), 60u);
  EXPECT_EQ(b[60], 0x5a);  // nothing past 60 bytes
  b.resize(60);
  return b;
}

TEST(PfcFrame, EncodesTheStandardLayout) {
  Bytes b = encoded_pfc(0x81, {0xffff, 1, 2, 3, 4, 5, 6, 0x1234});
  Bytes want = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,               // destination
                0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,               // source
                0x88, 0x08, 0x01, 0x01,                           // Ethertype, opcode
                0x00, 0x81,                                       // class-enable vector
                0xff, 0xff, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03,   // times 0..3
                0x00, 0x04, 0x00, 0x05, 0x00, 0x06, 0x12, 0x34};  // times 4..7
  want.resize(60, 0);
  EXPECT_EQ(b, want);
}

TEST(PfcFrame, RoundTrip) {
  for (uint32_t enable = 0; enable < 256; enable += 17) {
    std::array<uint16_t, 8> q;
    for (int i = 0; i < 8; ++i) q[i] = static_cast<uint16_t>(enable * 251 + i * 4099);
    Bytes b = encoded_pfc(static_cast<uint8_t>(enable), q);
    PfcFrame out;
    ASSERT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kOk);
    EXPECT_EQ(out.src_mac, kSrc);
    EXPECT_EQ(out.class_enable, enable);
    EXPECT_EQ(out.quanta, q);
  }
}

TEST(PfcFrame, PauseRoundTrip) {
  Bytes b(60);
  PauseFrame f;
  f.src_mac = kSrc;
  f.quanta = 0xfffe;
  ASSERT_EQ(encode_pause(f, b.data(), b.size()), 60u);
  Bytes want = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0xaa, 0xbb,
                0xcc, 0xdd, 0xee, 0x88, 0x08, 0x00, 0x01, 0xff, 0xfe};
  want.resize(60, 0);
  EXPECT_EQ(b, want);
  PauseFrame out;
  ASSERT_EQ(decode_pause(b.data(), b.size(), out), PfcDecodeResult::kOk);
  EXPECT_EQ(out.src_mac, kSrc);
  EXPECT_EQ(out.quanta, 0xfffe);
  // Without the padding is still a PAUSE frame.
  EXPECT_EQ(decode_pause(b.data(), kPauseUsedLen, out), PfcDecodeResult::kOk);
}

TEST(PfcFrame, BufferTooSmall) {
  Bytes b(59, 0x77);
  PfcFrame f;
  EXPECT_EQ(encode_pfc(f, b.data(), b.size()), 0u);
  EXPECT_EQ(encode_pause(PauseFrame{}, b.data(), b.size()), 0u);
  EXPECT_EQ(b, Bytes(59, 0x77));
}

TEST(PfcFrame, Malformed) {
  Bytes good = encoded_pfc(0xff, {1, 2, 3, 4, 5, 6, 7, 8});
  PfcFrame out;
  // Every length below the 34 bytes a PFC frame uses.
  for (size_t len = 0; len < kPfcUsedLen; ++len)
    EXPECT_EQ(decode_pfc(good.data(), len, out), PfcDecodeResult::kTooShort) << len;
  EXPECT_EQ(decode_pfc(good.data(), kPfcUsedLen, out), PfcDecodeResult::kOk);

  Bytes b = good;
  b[12] = 0x08;
  b[13] = 0x00;
  EXPECT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kWrongEthertype);
  b = good;
  b[14] = 0x00;  // opcode 0x0001: a PAUSE frame
  EXPECT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kWrongOpcode);
  b = good;
  b[15] = 0x02;
  EXPECT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kWrongOpcode);
  b = good;
  b[5] = 0x02;  // 01:80:C2:00:00:02 (slow protocols)
  EXPECT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kWrongDestination);
  b = good;
  b[0] = 0x03;
  EXPECT_EQ(decode_pfc(b.data(), b.size(), out), PfcDecodeResult::kWrongDestination);
  // The wrong opcode wins over a short body: a cut PAUSE frame is not a short PFC.
  Bytes pause(60);
  encode_pause(PauseFrame{kSrc, 5}, pause.data(), pause.size());
  EXPECT_EQ(decode_pfc(pause.data(), 20, out), PfcDecodeResult::kWrongOpcode);
  PauseFrame po;
  EXPECT_EQ(decode_pause(good.data(), good.size(), po), PfcDecodeResult::kWrongOpcode);
  EXPECT_EQ(decode_pause(pause.data(), kPauseUsedLen - 1, po), PfcDecodeResult::kTooShort);
  pause[12] = 0x86;
  EXPECT_EQ(decode_pause(pause.data(), pause.size(), po), PfcDecodeResult::kWrongEthertype);
}

TEST(PfcFrame, ResultNames) {
  EXPECT_STREQ(pfc_decode_result_name(PfcDecodeResult::kOk), "ok");
  EXPECT_STREQ(pfc_decode_result_name(PfcDecodeResult::kWrongDestination), "wrong_destination");
}

TEST(PauseTime, QuantaToNanoseconds) {
  // 65535 * 512 bits at 100 Gb/s = 335539.2 ns, rounded up.
  EXPECT_EQ(pause_quanta_to_ns(65535, k100G), 335540u);
  // One quantum: 5.12 ns at 100G, 20.48 ns at 25G, exactly 51.2 -> 52 at 10G.
  EXPECT_EQ(pause_quanta_to_ns(1, k100G), 6u);
  EXPECT_EQ(pause_quanta_to_ns(1, k25G), 21u);
  EXPECT_EQ(pause_quanta_to_ns(1, k10G), 52u);
  // Exact values stay exact.
  EXPECT_EQ(pause_quanta_to_ns(625, k100G), 3200u);
  EXPECT_EQ(pause_quanta_to_ns(65535, 1'000'000'000ull), 33553920u);
  EXPECT_EQ(pause_quanta_to_ns(0, k100G), 0u);
  EXPECT_EQ(pause_quanta_to_ns(65535, 0), 0u);
  // Slow links do not overflow: 65535 quanta at 1 b/s.
  EXPECT_EQ(pause_quanta_to_ns(65535, 1), 65535ull * 512 * 1'000'000'000ull);
}

TEST(PauseTime, NanosecondsToQuanta) {
  EXPECT_EQ(pause_ns_to_quanta(0, k100G), 0);
  EXPECT_EQ(pause_ns_to_quanta(1, k100G), 1);  // rounded up
  EXPECT_EQ(pause_ns_to_quanta(3200, k100G), 625);
  EXPECT_EQ(pause_ns_to_quanta(3201, k100G), 626);
  EXPECT_EQ(pause_ns_to_quanta(335539, k100G), 65535);  // 65534.96 -> 65535
  EXPECT_EQ(pause_ns_to_quanta(335540, k100G), 65535);  // 65535.16 -> capped
  EXPECT_EQ(pause_ns_to_quanta(1'000'000'000, k100G), 65535);
  EXPECT_EQ(pause_ns_to_quanta(UINT64_MAX, 800'000'000'000ull), 65535);
  EXPECT_EQ(pause_ns_to_quanta(1000, 0), 0);
  // Converting back never shortens the pause.
  for (uint64_t speed : {k10G, k25G, k100G, uint64_t{400'000'000'000}}) {
    for (uint32_t q = 0; q <= 65535; q += 97) {
      uint64_t ns = pause_quanta_to_ns(static_cast<uint16_t>(q), speed);
      EXPECT_GE(pause_ns_to_quanta(ns, speed), q);
      EXPECT_LE(pause_ns_to_quanta(ns, speed), std::min<uint32_t>(q + 1, 65535));
    }
  }
}

}  // namespace
}  // namespace rocelb
