// Reordering per QP with 24-bit PSN arithmetic.
#include <gtest/gtest.h>

#include "dataplane/record/reorder_meter.h"

namespace rocelb {
namespace {

ParsedPacket roce(uint32_t qp, uint32_t psn, uint8_t src_last = 2) {
  ParsedPacket p;
  p.has_bth = true;
  p.src_ip[3] = src_last;
  p.dst_ip[3] = 9;
  p.bth_dest_qp = qp;
  p.bth_psn = psn;
  return p;
}

TEST(ReorderMeter, InOrderIsNotReordered) {
  ReorderMeter m;
  for (uint32_t psn = 0; psn < 100; ++psn) m.observe(roce(1, psn));
  EXPECT_EQ(m.reordered_packets(), 0u);
  EXPECT_EQ(m.qps(), 1u);
  EXPECT_EQ(m.roce_packets(), 100u);
}

TEST(ReorderMeter, LowerPsnAfterHigherIsReorderedWithItsGap) {
  ReorderMeter m;
  for (uint32_t psn : {0u, 1u, 4u, 2u, 3u, 5u, 9u, 6u}) m.observe(roce(7, psn));
  EXPECT_EQ(m.reordered_packets(), 3u);  // 2, 3 (behind 4) and 6 (behind 9)
  EXPECT_EQ(m.max_psn_gap(), 3u);
}

TEST(ReorderMeter, QpsAreIndependent) {
  ReorderMeter m;
  m.observe(roce(1, 10));
  m.observe(roce(2, 5));      // another QP: not behind QP 1
  m.observe(roce(1, 10, 3));  // same QP number, other source: another QP
  EXPECT_EQ(m.reordered_packets(), 0u);
  EXPECT_EQ(m.qps(), 3u);
}

TEST(ReorderMeter, ResponsesAreASequenceApartFromRequests) {
  // One side of an RC connection sends its own requests (SEND, PSN 500..)
  // and answers the peer's RDMA READ (READ responses with the peer's PSNs,
  // 10..) on the same QP: neither is behind the other.
  ReorderMeter m;
  auto op = [](uint32_t psn, uint8_t opcode) {
    ParsedPacket p = roce(4, psn);
    p.bth_opcode = opcode;
    return p;
  };
  m.observe(op(500, 0x04));  // SEND only
  m.observe(op(10, 0x0D));   // READ response first
  m.observe(op(11, 0x0F));   // READ response last
  m.observe(op(501, 0x04));
  m.observe(op(12, 0x11));  // ACK
  EXPECT_EQ(m.reordered_packets(), 0u);
  m.observe(op(11, 0x10));  // a response behind its sequence still counts
  EXPECT_EQ(m.reordered_packets(), 1u);
}

TEST(ReorderMeter, PsnWrapsAt24Bits) {
  ReorderMeter m;
  m.observe(roce(1, 0xfffffe));
  m.observe(roce(1, 0xffffff));
  m.observe(roce(1, 0));  // newer, after the wrap
  m.observe(roce(1, 1));
  EXPECT_EQ(m.reordered_packets(), 0u);
  m.observe(roce(1, 0xffffff));  // two behind 1
  EXPECT_EQ(m.reordered_packets(), 1u);
  EXPECT_EQ(m.max_psn_gap(), 2u);
}

TEST(ReorderMeter, RetransmissionAndNonRoceIgnored) {
  ReorderMeter m;
  m.observe(roce(1, 5));
  m.observe(roce(1, 5));
  ParsedPacket udp;
  m.observe(udp);
  ParsedPacket cnp = roce(1, 0);
  cnp.is_cnp = true;
  m.observe(cnp);
  EXPECT_EQ(m.reordered_packets(), 0u);
  EXPECT_EQ(m.roce_packets(), 2u);
}

}  // namespace
}  // namespace rocelb
