// The output folder of one replay, all or nothing. Outputs are written into a
// private folder inside it (".rocelb-replay.XXXXXX", same file system, so a
// move is a rename) and commit() moves them into place together: it first
// checks that no destination is a directory (a rename replaces a file, not a
// folder), then moves each output, setting aside the file it replaces; a move
// that still fails puts back every output moved and every file set aside
// (should that fail too, the private folder stays with them, and the error
// says where). Without a commit (an error, an exception) nothing lands: the
// private folder goes, and so do the folders made for the output folder, if
// still empty.
//
// Knobs: none. Counters: none. Errors: OutputDirError, one line naming the
// path and the rule.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace rocelb {

class OutputDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputDir {
 public:
  // Makes `dir` (and its missing parents) and the private folder in it.
  explicit OutputDir(const std::string& dir);
  ~OutputDir();  // without a commit: removes what this run made
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Where the output `name` is written until commit().
  std::string staged(const std::string& name) const;
  // Throws if some output could not replace what is at its destination.
  void check(const std::vector<std::string>& names) const;
  // Moves the staged outputs `names` into place: all of them, or none.
  void commit(const std::vector<std::string>& names);

 private:
  using path = std::filesystem::path;
  struct Moved {
    path dest;
    bool placed = false;  // the staged output is at dest
    path set_aside;       // where what was at dest went, or empty
  };
  void make_dirs();
  void remove_made();
  std::string roll_back(const std::vector<Moved>& moved);

  path dir_;
  path private_;
  std::vector<path> made_;  // folders this run made, outermost first
  bool committed_ = false;
  bool keep_private_ = false;
};

}  // namespace rocelb
