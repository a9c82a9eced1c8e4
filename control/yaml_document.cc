#include "control/yaml_document.h"

#include <sstream>
#include <unordered_map>
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
  enum Rule { kTooMany, kDuplicate, kRecursive } rule = kTooMany;
};

// Counts the nodes of the event stream (an alias as the nodes it stands
// for, as a walk of the tree meets them), refuses a key a map already has
// and an alias inside the node it names, and keeps the key path of the
// node being read, to say where.
class NodeCounter : public YAML::EventHandler {
 public:
  explicit NodeCounter(size_t limit, bool refuse_duplicates = true)
      : limit_(limit), refuse_duplicates_(refuse_duplicates) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {
    stack_.clear();
    sizes_.clear();
  }
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
    node(m, nullptr);
    if (anchor) sizes_[anchor] = 1;
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    if (it == sizes_.end()) {
      node(m, nullptr);
      throw Refused{m, path(), Refused::kRecursive};
    }
    node(m, nullptr, it->second);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    node(m, &value);
    if (anchor) sizes_[anchor] = 1;
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(m, false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(m, true, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool map = false;
    size_t items = 0;                      // map: keys and values so far; list: items so far
    std::string key;                       // map: the key being read or whose value is
    std::unordered_set<std::string> keys;  // map: its string keys so far
    YAML::anchor_t anchor = YAML::NullAnchor;
    size_t first = 0;  // the count before this node
  };

  void open(const YAML::Mark& m, bool map, YAML::anchor_t anchor) {
    const size_t first = count_;
    node(m, nullptr);
    stack_.push_back({map, 0, {}, {}, anchor, first});
  }
  void close() {
    const Frame& f = stack_.back();
    if (f.anchor) sizes_[f.anchor] = count_ - f.first;
    stack_.pop_back();
  }

  // A node starts: a key or value of the map on top, or an item of the
  // list; `weight` nodes (an alias: the nodes it stands for).
  void node(const YAML::Mark& m, const std::string* scalar, size_t weight = 1) {
    if (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.map && f.items % 2 == 0) {
        f.key = scalar ? *scalar : "?";
        // Only string keys repeat; a map or list as a key is the readers' to refuse.
        if (scalar && refuse_duplicates_ && !f.keys.insert(*scalar).second) {
          ++f.items;
          throw Refused{m, path(), Refused::kDuplicate};
        }
      }
      ++f.items;
    }
    count_ += weight;
    if (count_ > limit_) throw Refused{m, path(), Refused::kTooMany};
  }

  std::string path() const {
    std::string out;
    for (const Frame& f : stack_)
      out = f.map ? join_path(out, f.key) : index_path(out, f.items - 1);
    return out;
  }

  size_t limit_;
  bool refuse_duplicates_;
  size_t count_ = 0;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, size_t> sizes_;  // a finished anchored node's nodes
};

std::string where(const std::string& source, const YAML::Mark& m) {
  if (m.is_null()) return source;
  return source + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// The one line for a refusal of the counter; `whose`: "file" or "--set value".
YamlDocumentError refusal(const std::string& source, const Refused& e, size_t max_nodes,
                          const char* whose) {
  const std::string at = where(source, e.mark) + ": " + (e.path.empty() ? "" : e.path + ": ");
  if (e.rule == Refused::kDuplicate) return YamlDocumentError(at + "duplicate key");
  if (e.rule == Refused::kRecursive)
    return YamlDocumentError(at + "an alias inside the node it names (a structure without end)");
  return YamlDocumentError(
      at + "more than " + std::to_string(max_nodes) +
      " YAML nodes (keys, values, lists and maps): the limit of one " + whose + ", about " +
      std::to_string((max_nodes / 2000) + (max_nodes % 2000 != 0)) + " MB in memory");
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
    throw refusal(source, e, max_nodes, "file");
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

void check_yaml_value_nodes(const std::string& text, const std::string& source, size_t max_nodes) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    NodeCounter counter(max_nodes, false);
    parser.HandleNextDocument(counter);
  } catch (const Refused& e) {
    throw refusal(source, e, max_nodes, "--set value");
  } catch (const YAML::Exception& e) {
    throw YamlDocumentError(yaml_error_where(source, e) + ": invalid YAML: " + e.msg);
  }
}

}  // namespace rocelb
