// The FrameSpec (wire/packet_builder.h) of a parsed RoCEv2 frame's headers:
// addresses, DSCP/ECN, UDP source port and BTH fields, for tests that
// rebuild what a NIC sent with build_frame and compare the bytes.
#pragma once

#include <algorithm>

#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"

namespace rocelb::test {

inline FrameSpec frame_spec_of(const ParsedPacket& pp) {
  FrameSpec spec;
  std::copy(pp.dst_mac, pp.dst_mac + 6, spec.dst_mac.begin());
  std::copy(pp.src_mac, pp.src_mac + 6, spec.src_mac.begin());
  std::copy(pp.src_ip, pp.src_ip + 4, spec.src_ip.begin());
  std::copy(pp.dst_ip, pp.dst_ip + 4, spec.dst_ip.begin());
  spec.dscp = pp.dscp;
  spec.ecn = pp.ecn;
  spec.sport = pp.sport;
  spec.opcode = pp.bth_opcode;
  spec.dest_qp = pp.bth_dest_qp;
  spec.ack_req = pp.bth_ack_req;
  spec.becn = pp.bth_becn;
  spec.psn = pp.bth_psn;
  return spec;
}

}  // namespace rocelb::test
