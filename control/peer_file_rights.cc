#include "control/peer_file_rights.h"

#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rocelb {
namespace {

// This thread only: the kernel keeps credentials per thread.
int thread_setgroups(const std::vector<gid_t>& groups) {
  return static_cast<int>(::syscall(SYS_setgroups, groups.size(), groups.data()));
}

}  // namespace

PeerFileRights::PeerFileRights(uid_t uid, gid_t gid, const std::vector<gid_t>& peer_groups) {
  if (::geteuid() != 0 || uid == 0 || uid == ::geteuid()) return;
  std::vector<gid_t> groups = peer_groups;
  if (groups.empty()) groups.push_back(gid);
  const int n = ::getgroups(0, nullptr);
  saved_groups_.resize(n > 0 ? size_t(n) : 0);
  if (n > 0 && ::getgroups(n, saved_groups_.data()) != n)
    throw std::runtime_error(std::string("cannot read this thread's groups: ") +
                             std::strerror(errno));
  saved_fsgid_ = ::getegid();
  saved_fsuid_ = ::geteuid();
  if (thread_setgroups(groups) != 0)
    throw std::runtime_error(std::string("cannot take the client's groups: ") +
                             std::strerror(errno));
  ::setfsgid(gid);
  ::setfsuid(uid);
  active_ = true;
  // setfsuid answers with the previous value whatever happens: ask again.
  if (static_cast<uid_t>(::setfsuid(uid)) != uid || static_cast<gid_t>(::setfsgid(gid)) != gid) {
    restore();
    throw std::runtime_error("cannot open files with the client's rights (setfsuid refused)");
  }
}

PeerFileRights::~PeerFileRights() {
  restore();
}

void PeerFileRights::restore() {
  if (!active_) return;
  ::setfsuid(saved_fsuid_);
  ::setfsgid(saved_fsgid_);
  thread_setgroups(saved_groups_);
  active_ = false;
}

}  // namespace rocelb
