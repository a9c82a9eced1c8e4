#include "dataplane/bpf/bpf_policy_loader.h"

#include "dataplane/bpf/libbpf_messages.h"

#include "control/bounded_file.h"
#include "dataplane/bpf/bpf_validation_cost.h"

#include <bpf/libbpf.h>
#include <rte_bpf.h>
#include <rte_errno.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace rocelb {
namespace {

constexpr const char* kPrefix = "rocelb/";

struct Object {
  bpf_object* obj = nullptr;  // opened from the bytes read (BpfPolicyFile)
  ~Object() {
    if (obj) bpf_object__close(obj);
  }
};

std::string name_of(const char* section) {
  const std::string s = section ? section : "";
  return s.rfind(kPrefix, 0) == 0 ? s.substr(std::strlen(kPrefix)) : s;
}

// The program rte_bpf runs: freed with the last engine using it.
struct RteBpfProgram : LbBpfProgram {
  rte_bpf* bpf = nullptr;
  ~RteBpfProgram() override {
    if (bpf) rte_bpf_destroy(bpf);
  }
};

uint64_t interpret(const void* prog, void* ctx) {
  return rte_bpf_exec(static_cast<const rte_bpf*>(prog), ctx);
}

void open(const BpfPolicyFile& f, Object& o) {
  keep_libbpf_messages();
  bpf_object_open_opts opts{};
  opts.sz = sizeof(opts);
  opts.object_name = f.file.c_str();
  o.obj = bpf_object__open_mem(f.bytes.data(), f.bytes.size(), &opts);
  if (!o.obj) {
    o.obj = nullptr;
    throw BpfPolicyError(
        f.file + ": libbpf cannot open it: " +
        (last_libbpf_message().empty() ? std::strerror(errno) : last_libbpf_message()));
  }
}

}  // namespace

std::shared_ptr<const BpfPolicyFile> read_bpf_policy(const std::string& file) {
  // Read once, whole, with a bound (a FIFO or a device is refused before it
  // can block): what runs is what was read now, whatever the file becomes.
  auto f = std::make_shared<BpfPolicyFile>();
  f->file = file;
  try {
    f->bytes = read_bounded_file(file, kMaxBpfObjectBytes, "eBPF policy");
  } catch (const BoundedFileError& e) {
    throw BpfPolicyError(e.what());
  }
  if (f->bytes.size() < 4 || std::memcmp(f->bytes.data(),
                                         "\x7f"
                                         "ELF",
                                         4) != 0)
    throw BpfPolicyError(file +
                         ": not an ELF object (compile the policy with clang -O2 -target "
                         "bpf -c)");
  return f;
}

std::vector<std::string> bpf_policy_sections(const std::string& file) {
  Object o;
  const auto f = read_bpf_policy(file);
  open(*f, o);
  std::vector<std::string> out;
  bpf_program* p = nullptr;
  while ((p = bpf_object__next_program(o.obj, p)) != nullptr)
    out.push_back(name_of(bpf_program__section_name(p)));
  return out;
}

std::shared_ptr<const LbBpfProgram> load_bpf_policy(const std::string& file,
                                                    const std::string& section, bool jit,
                                                    uint64_t validation_steps,
                                                    BpfChangeBudget* change) {
  return load_bpf_policy(*read_bpf_policy(file), section, jit, validation_steps, change);
}

std::shared_ptr<const LbBpfProgram> load_bpf_policy(const BpfPolicyFile& elf,
                                                    const std::string& section, bool jit,
                                                    uint64_t validation_steps,
                                                    BpfChangeBudget* change) {
  const std::string& file = elf.file;
  Object o;
  open(elf, o);
  std::vector<bpf_program*> progs;
  std::string names;
  bpf_program* p = nullptr;
  while ((p = bpf_object__next_program(o.obj, p)) != nullptr) {
    progs.push_back(p);
    names += (names.empty() ? "" : ", ") + name_of(bpf_program__section_name(p));
  }
  if (progs.empty()) throw BpfPolicyError(file + ": no program in it");
  bpf_program* prog = nullptr;
  if (section.empty()) {
    if (progs.size() > 1)
      throw BpfPolicyError(file + ": " + std::to_string(progs.size()) + " policies (" + names +
                           "): say which with bpf.section");
    prog = progs[0];
  } else {
    for (bpf_program* q : progs)
      if (name_of(bpf_program__section_name(q)) == name_of(section.c_str())) prog = q;
    if (!prog) throw BpfPolicyError(file + ": no section " + section + " (it has: " + names + ")");
  }
  const std::string where = file + ": " + name_of(bpf_program__section_name(prog));
  if (bpf_object__next_map(o.obj, nullptr) != nullptr)
    throw BpfPolicyError(where +
                         ": uses maps or global data (.data, .rodata, .bss): a policy "
                         "keeps its state in the context's flow[] and group[]");

  // rte_bpf's validator follows every path with no budget of its own: its
  // work is counted first, and a program over the budget never reaches it.
  const auto* insns = reinterpret_cast<const BpfInsn*>(bpf_program__insns(prog));
  const auto n_insns = static_cast<uint32_t>(bpf_program__insn_cnt(prog));
  const uint64_t cap = validation_steps == UINT64_MAX ? UINT64_MAX : validation_steps + 1;
  const std::optional<uint64_t> steps = bpf_validation_steps(insns, n_insns, cap);
  if (steps && *steps > validation_steps)
    throw BpfPolicyError(
        where + ": its validation could take " +
        (*steps >= cap ? "more than " + std::to_string(validation_steps) : std::to_string(*steps)) +
        " steps (the validator checks every path through its branches), over "
        "bpf.validation_steps " +
        std::to_string(validation_steps) +
        ": use fewer branches in a row (lb/bpf/README.md), or raise the budget");
  if (change) {
    const uint64_t counted = steps.value_or(0);  // a loop: the validator refuses it at once
    if (counted > change->left)
      throw BpfPolicyError(where + ": its validation could take " + std::to_string(counted) +
                           " steps, more than the " + std::to_string(change->left) +
                           " left of this change's " + std::to_string(change->total) +
                           " (the policies one config change loads share the largest "
                           "bpf.validation_steps of their groups): load fewer new policies at "
                           "once, or raise a group's bpf.validation_steps");
    change->left -= counted;
  }

  rte_bpf_prm prm{};
  prm.ins = reinterpret_cast<const ebpf_insn*>(insns);
  prm.nb_ins = n_insns;
  prm.prog_arg.type = RTE_BPF_ARG_PTR;
  prm.prog_arg.size = sizeof(rocelb_ctx);
  auto out = std::make_shared<RteBpfProgram>();
  out->bpf = rte_bpf_load(&prm);
  if (!out->bpf)
    throw BpfPolicyError(where + ": refused by the validator (" + rte_strerror(rte_errno) +
                         "; rte_bpf's log says which instruction)");
  out->file = file;
  out->section = name_of(bpf_program__section_name(prog));
  rte_bpf_jit j{};
  if (jit && rte_bpf_get_jit(out->bpf, &j) == 0 && j.func) {
    out->jit = j.func;
  } else {
    if (jit) std::cerr << "rocelb: " << where << ": no JIT on this host, the interpreter runs it\n";
    out->exec = interpret;
    out->prog = out->bpf;
  }
  return out;
}

}  // namespace rocelb
