// Files a control client names are opened with that client's rights, not
// the switch's: while a PeerFileRights lives, the calling thread's
// filesystem uid and gid are the peer's and its supplementary groups are
// the peer's, all as the kernel recorded them when it connected
// (ControlPeer: SO_PEERCRED, SO_PEERGROUPS; the gid alone when the groups
// are unknown). Never read from /proc/PID: the process that connected may
// have handed the connection on and exited, and its pid gone to a process
// with other groups. Linux keeps these per thread (setfsuid, setfsgid and
// the raw setgroups system call; glibc's setgroups() would change every
// thread), so forwarding and other threads keep the switch's rights. The
// destructor gives the thread its own rights back.
// Does nothing when the switch does not run as root (it then has no more
// rights than its own user, who may connect anyway) or when the peer is
// root or the switch's own uid.
// Use it only around code that opens the client's files: with fsuid not 0
// the thread has no CAP_CHOWN or CAP_DAC_OVERRIDE either.
// Throws std::runtime_error if the thread's identity cannot be switched.
// No knobs, no counters.
#pragma once

#include <sys/types.h>

#include <vector>

namespace rocelb {

class PeerFileRights {
 public:
  PeerFileRights(uid_t uid, gid_t gid, const std::vector<gid_t>& groups);
  ~PeerFileRights();
  PeerFileRights(const PeerFileRights&) = delete;
  PeerFileRights& operator=(const PeerFileRights&) = delete;

  bool active() const { return active_; }

 private:
  void restore();
  bool active_ = false;
  uid_t saved_fsuid_ = 0;
  gid_t saved_fsgid_ = 0;
  std::vector<gid_t> saved_groups_;
};

}  // namespace rocelb
