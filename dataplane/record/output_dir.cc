#include "dataplane/record/output_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace rocelb {
namespace fs = std::filesystem;
namespace {

constexpr const char* kNothingWritten = "; nothing was written";

bool exists_here(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

OutputDir::OutputDir(const std::string& dir) : dir_(dir) {
  if (!dir_.has_filename() && dir_.has_parent_path()) dir_ = dir_.parent_path();  // "out/"
  make_dirs();
  std::string templ = (dir_ / ".rocelb-replay.XXXXXX").string();
  if (!mkdtemp(templ.data())) {
    const int err = errno;
    remove_made();  // no destructor runs for a constructor that throws
    throw OutputDirError("cannot write in output folder " + dir_.string() + ": " +
                         std::strerror(err));
  }
  private_ = templ;
}

OutputDir::~OutputDir() {
  if (keep_private_) return;  // holds files a failed roll-back could not put back
  std::error_code ec;
  if (!private_.empty()) fs::remove_all(private_, ec);  // with what commit() set aside
  if (!committed_) remove_made();
}

// The output folder and its missing parents, outermost first, each recorded
// so that a failed run can remove exactly what it made.
void OutputDir::make_dirs() {
  std::vector<path> missing;
  for (path p = dir_; !p.empty() && !exists_here(p); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code ec;
    const bool made = fs::create_directory(*it, ec);
    if (ec) {
      remove_made();
      throw OutputDirError("cannot create output folder " + dir_.string() + ": " + ec.message());
    }
    if (made) made_.push_back(*it);
  }
}

// Innermost first; a folder that is not empty (someone else's files) stays.
void OutputDir::remove_made() {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    std::error_code ec;
    fs::remove(*it, ec);
  }
  made_.clear();
}

std::string OutputDir::staged(const std::string& name) const {
  return (private_ / name).string();
}

// A rename replaces a file (or a symlink, or a FIFO), never a directory.
void OutputDir::check(const std::vector<std::string>& names) const {
  for (const auto& name : names) {
    const path dest = dir_ / name;
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(dest, ec)))
      throw OutputDirError(dest.string() +
                           " is a directory: an output replaces a file, never a directory" +
                           kNothingWritten);
  }
}

void OutputDir::commit(const std::vector<std::string>& names) {
  check(names);  // again: the folder may have changed during the run
  const path aside = private_ / ".replaced";
  std::error_code ec;
  fs::create_directory(aside, ec);
  if (ec)
    throw OutputDirError("cannot write in " + private_.string() + ": " + ec.message() +
                         kNothingWritten);
  std::vector<Moved> moved;
  for (const auto& name : names) {
    Moved& m = moved.emplace_back();
    m.dest = dir_ / name;
    std::string failed;
    if (exists_here(m.dest)) {
      fs::rename(m.dest, aside / name, ec);
      if (ec)
        failed = "cannot set aside " + m.dest.string() + ": " + ec.message();
      else
        m.set_aside = aside / name;
    }
    if (failed.empty()) {
      fs::rename(private_ / name, m.dest, ec);
      if (ec)
        failed = "cannot move " + (private_ / name).string() + " to " + m.dest.string() + ": " +
                 ec.message();
      else
        m.placed = true;
    }
    if (!failed.empty()) throw OutputDirError(failed + roll_back(moved));
  }
  committed_ = true;
}

// Undoes the moves, last first. Returns how the error message ends: nothing
// written, or what could not be put back (the private folder then stays,
// with the files set aside).
std::string OutputDir::roll_back(const std::vector<Moved>& moved) {
  std::string lost;
  for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
    std::error_code ec;
    if (it->placed) fs::remove(it->dest, ec);
    if (!ec && !it->set_aside.empty()) fs::rename(it->set_aside, it->dest, ec);
    if (ec) lost += "; could not put back " + it->dest.string() + ": " + ec.message();
  }
  if (lost.empty()) return kNothingWritten;
  keep_private_ = true;
  return lost + " (what it replaced is in " + private_.string() + ")";
}

}  // namespace rocelb
