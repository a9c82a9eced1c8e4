#include "dataplane/wire/mac_control.h"

#include <cstring>

namespace rocelb {
namespace {

constexpr size_t kOpcodeOffset = 14;
constexpr size_t kBodyOffset = 16;

uint16_t get16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

void put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

void write_header(const std::array<uint8_t, 6>& src, uint16_t opcode, uint8_t* buf) {
  std::memset(buf, 0, kPfcFrameLen);
  std::memcpy(buf, kPfcDstMac.data(), 6);
  std::memcpy(buf + 6, src.data(), 6);
  put16(buf + 12, kPfcEthertype);
  put16(buf + kOpcodeOffset, opcode);
}

PfcDecodeResult check_header(const uint8_t* data, size_t len, uint16_t opcode, size_t need) {
  if (len < kOpcodeOffset + 2) return PfcDecodeResult::kTooShort;
  if (get16(data + 12) != kPfcEthertype) return PfcDecodeResult::kWrongEthertype;
  if (get16(data + kOpcodeOffset) != opcode) return PfcDecodeResult::kWrongOpcode;
  if (len < need) return PfcDecodeResult::kTooShort;
  if (std::memcmp(data, kPfcDstMac.data(), 6) != 0) return PfcDecodeResult::kWrongDestination;
  return PfcDecodeResult::kOk;
}

}  // namespace

const char* pfc_decode_result_name(PfcDecodeResult r) {
  switch (r) {
    case PfcDecodeResult::kOk:
      return "ok";
    case PfcDecodeResult::kTooShort:
      return "too_short";
    case PfcDecodeResult::kWrongEthertype:
      return "wrong_ethertype";
    case PfcDecodeResult::kWrongOpcode:
      return "wrong_opcode";
    case PfcDecodeResult::kWrongDestination:
      return "wrong_destination";
  }
  return "unknown";
}

size_t encode_pfc(const PfcFrame& f, uint8_t* buf, size_t buf_len) {
  if (buf_len < kPfcFrameLen) return 0;
  write_header(f.src_mac, kPfcOpcode, buf);
  put16(buf + kBodyOffset, f.class_enable);
  for (size_t i = 0; i < 8; ++i) put16(buf + kBodyOffset + 2 + 2 * i, f.quanta[i]);
  return kPfcFrameLen;
}

size_t encode_pause(const PauseFrame& f, uint8_t* buf, size_t buf_len) {
  if (buf_len < kPfcFrameLen) return 0;
  write_header(f.src_mac, kPauseOpcode, buf);
  put16(buf + kBodyOffset, f.quanta);
  return kPfcFrameLen;
}

PfcDecodeResult decode_pfc(const uint8_t* data, size_t len, PfcFrame& out) {
  PfcDecodeResult r = check_header(data, len, kPfcOpcode, kPfcUsedLen);
  if (r != PfcDecodeResult::kOk) return r;
  std::memcpy(out.src_mac.data(), data + 6, 6);
  out.class_enable = data[kBodyOffset + 1];
  for (size_t i = 0; i < 8; ++i) out.quanta[i] = get16(data + kBodyOffset + 2 + 2 * i);
  return PfcDecodeResult::kOk;
}

PfcDecodeResult decode_pause(const uint8_t* data, size_t len, PauseFrame& out) {
  PfcDecodeResult r = check_header(data, len, kPauseOpcode, kPauseUsedLen);
  if (r != PfcDecodeResult::kOk) return r;
  std::memcpy(out.src_mac.data(), data + 6, 6);
  out.quanta = get16(data + kBodyOffset);
  return PfcDecodeResult::kOk;
}

}  // namespace rocelb
