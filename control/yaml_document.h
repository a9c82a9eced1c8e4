// Loads the one YAML document of a file a user wrote (a topology, a
// workload, a scenario) with a bound on how much memory its tree may take.
// yaml-cpp keeps about 500 bytes per node (each key, value, list and map),
// so a 16 MiB file of "- 0" lines would take 2 GB as a tree: the nodes are
// counted first on the parser's event stream, and a document over the
// limit is refused before any tree is built. (The stream holds no tree,
// but yaml-cpp's scanner keeps the tokens of a flow collection, [...] or
// {...}, until it closes, about 270 bytes each: a 16 MiB "[0,0,...]"
// still peaks near 2 GB before it is refused.)
// An alias counts as the nodes it stands for, as a walk of the tree (a
// clone, a dump, a check of every value) meets them: a "billion laughs" of
// nested aliases is refused, and so is an alias inside the node it names,
// which no walk would finish. The same pass refuses a key its map already
// has, at any depth (yaml-cpp keeps both entries and a lookup sees only the
// first, so the later value would be silently lost): the rule every rocelb
// file holds to (check_map_keys in yaml_util.h is the same rule for a map
// already loaded). More than one document is refused too (yaml-cpp 0.7's
// LoadAll can loop forever on some malformed input, so the documents are
// counted with a bounded walk of the event stream, as the config loader
// does).
// A `--set` VALUE (control/yaml_override.h) is counted the same way
// (check_yaml_value_nodes), its duplicate keys left to the config's reader,
// which names them with their whole key path.
// Knobs: kMaxYamlNodes, or the caller's limit. Counters: none.
// Errors: YamlDocumentError, one line:
//   "SOURCE:LINE:COLUMN: invalid YAML: why"
//   "SOURCE:LINE:COLUMN: KEY.PATH: duplicate key"
//   "SOURCE:LINE:COLUMN: KEY.PATH: an alias inside the node it names (a
//    structure without end)"
//   "SOURCE:LINE:COLUMN: KEY.PATH: more than N YAML nodes (keys, values, lists
//    and maps): the limit of one file, about M MB in memory"
//   "SOURCE: expected one YAML document, found more (separated by ---)"
//   (a --set VALUE: "the limit of one --set value" instead of "of one file")
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

namespace rocelb {

// About 1 GB of yaml-cpp nodes: a topology, a workload, a scenario.
inline constexpr size_t kMaxYamlNodes = 2'000'000;
// A switch config that other files name (an explicit fabric's switches,
// rocelbctl --fabric): as many nodes as a 16 MiB config of routes has (a
// route is five nodes in about 30 bytes), about 1.5 GB.
inline constexpr size_t kMaxSwitchConfigNodes = 3'000'000;

class YamlDocumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The document (a Null node for an empty text).
YAML::Node load_yaml_document(const std::string& text, const std::string& source,
                              size_t max_nodes = kMaxYamlNodes);

// Counts the nodes of one YAML value (its first document) as load_yaml_document
// does, aliases as what they name, and throws YamlDocumentError over
// `max_nodes` or for an alias inside the node it names; a duplicate key is
// not refused here.
void check_yaml_value_nodes(const std::string& text, const std::string& source,
                            size_t max_nodes = kMaxYamlNodes);

}  // namespace rocelb
