// The config the daemon owns: reads its file, validates the text exactly as
// the switch would (load_config_text, so a mistake is reported as
// "FILE: key.path: value: rule"), and remembers the last text the switch
// accepted ("last good"), which is what a restarted switch gets again.
//
// read() never changes last good: a file that is missing, unreadable or
// invalid leaves the running config as it is. accept() is called once the
// switch has applied a text.
#pragma once

#include <optional>
#include <string>

namespace rocelb {

struct ConfigRead {
  bool ok = false;
  std::string text;   // when ok: the file's bytes, as read
  std::string error;  // when not ok: one line, naming the file
};

class ConfigKeeper {
 public:
  explicit ConfigKeeper(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // Reads and validates the file.
  ConfigRead read() const;

  // The switch applied `text`: it becomes last good.
  void accept(std::string text) { last_good_ = std::move(text); }
  const std::optional<std::string>& last_good() const { return last_good_; }

 private:
  std::string path_;
  std::optional<std::string> last_good_;
};

}  // namespace rocelb
