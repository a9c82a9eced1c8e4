// Reads a user's input file whole, with a bound: only a regular file (a
// FIFO, device or directory is refused before anything blocks on it: the
// open is non-blocking), and no more than `limit` bytes (checked on the
// size at open and again while reading, for a file that grows). Every
// reader of a file a user names (configs, topologies, workloads, CDFs,
// scenarios, policy objects) goes through here.
// Errors: BoundedFileError, one line: "cannot read WHAT "PATH": why", where
// why is errno's text, "not a regular file (a FIFO)" or "N bytes, over the
// limit of 16 MiB for this file".
// Knobs: the limits below. No counters.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace rocelb {

// YAML a user writes (switch config, topology, nic, workload, scenario).
inline constexpr size_t kMaxYamlFileBytes = size_t{16} << 20;
// A flow-size CDF (a few hundred lines in every published one).
inline constexpr size_t kMaxCdfFileBytes = size_t{1} << 20;
// A compiled eBPF policy (ELF).
inline constexpr size_t kMaxBpfObjectBytes = size_t{16} << 20;

class BoundedFileError : public std::runtime_error {
 public:
  BoundedFileError(const std::string& message, std::string why)
      : std::runtime_error(message), why_(std::move(why)) {}
  // The reason alone ("No such file or directory", "not a regular file (a
  // FIFO)", ...), for callers that name the file their own way.
  const std::string& why() const { return why_; }

 private:
  std::string why_;
};

// "12 MiB", "512 KiB", "100 B": how the limits read in messages.
std::string byte_limit_text(size_t bytes);

std::string read_bounded_file(const std::string& path, size_t limit, const std::string& what);

}  // namespace rocelb
