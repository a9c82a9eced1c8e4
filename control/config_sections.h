// The readers of the switch config's sections, one file each, which
// load_config_text (config_loader.cc) calls in order on the document's top
// map: config_switch.cc (switch, control, limits), config_ports.cc (ports,
// neighbors), config_groups.cc, config_routes.cc, config_qos.cc (classes,
// scheduler, queue limits) and config_lossless.cc (PFC, buffer, WRED,
// watchdog). Each key's range and rule come from its row of
// switch_config_schema() through KeyReader; a section keeps only the rules
// between keys (duplicates, references, combinations). Errors are thrown
// as ConfigError. No knobs, no counters.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/config_params.h"
#include "control/key_reader.h"

namespace rocelb::config_detail {

// What the sections share while one config is read.
struct ConfigRead {
  const KeyReader& r;
  ConfigParams& cfg;
  // Where each port came from in the file, by id (ports are sorted later).
  std::map<uint16_t, std::string> port_paths;
};

// The paths an error may also blame (KeyReader::fail's `related`).
inline std::vector<std::string> also(std::initializer_list<std::string> paths) {
  return paths;
}

// a[i] for an index a row's range bounds (a traffic class, a DSCP); a row
// whose range passes the array's end is a bug of the schema.
template <typename A>
auto& slot(A& a, uint64_t i, const std::string& path) {
  if (i >= a.size()) throw std::logic_error(path + ": the schema's range passes the table's end");
  return a[i];
}

// Values of kind kOther.
MacAddr read_mac(const KeyReader& r, const YAML::Node& n, const std::string& path);
IpAddr read_ip(const KeyReader& r, const YAML::Node& n, const std::string& path);
IpPrefix read_prefix(const KeyReader& r, const YAML::Node& n, const std::string& path);

void read_switch(const KeyReader::Map& top, ConfigParams& cfg);  // switch, control, limits
void read_ports(const KeyReader::Map& top, ConfigRead& c);
void read_neighbors(const KeyReader::Map& top, ConfigRead& c);
void read_groups(const KeyReader::Map& top, ConfigRead& c);
void read_routes(const KeyReader::Map& top, ConfigRead& c);
void read_qos(const KeyReader::Map& top, QosParams& q);
SchedulerParams read_scheduler(const KeyReader::Map& m);
void read_lossless(const KeyReader::Map& qos, LosslessParams& l);

}  // namespace rocelb::config_detail
