#include "dataplane/bpf/bpf_validation_cost.h"

#include <vector>

namespace rocelb {
namespace {

constexpr uint8_t kClassMask = 0x07, kOpMask = 0xf0;
constexpr uint8_t kJmp = 0x05, kJmp32 = 0x06;
constexpr uint8_t kJa = 0x00, kCall = 0x80, kExit = 0x90;
constexpr uint8_t kLdImm64 = 0x18;  // BPF_LD | BPF_IMM | BPF_DW: two slots

// The successors of instruction i: up to two, -1 for none.
void successors(const BpfInsn* ins, uint32_t i, int64_t out[2]) {
  out[0] = out[1] = -1;
  const uint8_t code = ins[i].code;
  const uint8_t cls = code & kClassMask, op = code & kOpMask;
  if (code == kLdImm64) {
    out[0] = int64_t{i} + 2;
  } else if (cls == kJmp || cls == kJmp32) {
    if (op == kExit) return;
    if (op == kCall) {
      out[0] = int64_t{i} + 1;
    } else if (op == kJa && cls == kJmp) {
      out[0] = int64_t{i} + 1 + ins[i].off;
    } else {
      out[0] = int64_t{i} + 1;
      out[1] = int64_t{i} + 1 + ins[i].off;
    }
  } else {
    out[0] = int64_t{i} + 1;
  }
}

uint64_t add_sat(uint64_t a, uint64_t b, uint64_t cap) {
  const uint64_t s = a + b;
  return (s < a || s > cap) ? cap : s;
}

}  // namespace

std::optional<uint64_t> bpf_validation_steps(const BpfInsn* ins, uint32_t n, uint64_t cap) {
  if (n == 0) return uint64_t{0};
  // Depth-first from instruction 0 for a topological order of what is
  // reachable; a grey node met again is a cycle.
  enum : uint8_t { kWhite, kGrey, kBlack };
  std::vector<uint8_t> colour(n, kWhite);
  std::vector<uint32_t> order;  // reverse post-order, built backwards
  order.reserve(n);
  struct Frame {
    uint32_t node;
    uint8_t next_edge;
  };
  std::vector<Frame> stack{{0, 0}};
  colour[0] = kGrey;
  while (!stack.empty()) {
    Frame& f = stack.back();
    int64_t succ[2];
    successors(ins, f.node, succ);
    if (f.next_edge < 2) {
      const int64_t s = succ[f.next_edge++];
      if (s < 0) continue;
      if (s >= int64_t{n}) return std::nullopt;
      if (colour[s] == kGrey) return std::nullopt;
      if (colour[s] == kWhite) {
        colour[s] = kGrey;
        stack.push_back({static_cast<uint32_t>(s), 0});
      }
      continue;
    }
    colour[f.node] = kBlack;
    order.push_back(f.node);
    stack.pop_back();
  }
  // Paths into each node, in topological order (order is post-order).
  std::vector<uint64_t> paths(n, 0);
  paths[0] = 1;
  uint64_t steps = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t v = *it;
    steps = add_sat(steps, paths[v], cap);
    int64_t succ[2];
    successors(ins, v, succ);
    for (int64_t s : succ)
      if (s >= 0) paths[s] = add_sat(paths[s], paths[v], cap);
  }
  return steps;
}

}  // namespace rocelb
