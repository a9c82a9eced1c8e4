#include "dataplane/forward/mbuf_util.h"
#include "dataplane/forward/mbuf_handoff.h"

#include <algorithm>
#include <cstring>

namespace rocelb {

rte_mbuf* mbuf_from_bytes(rte_mempool* pool, const uint8_t* data, uint32_t len) {
  rte_mbuf* head = mbuf_alloc(pool);
  if (!head) return nullptr;
  rte_mbuf* seg = head;
  uint32_t done = 0;
  for (;;) {
    const uint32_t room = rte_pktmbuf_tailroom(seg);
    const uint32_t take = std::min(room, len - done);
    if (take) std::memcpy(rte_pktmbuf_mtod(seg, uint8_t*), data + done, take);  // data may be null
    seg->data_len = static_cast<uint16_t>(take);
    done += take;
    if (done == len) break;
    rte_mbuf* next = mbuf_alloc(pool);
    if (!next) {
      mbuf_free(head);
      return nullptr;
    }
    seg->next = next;
    ++head->nb_segs;
    seg = next;
  }
  head->pkt_len = len;
  return head;
}

}  // namespace rocelb
