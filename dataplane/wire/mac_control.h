// 802.1Qbb priority flow control (PFC) and 802.3x PAUSE frames, the two MAC
// control frames rocelb sends and reads: encode into a caller buffer,
// decode with a verdict. Their layout, fields and verdicts are in
// common/mac_control_frame.h (pfc/ uses them too). Pure C++, no DPDK, no
// knobs, no counters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/mac_control_frame.h"

namespace rocelb {

const char* pfc_decode_result_name(PfcDecodeResult r);

// Write a 60-byte frame to buf; return 60, or 0 (nothing written) when
// buf_len is below 60.
size_t encode_pfc(const PfcFrame& f, uint8_t* buf, size_t buf_len);
size_t encode_pause(const PauseFrame& f, uint8_t* buf, size_t buf_len);

PfcDecodeResult decode_pfc(const uint8_t* data, size_t len, PfcFrame& out);
PfcDecodeResult decode_pause(const uint8_t* data, size_t len, PauseFrame& out);

}  // namespace rocelb
