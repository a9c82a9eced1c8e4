#include "control/yaml_document.h"

#include <sstream>
#include <unordered_set>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include "control/yaml_util.h"

namespace rocelb {
namespace {

// Thrown out of the event handler to stop the parser at a broken rule.
struct Refused {
  YAML::Mark mark;
  std::string path;
  bool duplicate = false;  // else: too many nodes
};

// Counts the nodes of the event stream, refuses a key a map already has,
// and keeps the key path of the node being read, to say where.
class NodeCounter : public YAML::EventHandler {
 public:
  explicit NodeCounter(size_t limit) : limit_(limit) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override { stack_.clear(); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    node(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({false, 0, {}});
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({true, 0, {}});
  }
  void OnMapEnd() override { stack_.pop_back(); }

 private:
  struct Frame {
    bool map = false;
    size_t items = 0;                      // map: keys and values so far; list: items so far
    std::string key;                       // map: the key being read or whose value is
    std::unordered_set<std::string> keys;  // map: its string keys so far
  };

  // A node starts: a key or value of the map on top, or an item of the list.
  void node(const YAML::Mark& m, const std::string* scalar) {
    if (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.map && f.items % 2 == 0) {
        f.key = scalar ? *scalar : "?";
        // Only string keys repeat; a map or list as a key is the readers' to refuse.
        if (scalar && !f.keys.insert(*scalar).second) {
          ++f.items;
          throw Refused{m, path(), true};
        }
      }
      ++f.items;
    }
    if (++count_ > limit_) throw Refused{m, path(), false};
  }

  std::string path() const {
    std::string out;
    for (const Frame& f : stack_)
      out = f.map ? join_path(out, f.key) : index_path(out, f.items - 1);
    return out;
  }

  size_t limit_;
  size_t count_ = 0;
  std::vector<Frame> stack_;
};

std::string where(const std::string& source, const YAML::Mark& m) {
  if (m.is_null()) return source;
  return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& source,
                              size_t max_nodes) {
  size_t docs = 0;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    NodeCounter counter(max_nodes);
    while (docs < 2 && parser.HandleNextDocument(counter)) ++docs;
  } catch (const Refused& e) {
    const std::string at = where(source, e.mark) + ": " + (e.path.empty() ? "" : e.path + ": ");
    if (e.duplicate) throw YamlDocumentError(at + "duplicate key");
    throw YamlDocumentError(at + "more than " + std::to_string(max_nodes) +
                            " YAML nodes (keys, values, lists and maps): the limit of one file, "
                            "about " +
                            std::to_string((max_nodes / 2000) + (max_nodes % 2000 != 0)) +
                            " MB in memory");
  } catch (const YAML::Exception& e) {
    throw YamlDocumentError(yaml_error_where(source, e) + ": invalid YAML: " + e.msg);
  }
  if (docs > 1)
    throw YamlDocumentError(source + ": expected one YAML document, found more (separated by ---)");
  if (docs == 0) return YAML::Node(YAML::NodeType::Null);
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw YamlDocumentError(yaml_error_where(source, e) + ": invalid YAML: " + e.msg);
  }
}

}  // namespace rocelb
