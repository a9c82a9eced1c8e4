// Mode bpf (lb/bpf_engine.h, dataplane/bpf/bpf_policy_loader.h): what the
// loader refuses and why, a policy's bad answers dropped and counted, the
// example policies deciding exactly as the built-in engines they mirror
// (JIT and interpreter, with queue depths and gaps that make the engines
// choose), and random contexts never taking the host out of bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bpf_test_files.h"
#include "dataplane/bpf/bpf_policy_loader.h"
#include "lb/lb_engine.h"

namespace rocelb {
namespace {

using test::bad;
using test::contains;
using test::example;
using test::load_error;

TEST(BpfPolicy, LoaderRefusesWithTheReason) {
  const std::string text = testing::TempDir() + "not_elf.o";
  std::ofstream(text) << "int main() {}\n";
  EXPECT_TRUE(contains(load_error(text), "not an ELF object")) << load_error(text);
  EXPECT_TRUE(contains(load_error(testing::TempDir() + "missing.o"), "No such file"));
  const std::string missing = load_error(bad("bad_return"), "nope");
  EXPECT_TRUE(contains(missing, "no section nope (it has: out_of_range, down_member)")) << missing;
  const std::string two = load_error(bad("bad_return"));
  EXPECT_TRUE(contains(two, "2 policies (out_of_range, down_member): say which with bpf.section"))
      << two;
  EXPECT_TRUE(contains(load_error(bad("bad_oob")), "refused by the validator"))
      << load_error(bad("bad_oob"));
  EXPECT_TRUE(contains(load_error(bad("bad_loop")), "refused by the validator"))
      << load_error(bad("bad_loop"));
  EXPECT_TRUE(contains(load_error(bad("bad_global")), "uses maps or global data"))
      << load_error(bad("bad_global"));
  // A section may be named with or without its rocelb/ prefix.
  EXPECT_EQ(load_error(bad("bad_return"), "rocelb/out_of_range"), "loaded");
  for (const char* e : {"ecmp", "letflow", "drill", "least_queue", "qp_message_spray"})
    EXPECT_EQ(load_error(example(e)), "loaded") << e;
}

LbGroupSpec spec(LbMode mode, uint32_t n, std::shared_ptr<const LbBpfProgram> prog = nullptr) {
  LbGroupSpec s;
  s.mode = mode;
  s.weights.assign(n, 1);
  s.seed = 0x5eed;
  s.knobs.idle_time_ns = 2'000;
  s.knobs.max_flows = 256;
  s.bpf = std::move(prog);
  return s;
}

TEST(BpfPolicy, AnIndexOutOfRangeOrDownIsDroppedAndCounted) {
  std::vector<MemberPath> paths(4);
  for (auto& p : paths) p.speed_bps = 100'000'000'000;
  LbEngine out(spec(LbMode::kBpf, 4, load_bpf_policy(bad("bad_return"), "out_of_range", true)), 0);
  EXPECT_EQ(out.select(1, 100, 0, paths.data(), nullptr), kNoMember);
  EXPECT_EQ(out.counters().bpf_refused, 1u);
  EXPECT_EQ(out.counters().decisions, 0u);
  paths[2].up = false;
  LbEngine down(spec(LbMode::kBpf, 4, load_bpf_policy(bad("bad_return"), "down_member", true)), 0);
  EXPECT_EQ(down.select(1, 100, 0, paths.data(), nullptr), kNoMember);
  EXPECT_EQ(down.counters().bpf_refused, 1u);
}

// One stream of packets through a native engine and a policy: the same
// member for every packet. Flows come and go with gaps around idle_time,
// and queue depths change between bursts, so flowlets expire and DRILL's
// comparisons matter.
void expect_identical(LbMode native, const std::string& policy, bool jit, uint32_t n) {
  LbEngine a(spec(native, n), 3);
  LbEngine b(spec(LbMode::kBpf, n, load_bpf_policy(example(policy), "", jit)), 3);
  std::mt19937_64 rng(7);
  std::vector<MemberPath> pa(n), pb(n);
  uint64_t now = 0;
  uint32_t differ = 0, decided = 0;
  for (int burst = 0; burst < 3000; ++burst) {
    for (uint32_t k = 0; k < n; ++k) {
      pa[k].queue_bytes = rng() % 200'000;
      pa[k].speed_bps = 100'000'000'000;
    }
    pb = pa;
    now += rng() % 3'000;
    uint32_t hashes[16], bytes[16], oa[16], ob[16];
    const uint32_t cnt = 1 + rng() % 16;
    for (uint32_t i = 0; i < cnt; ++i) {
      hashes[i] = static_cast<uint32_t>(rng() % 40) * 0x9e3779b1u;  // 40 flows
      bytes[i] = 64 + rng() % 1400;
    }
    a.select_burst(hashes, bytes, cnt, now, pa.data(), oa, nullptr);
    b.select_burst(hashes, bytes, cnt, now, pb.data(), ob, nullptr);
    for (uint32_t i = 0; i < cnt; ++i) {
      differ += oa[i] != ob[i];
      ++decided;
    }
  }
  EXPECT_EQ(differ, 0u) << policy << (jit ? " (JIT)" : " (interpreter)") << ": " << differ << " of "
                        << decided << " decisions differ";
  EXPECT_EQ(b.counters().bpf_refused, 0u);
  for (uint32_t k = 0; k < n; ++k)
    EXPECT_EQ(a.counters().member_packets[k], b.counters().member_packets[k]) << policy << k;
}

TEST(BpfPolicy, ExamplesDecideExactlyAsTheEnginesTheyMirror) {
  for (bool jit : {true, false})
    for (uint32_t n : {1u, 2u, 4u, 7u}) {
      expect_identical(LbMode::kFixed, "ecmp", jit, n);
      expect_identical(LbMode::kFlowletRandom, "letflow", jit, n);
      expect_identical(LbMode::kDrill, "drill", jit, n);
    }
}

TEST(BpfPolicy, MembersGoingDownAndUpKeepTheExamplesIdentical) {
  // ecmp and letflow follow the up set as the engines do; so does drill,
  // which restarts its permutation when the set changes.
  for (auto [mode, policy] :
       {std::pair{LbMode::kFixed, "ecmp"}, std::pair{LbMode::kFlowletRandom, "letflow"},
        std::pair{LbMode::kDrill, "drill"}}) {
    LbEngine a(spec(mode, 6), 0);
    LbEngine b(spec(LbMode::kBpf, 6, load_bpf_policy(example(policy), "", true)), 0);
    std::mt19937_64 rng(11);
    std::vector<MemberPath> pa(6);
    uint32_t differ = 0;
    for (int step = 0; step < 20000; ++step) {
      if (step % 500 == 0)
        for (auto& p : pa) p.up = rng() % 4 != 0;
      for (auto& p : pa) p.queue_bytes = rng() % 100'000;
      std::vector<MemberPath> pb = pa;
      const uint32_t h = static_cast<uint32_t>(rng() % 50) * 0x85ebca6bu;
      differ += a.select(h, 1000, step * 700ull, pa.data(), nullptr) !=
                b.select(h, 1000, step * 700ull, pb.data(), nullptr);
    }
    EXPECT_EQ(differ, 0u) << policy;
  }
}

TEST(BpfPolicy, RandomContextsNeverTakeTheHostOutOfBounds) {
  std::mt19937_64 rng(5);
  for (const char* p : {"ecmp", "letflow", "drill", "least_queue", "qp_message_spray"}) {
    for (uint32_t n : {1u, 3u, 17u, 64u}) {
      LbEngine e(spec(LbMode::kBpf, n, load_bpf_policy(example(p), "", true)), 0);
      std::vector<MemberPath> paths(n);
      LbPacketFields f[8]{};
      for (int step = 0; step < 2000; ++step) {
        for (auto& m : paths) {
          m.up = rng() % 3 != 0;
          m.queue_bytes = rng();
          m.load_bps = rng();
          m.speed_bps = 1 + rng() % 400'000'000'000ull;
        }
        uint32_t h[8], bytes[8], out[8];
        for (int i = 0; i < 8; ++i) {
          h[i] = static_cast<uint32_t>(rng());
          bytes[i] = static_cast<uint32_t>(rng());
          f[i].opcode = static_cast<uint8_t>(rng());
          f[i].dest_qp = static_cast<uint32_t>(rng());
          f[i].psn = static_cast<uint32_t>(rng());
        }
        e.select_burst(h, bytes, 8, rng(), paths.data(), out, nullptr, f);
        for (uint32_t i = 0; i < 8; ++i)
          ASSERT_TRUE(out[i] == kNoMember || (out[i] < n && paths[out[i]].up))
              << p << " n " << n << " chose " << out[i];
      }
    }
  }
}

}  // namespace
}  // namespace rocelb
