// Mode bpf's validation budget (dataplane/bpf/bpf_validation_cost.h): the
// count of DPDK validator steps is an upper bound (checked against the
// validator's own per-step debug log), a program over the budget is refused at once
// with the reason, and a policy is read once, whole, from a regular file.
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <rte_log.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bpf_test_files.h"
#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/bpf/bpf_policy_loader.h"
#include "dataplane/bpf/bpf_validation_cost.h"
#include "dataplane/forward/switch_config.h"
#include "test_support.h"

namespace rocelb {
namespace {

using test::bad;
using test::contains;
using test::example;
using test::load_error;

constexpr uint8_t kAdd = 0x07, kJeq = 0x15, kJa = 0x05, kExit = 0x95, kLdImm64 = 0x18;
BpfInsn insn(uint8_t code, int16_t off = 0) {
  return BpfInsn{code, 0, off, 0};
}

TEST(BpfValidationCost, CountsEveryPathThroughEveryInstruction) {
  // A straight line: each instruction once.
  std::vector<BpfInsn> line{insn(kAdd), insn(kAdd), insn(kAdd), insn(kExit)};
  EXPECT_EQ(bpf_validation_steps(line.data(), 4, 1'000), 4u);
  // k diamonds in a row: (jeq +1; add) each; 2^i paths into diamond i.
  for (int k : {1, 2, 5, 10}) {
    std::vector<BpfInsn> p;
    for (int i = 0; i < k; ++i) {
      p.push_back(insn(kJeq, 1));
      p.push_back(insn(kAdd));
    }
    p.push_back(insn(kExit));
    // Diamond i: its jump reached by 2^i paths, its add by 2^i (one arm);
    // the exit by 2^k.
    uint64_t want = 0;
    for (int i = 0; i < k; ++i) want += (uint64_t{1} << i) * 2;
    want += uint64_t{1} << k;
    EXPECT_EQ(bpf_validation_steps(p.data(), uint32_t(p.size()), UINT64_MAX), want) << k;
  }
  // lddw takes two slots; a jump over it lands on the next instruction.
  std::vector<BpfInsn> wide{insn(kLdImm64), insn(0), insn(kExit)};
  EXPECT_EQ(bpf_validation_steps(wide.data(), 3, 100), 2u);
  // Saturates at the cap.
  std::vector<BpfInsn> many;
  for (int i = 0; i < 60; ++i) many.push_back(insn(kJeq, 0));
  many.push_back(insn(kExit));
  EXPECT_EQ(bpf_validation_steps(many.data(), uint32_t(many.size()), 5'000), 5'000u);
  // A loop or a jump out of the program: left to the validator.
  std::vector<BpfInsn> loop{insn(kAdd), insn(kJa, -2), insn(kExit)};
  EXPECT_FALSE(bpf_validation_steps(loop.data(), 3, 100).has_value());
  std::vector<BpfInsn> out{insn(kJa, 5), insn(kExit)};
  EXPECT_FALSE(bpf_validation_steps(out.data(), 2, 100).has_value());
}

// The validator's own count: 22.11 logs one "(pc=N):" debug line per step.
TEST(BpfValidationCost, BoundsTheValidatorsOwnCount) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* log = open_memstream(&buf, &len);
  ASSERT_NE(log, nullptr);
  FILE* before = rte_log_get_stream();
  rte_openlog_stream(log);
  const int level = rte_log_get_level(rte_log_register("lib.bpf"));
  rte_log_set_level_pattern("lib.bpf", RTE_LOG_DEBUG);
  const std::string result = load_error(bad("bad_branches"), "branches12");
  rte_log_set_level_pattern("lib.bpf", level > 0 ? uint32_t(level) : RTE_LOG_INFO);
  rte_openlog_stream(before);
  fclose(log);
  const std::string text(buf, len);
  free(buf);
  ASSERT_EQ(result, "loaded");
  uint64_t logged = 0;
  for (size_t at = text.find("(pc="); at != std::string::npos; at = text.find("(pc=", at + 1))
    if (text.compare(at > 14 ? at - 14 : 0, 14, "log_eval_state") == 0) ++logged;
  EXPECT_GT(logged, 4096u) << "12 branches in a row: at least 2^12 paths";
  // The estimate bounds it, and a budget of the estimate loads it.
  bpf_object* obj = bpf_object__open_file(bad("bad_branches").c_str(), nullptr);
  ASSERT_NE(obj, nullptr);
  bpf_program* prog = bpf_object__find_program_by_name(obj, "branches12");
  ASSERT_NE(prog, nullptr);
  const std::optional<uint64_t> estimated =
      bpf_validation_steps(reinterpret_cast<const BpfInsn*>(bpf_program__insns(prog)),
                           uint32_t(bpf_program__insn_cnt(prog)), UINT64_MAX);
  bpf_object__close(obj);
  ASSERT_TRUE(estimated.has_value());
  EXPECT_GE(*estimated, logged);
  EXPECT_LT(*estimated, 2 * logged) << "a bound, not a wild guess";
  EXPECT_EQ(load_error(bad("bad_branches"), "branches12", *estimated), "loaded");
  const std::string refused = load_error(bad("bad_branches"), "branches12", *estimated - 1);
  EXPECT_TRUE(contains(refused, "could take more than " + std::to_string(*estimated - 1)))
      << refused;
}

TEST(BpfValidationCost, AProgramOverTheBudgetIsRefusedAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = load_error(bad("bad_branches"), "branches40");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(contains(e, "branches40: its validation could take more than 10000000 steps")) << e;
  EXPECT_TRUE(contains(e, "over bpf.validation_steps 10000000")) << e;
  std::printf("branches40 refused in %.3f s\n", s);
  // Under the default budget: loads. Under a budget of 100: refused.
  EXPECT_EQ(load_error(bad("bad_branches"), "branches12"), "loaded");
  EXPECT_TRUE(contains(load_error(bad("bad_branches"), "branches12", 100),
                       "over bpf.validation_steps 100"));
  // Every example fits a tenth of the default budget.
  for (const char* name : {"ecmp", "letflow", "drill", "least_queue", "qp_message_spray"})
    EXPECT_EQ(load_error(example(name), "", kDefaultBpfValidationSteps / 10), "loaded") << name;
}

// The steps the validator may take for branches12 (bad_branches.c).
uint64_t branches12_steps() {
  bpf_object* obj = bpf_object__open_file(bad("bad_branches").c_str(), nullptr);
  bpf_program* prog = obj ? bpf_object__find_program_by_name(obj, "branches12") : nullptr;
  const std::optional<uint64_t> steps =
      prog ? bpf_validation_steps(reinterpret_cast<const BpfInsn*>(bpf_program__insns(prog)),
                                  uint32_t(bpf_program__insn_cnt(prog)), UINT64_MAX)
           : std::nullopt;
  if (obj) bpf_object__close(obj);
  return steps.value_or(0);
}

// One config change loads its new policies within one budget, the largest
// bpf.validation_steps of its groups, not one budget per group: a write of
// many groups, each on a policy near its own budget (a distinct file,
// section or budget is a load of its own), cannot keep the control thread,
// and with it SIGTERM, for many budgets' time.
TEST(BpfValidationCost, ThePoliciesOneChangeLoadsShareOneBudget) {
  ASSERT_NO_THROW(test::start_eal());  // the route tables are DPDK's
  const uint64_t s = branches12_steps();
  ASSERT_GT(s, 4096u);
  const std::string file = bad("bad_branches");
  auto group = [&](const std::string& name, uint64_t budget) {
    return "groups." + name + "={mode: bpf, members: [10.1.4.2, 10.1.5.2], bpf: {program: " + file +
           ", section: branches12, validation_steps: " + std::to_string(budget) + "}}";
  };
  auto build = [&](const std::vector<std::string>& sets) -> std::string {
    try {
      const ConfigParams p =
          load_config_text(std::string(embedded_default_config()), "sw.yaml", sets);
      SwitchConfig::build(p);
      return "built";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  // Each fits its own budget; two loads do not fit the largest one.
  EXPECT_EQ(build({group("a", s)}), "built");
  const std::string two = build({group("a", s + 1), group("b", s + 2)});
  EXPECT_TRUE(contains(two, "--set " + group("b", s + 2) + ": groups.b.bpf.program: ")) << two;
  EXPECT_TRUE(contains(two, "branches12: its validation could take " + std::to_string(s) +
                                " steps, more than the 2 left of this change's " +
                                std::to_string(s + 2)))
      << two;
  EXPECT_TRUE(contains(two,
                       "the policies one config change loads share the largest "
                       "bpf.validation_steps of their groups"))
      << two;
  // With room for both, both load; groups on the same policy share one load.
  EXPECT_EQ(build({group("a", s), group("b", 2 * s)}), "built");
  EXPECT_EQ(build({group("a", s), group("b", s), group("c", s)}), "built");
}

TEST(BpfPolicyFile, OnlyARegularFileIsReadAndNeverBlocks) {
  const std::string fifo = testing::TempDir() + "policy_fifo.o";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string e = load_error(fifo, "");
  EXPECT_TRUE(contains(e, "not a regular file (a FIFO)")) << e;
  ::unlink(fifo.c_str());
  EXPECT_TRUE(contains(load_error("/dev/zero", ""), "not a regular file (a character device)"));
  EXPECT_TRUE(contains(load_error(testing::TempDir(), ""), "not a regular file (a directory)"));
  // Over the size limit: refused by its size, not read.
  const std::string big = testing::TempDir() + "big_policy.o";
  {
    std::ofstream f(big, std::ios::binary);
    f << "\x7f"
         "ELF";
  }
  std::filesystem::resize_file(big, (size_t{16} << 20) + 1);
  const std::string b = load_error(big, "");
  EXPECT_TRUE(contains(b, "over the limit of 16 MiB for this file")) << b;
  std::filesystem::remove(big);
}

TEST(BpfPolicyFile, WhatRunsIsWhatWasReadWhateverTheFileBecomes) {
  const std::string path = testing::TempDir() + "swapped_policy.o";
  std::filesystem::copy_file(example("ecmp"), path,
                             std::filesystem::copy_options::overwrite_existing);
  auto prog = load_bpf_policy(path, "", true);
  // The file is replaced by garbage: the loaded program does not care.
  std::ofstream(path, std::ios::trunc) << "garbage";
  rocelb_ctx ctx{};
  ctx.n_members = 4;
  ctx.n_up = 4;
  for (uint32_t h : {0u, 0x40000000u, 0x80000000u, 0xc0000000u}) {
    ctx.hash = h;
    EXPECT_EQ(prog->run(&ctx), uint64_t(h >> 30)) << h;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rocelb
