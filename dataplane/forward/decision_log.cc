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

void write_decision_json(std::FILE* f, uint64_t t_ns, std::string_view head,
                         const std::string& group, LbMode mode, const FlowKey& key, uint32_t hash,
                         const LbDecision& d, uint16_t port) {
  char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
  const int af = key.family == 6 ? AF_INET6 : AF_INET;
  inet_ntop(af, key.src_ip, src, sizeof src);
  inet_ntop(af, key.dst_ip, dst, sizeof dst);
  std::fprintf(f,
               "{\"t_ns\":%llu,%.*s\"group\":\"%s\",\"mode\":\"%.*s\",\"flow\":{\"src\":\"%s\","
               "\"dst\":\"%s\",\"proto\":%u,\"sport\":%u,\"dport\":%u,\"qp\":%u},"
               "\"hash\":\"0x%08x\",\"member\":%u,\"port\":%u",
               (unsigned long long)t_ns, (int)head.size(), head.data(), group.c_str(),
               (int)to_string(mode).size(), to_string(mode).data(), src, dst, key.proto, key.sport,
               key.dport, key.dest_qp, hash, d.member, port);
  if (d.bucket != kNoBucket) std::fprintf(f, ",\"bucket\":%u", d.bucket);
  if (uses_flowlets(mode))
    std::fprintf(f, ",\"new_flowlet\":%s,\"flowlet_age_ns\":%llu,\"collision\":%s",
                 d.new_flowlet ? "true" : "false", (unsigned long long)d.flowlet_age_ns,
                 d.flowlet_collision ? "true" : "false");
  if (d.compared != LbCompared::kNothing) {
    std::fprintf(f, ",\"compared\":\"%s\",\"candidates\":[",
                 d.compared == LbCompared::kBands ? "bands" : "queue_bytes");
    for (uint32_t i = 0; i < d.num_candidates; ++i)
      std::fprintf(f, "%s{\"member\":%u,\"value\":%llu}", i ? "," : "", d.candidate[i],
                   (unsigned long long)d.value[i]);
    std::fputc(']', f);
  }
  std::fputs("}\n", f);
}

void DecisionLog::write(uint64_t now_ns, const std::string& group, LbMode mode, const FlowKey& key,
                        uint32_t hash, const LbDecision& d, uint16_t port) {
  write_decision_json(f_, base_ns_ + now_ns, {}, group, mode, key, hash, d, port);
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
