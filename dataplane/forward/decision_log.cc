#include "dataplane/forward/decision_log.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rocelb {

DecisionLog::DecisionLog(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_)
    throw std::runtime_error("cannot write trace file \"" + path + "\": " + std::strerror(errno));
}

DecisionLog::~DecisionLog() {
  if (f_) std::fclose(f_);
}

void DecisionLog::write(uint64_t now_ns, const std::string& group, LbMode mode, const FlowKey& key,
                        uint32_t hash, const LbDecision& d, uint16_t port) {
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  const int af = key.family == 6 ? AF_INET6 : AF_INET;
  inet_ntop(af, key.src_ip, src, sizeof src);
  inet_ntop(af, key.dst_ip, dst, sizeof dst);
  std::fprintf(f_,
               "{\"t_ns\":%llu,\"group\":\"%s\",\"mode\":\"%.*s\",\"flow\":{\"src\":\"%s\","
               "\"dst\":\"%s\",\"proto\":%u,\"sport\":%u,\"dport\":%u,\"qp\":%u},"
               "\"hash\":\"0x%08x\",\"member\":%u,\"port\":%u",
               (unsigned long long)(base_ns_ + now_ns), group.c_str(), (int)to_string(mode).size(),
               to_string(mode).data(), src, dst, key.proto, key.sport, key.dport, key.dest_qp, hash,
               d.member, port);
  if (d.bucket != kNoBucket) std::fprintf(f_, ",\"bucket\":%u", d.bucket);
  if (uses_flowlets(mode))
    std::fprintf(f_, ",\"new_flowlet\":%s,\"flowlet_age_ns\":%llu,\"collision\":%s",
                 d.new_flowlet ? "true" : "false", (unsigned long long)d.flowlet_age_ns,
                 d.flowlet_collision ? "true" : "false");
  if (d.compared != LbCompared::kNothing) {
    std::fprintf(f_, ",\"compared\":\"%s\",\"candidates\":[",
                 d.compared == LbCompared::kBands ? "bands" : "queue_bytes");
    for (uint32_t i = 0; i < d.num_candidates; ++i)
      std::fprintf(f_, "%s{\"member\":%u,\"value\":%llu}", i ? "," : "", d.candidate[i],
                   (unsigned long long)d.value[i]);
    std::fputc(']', f_);
  }
  std::fputs("}\n", f_);
  ++lines_;
}

void DecisionLog::close() {
  if (!f_) return;
  const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok || !closed) throw std::runtime_error("cannot write trace file \"" + path_ + "\"");
}

}  // namespace rocelb
