// rocelb-gen presets: each deterministic for a seed; ai-alltoall's phases
// synchronized with every rank sending to every other; nvmeof's sizes and
// read/write mix; multitenant's tenants told apart by VLAN or DSCP;
// ecmp-collision's flows colliding under the switch's own hash (for any
// hash seed); pfc-storm's frames decoded by the switch's PFC parser; cdf's
// sizes and load; and bad preset names and parameters.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/wire/flow_key_of.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/parser.h"
#include "gen_test_util.h"
#include "lb/flow_hash.h"
#include "pfc/pfc_frame.h"
#include "tools/gen/generator.h"
#include "tools/gen/preset_multitenant.h"
#include "tools/gen/preset_nvmeof.h"
#include "tools/gen/presets.h"

namespace rocelb {
namespace {

using test::default_config;

PresetResult run(const std::string& name, const std::vector<std::string>& params = {},
                 std::optional<uint64_t> seed = std::nullopt,
                 const ConfigParams& config = default_config()) {
  return run_preset(name, params, config, seed);
}

// Every frame of every port with its port and time, in order.
std::string all_frames(const ScenarioParams& sc) {
  std::string out;
  for (uint16_t port : sc.ports())
    for (const GenPacket& p : generate_port(sc, port)) {
      out += std::to_string(port) + "@" + std::to_string(p.ts_ns) + ":";
      out.append(p.frame.begin(), p.frame.end());
    }
  return out;
}

ParsedPacket parse(const GenPacket& p) {
  ParsedPacket pp;
  const auto n = static_cast<uint32_t>(p.frame.size());
  EXPECT_EQ(parse_frame(p.frame.data(), n, n, pp), ParseResult::ok);
  return pp;
}

// Small parameters per preset, so the tests run fast.
const std::map<std::string, std::vector<std::string>>& small_params() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"ai-alltoall", {"message=16KiB", "phases=2"}},
      {"nvmeof", {"ios=16"}},
      {"multitenant", {"elephant=64KiB", "elephant_messages=2", "mice=50"}},
      {"ecmp-collision", {"message=16KiB", "messages=2"}},
      {"pfc-storm", {"duration=5ms", "every=500us"}},
      {"cdf", {"cdf=AliStorage2019", "duration=200us"}},
  };
  return m;
}

TEST(Presets, EveryPresetIsListedWithItsParameters) {
  const std::string text = list_presets_text();
  for (const PresetDef* p : all_presets()) {
    EXPECT_NE(text.find(std::string(p->name) + ": "), std::string::npos) << p->name;
    for (const auto& s : p->params)
      EXPECT_NE(text.find(std::string(s.name) + "=" + std::string(s.def)), std::string::npos)
          << p->name << " " << s.name;
  }
  EXPECT_EQ(all_presets().size(), small_params().size());
}

TEST(Presets, DeterministicForASeedAndTheSeedMatters) {
  for (const auto& [name, params] : small_params()) {
    SCOPED_TRACE(name);
    PresetResult a = run(name, params, 5), b = run(name, params, 5), c = run(name, params, 6);
    EXPECT_EQ(a.yaml, b.yaml);
    const std::string fa = all_frames(a.scenario);
    EXPECT_FALSE(fa.empty());
    EXPECT_EQ(fa, all_frames(b.scenario));
    if (name == "pfc-storm") {
      EXPECT_EQ(fa, all_frames(c.scenario));  // nothing random in it
    } else {
      EXPECT_NE(fa, all_frames(c.scenario));
    }
    // The YAML written is a scenario that loads into the same frames.
    ScenarioParams again = load_scenario_text(a.yaml, "emitted.yaml", default_config());
    EXPECT_EQ(all_frames(again), fa);
    EXPECT_EQ(again.seed, 5u);
  }
}

TEST(Presets, AiAlltoallPhasesAreSynchronizedAndEveryRankSendsToEveryOther) {
  PresetResult r = run("ai-alltoall", {"workers=6", "message=8KiB", "phases=3", "gap=5us"});
  const ScenarioParams& sc = r.scenario;
  // Ranks 0-2 local (10.0.N.2), 3-5 remote (10.2.R.2); every pair with a
  // local end enters this switch: 3 x 5 + 3 x 3.
  ASSERT_EQ(sc.flows.size(), 24u);
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& f : sc.flows) pairs.insert({to_string(f.src), to_string(f.dst)});
  EXPECT_EQ(pairs.size(), 24u);
  auto ip = [](int rank) {
    return rank < 3 ? "10.0." + std::to_string(rank) + ".2"
                    : "10.2." + std::to_string(rank - 3) + ".2";
  };
  for (int s = 0; s < 6; ++s)
    for (int d = 0; d < 6; ++d)
      if (s != d && (s < 3 || d < 3)) {
        EXPECT_TRUE(pairs.count({ip(s), ip(d)})) << s << "->" << d;
      }

  // First and last packet time of every message of every flow.
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>> msg;
  for (uint16_t port : sc.ports())
    for (const GenPacket& p : generate_port(sc, port)) {
      const auto key = std::make_pair(p.flow, p.seq / sc.flows[p.flow].packets_per_message());
      auto it = msg.find(key);
      if (it == msg.end()) {
        msg[key] = {p.t_ns, p.t_ns};
      } else {
        it->second.second = p.t_ns;
      }
    }
  ASSERT_EQ(msg.size(), 24u * 3);
  uint64_t prev_end = 0;
  for (uint64_t phase = 0; phase < 3; ++phase) {
    const auto [start, end] = msg[{0, phase}];
    for (uint32_t f = 0; f < sc.flows.size(); ++f) {
      EXPECT_EQ(msg[std::make_pair(f, phase)].first, start) << "flow " << f << " phase " << phase;
      EXPECT_EQ(msg[std::make_pair(f, phase)].second, end) << "flow " << f << " phase " << phase;
    }
    if (phase > 0) {
      EXPECT_GE(start, prev_end + 5000);  // the gap after the last message ends
    }
    prev_end = end;
  }
  // Local ranks' traffic to remote ranks and remote ranks' traffic: uplinks.
  for (const auto& f : sc.flows) {
    if (f.src.b[1] == 2) {
      EXPECT_GE(f.in_port, 4);
    }
  }
}

TEST(Presets, NvmeofSizesAndMix) {
  for (const std::string mix : {"read-heavy", "write-heavy"}) {
    SCOPED_TRACE(mix);
    PresetResult r = run("nvmeof", {"mix=" + mix, "ios=100"});
    size_t reads = 0, writes = 0;
    std::map<std::string, const FlowParams*> by_name;
    for (const auto& f : r.scenario.flows) by_name[f.name] = &f;
    for (const auto& f : r.scenario.flows) {
      const bool uplink = f.in_port >= 4;
      const std::string& n = f.name;
      if (n.ends_with("-cmd") || n.ends_with("-resp")) {
        EXPECT_EQ(f.op, RoceOp::kSend);
        EXPECT_EQ(f.message_bytes, n.ends_with("-cmd") ? kNvmeCommandBytes : kNvmeResponseBytes);
        EXPECT_EQ(uplink, n.ends_with("-resp"))
            << n;  // commands from hosts, responses from targets
        continue;
      }
      EXPECT_GE(f.message_bytes, 4096u) << n;
      EXPECT_LE(f.message_bytes, 131072u) << n;
      EXPECT_EQ(f.message_bytes & (f.message_bytes - 1), 0u) << n;
      if (n.ends_with("-read-data")) {
        ++reads;  // the target writes into the host
        EXPECT_EQ(f.op, RoceOp::kWrite);
        EXPECT_TRUE(uplink);
      } else if (n.ends_with("-write-rreq")) {
        ++writes;  // the target reads from the host
        EXPECT_EQ(f.op, RoceOp::kReadRequest);
        EXPECT_TRUE(uplink);
        const std::string base = n.substr(0, n.size() - 5);
        const FlowParams* data = by_name.at(base + "-data");
        EXPECT_EQ(data->op, RoceOp::kReadResponse);
        EXPECT_FALSE(data->in_port >= 4);
        EXPECT_EQ(data->message_bytes, f.message_bytes);
        EXPECT_EQ(data->psn, f.psn);  // responses carry the request's PSNs
        EXPECT_GT(data->start_ns, f.start_ns);
        EXPECT_GT(f.start_ns, by_name.at(base + "-cmd")->start_ns);
      } else if (n.ends_with("-write-data")) {
        EXPECT_EQ(f.op, RoceOp::kReadResponse);
      } else {
        ADD_FAILURE() << "unexpected flow " << n;
      }
    }
    EXPECT_EQ(reads + writes, 400u);
    const double share = double(reads) / double(reads + writes);
    if (mix == "read-heavy") {
      EXPECT_GT(share, 0.6);
      EXPECT_LT(share, 0.8);
    } else {
      EXPECT_GT(share, 0.2);
      EXPECT_LT(share, 0.4);
    }
  }
}

TEST(Presets, MultitenantTenantsAreToldApartByVlanOrDscp) {
  for (const std::string by : {"vlan", "dscp"}) {
    SCOPED_TRACE(by);
    PresetResult r = run("multitenant", {"by=" + by, "tenants=3", "elephant=64KiB",
                                         "elephant_messages=2", "mice=20"});
    const ScenarioParams& sc = r.scenario;
    std::map<int, std::set<char>> kinds;  // tenant seen -> 'e'lephant / 'm'ouse
    for (uint16_t port : sc.ports())
      for (const GenPacket& p : generate_port(sc, port)) {
        ParsedPacket pp = parse(p);
        int tenant = -1;
        for (int t = 0; t < 3; ++t) {
          if (by == "vlan" && pp.num_vlans == 1 && pp.vid == tenant_vid(t)) tenant = t;
          if (by == "dscp" && pp.num_vlans == 0 && pp.dscp == kTenantDscp[t]) tenant = t;
        }
        ASSERT_GE(tenant, 0);
        const std::string& name = sc.flows[p.flow].name;
        std::string prefix = "t";  // appended: GCC 12 warns falsely on "t" + std::string
        prefix += std::to_string(tenant);
        prefix += '-';
        EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
        kinds[tenant].insert(name.find("elephant") != std::string::npos ? 'e' : 'm');
      }
    EXPECT_EQ(kinds[0], std::set<char>{'e'});
    EXPECT_EQ(kinds[1], std::set<char>{'m'});
    EXPECT_EQ(kinds[2], std::set<char>{'m'});
  }
}

// The uplink port the switch's `fixed` ECMP picks for a frame.
uint16_t switch_uplink(const ConfigParams& cfg, const GenPacket& p) {
  ParsedPacket pp = parse(p);
  FlowKey key;
  flow_key_of(pp, p.frame.data(), static_cast<uint32_t>(p.frame.size()), key);
  const GroupParams* g = cfg.find_group("uplinks");
  const uint32_t h = flow_hash(key, HashConfig{cfg.sw.hash_seed, g->hash_fields});
  const auto m = ecmp_pick(h, static_cast<uint32_t>(g->members.size()));
  return cfg.find_neighbor(g->members[m].via)->port;
}

TEST(Presets, EcmpCollisionFlowsShareOneUplinkUnderTheSwitchHash) {
  const ConfigParams other =
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName),
                       {"switch.hash_seed=0x1234567"});
  for (const ConfigParams* cfg : {&default_config(), &other}) {
    for (const std::vector<std::string>& params :
         {std::vector<std::string>{"messages=1", "message=4KiB", "flows=6"},
          std::vector<std::string>{"messages=1", "message=4KiB", "uplink=7"}}) {
      PresetResult r = run("ecmp-collision", params, 3, *cfg);
      std::set<uint16_t> uplinks;
      size_t frames = 0;
      for (uint16_t port : r.scenario.ports())
        for (const GenPacket& p : generate_port(r.scenario, port)) {
          uplinks.insert(switch_uplink(*cfg, p));
          ++frames;
        }
      EXPECT_EQ(frames, r.scenario.flows.size() * 4);
      ASSERT_EQ(uplinks.size(), 1u);
      if (params.back() == "uplink=7") {
        EXPECT_EQ(*uplinks.begin(), 7);
      }
      // One note per flow naming that uplink.
      size_t named = 0;
      for (const auto& n : r.notes)
        named += n.find("hashes to uplink port " + std::to_string(*uplinks.begin())) !=
                 std::string::npos;
      EXPECT_EQ(named, r.scenario.flows.size());
    }
  }
}

TEST(Presets, PfcStormFramesAreXoffTheSwitchParsesAndOutlastTheWatchdog) {
  PresetResult r = run("pfc-storm");
  const ScenarioParams& sc = r.scenario;
  const WatchdogParams& wd = default_config().qos.lossless.watchdog;
  ASSERT_EQ(sc.pfc.size(), 1u);
  uint64_t first = UINT64_MAX, last = 0, n = 0;
  for (const GenPacket& p : generate_port(sc, 3)) {
    PfcFrame f;
    ASSERT_EQ(decode_pfc(p.frame.data(), p.frame.size(), f), PfcDecodeResult::kOk);
    EXPECT_EQ(f.class_enable, 1u << 3);
    EXPECT_EQ(f.quanta[3], 65535);
    // Each frame is sent before the previous pause (335 us at 100G) runs out.
    if (n > 0) {
      EXPECT_LT(p.t_ns - last, pause_quanta_to_ns(65535, 100'000'000'000ull));
    }
    first = std::min(first, p.t_ns);
    last = p.t_ns;
    ++n;
  }
  EXPECT_EQ(n, 4000u);
  EXPECT_GT(last - first, wd.detection_ns);
  // RoCE traffic toward port 3's host in the lossless class, until after the
  // storm has ended.
  uint64_t toward = 0, last_data = 0;
  for (const GenPacket& p : generate_port(sc, 0)) {
    ParsedPacket pp = parse(p);
    EXPECT_TRUE(pp.is_rocev2);
    EXPECT_EQ(to_string(sc.flows[p.flow].dst), "10.0.3.2");
    EXPECT_EQ(default_config().qos.dscp_to_tc[pp.dscp], 3);
    ++toward;
    last_data = p.t_ns;
  }
  EXPECT_GT(toward, 0u);
  EXPECT_GT(last_data, last);
}

TEST(Presets, CdfSizesFollowTheDistributionAndLoadMatchesTheTarget) {
  for (const std::string load : {"0.3", "0.7"}) {
    SCOPED_TRACE(load);
    PresetResult r = run("cdf", {"cdf=AliStorage2019", "load=" + load, "duration=20ms"}, 11);
    const FlowSizeCdf cdf = *FlowSizeCdf::named("AliStorage2019");
    double bytes = 0;
    for (const auto& f : r.scenario.flows) {
      bytes += double(f.message_bytes);
      EXPECT_LT(f.start_ns, 20'000'000u);
      EXPECT_LE(double(f.message_bytes), cdf.max_bytes());
    }
    const double n = double(r.scenario.flows.size());
    ASSERT_GT(n, 1000);
    EXPECT_NEAR(bytes / n, cdf.mean_bytes(), 0.1 * cdf.mean_bytes());
    const double offered = bytes * 8 / (4 * 100e9 * 0.020);
    EXPECT_NEAR(offered, std::stod(load), 0.1 * std::stod(load));
  }
}

std::string preset_error(const std::string& name, const std::vector<std::string>& params) {
  try {
    run(name, params);
  } catch (const PresetError& e) {
    return e.what();
  }
  return "";
}

TEST(Presets, BadNamesAndParametersAreOneLineNamingThem) {
  EXPECT_EQ(preset_error("alltoall", {}),
            "--preset \"alltoall\": unknown preset (known: ai-alltoall, nvmeof, multitenant, "
            "ecmp-collision, pfc-storm, cdf)");
  EXPECT_EQ(preset_error("ai-alltoall", {"ranks=4"}),
            "--param ranks=4: preset ai-alltoall has no parameter \"ranks\" (known: workers, "
            "local, message, phases, gap, mtu, group)");
  EXPECT_EQ(preset_error("ai-alltoall", {"workers"}),
            "--param \"workers\": expected NAME=VALUE (preset ai-alltoall)");
  EXPECT_EQ(preset_error("ai-alltoall", {"workers=4", "workers=5"}),
            "--param workers=5: workers given twice");
  EXPECT_EQ(preset_error("ai-alltoall", {"workers=1"}),
            "--param workers=1: workers must be 2..64 (preset ai-alltoall)");
  EXPECT_EQ(preset_error("ai-alltoall", {"workers=many"}),
            "--param workers=many: workers must be an integer 2..64 (preset ai-alltoall)");
  EXPECT_EQ(preset_error("ai-alltoall", {"local=9"}),
            "--param local=9: local must be 1..4 (preset ai-alltoall)");
  EXPECT_EQ(preset_error("ai-alltoall", {"message=1X"}).rfind("--param message=1X: ", 0), 0u);
  EXPECT_EQ(preset_error("ai-alltoall", {"group=spines"}),
            "the switch config has no group \"spines\"");
  EXPECT_EQ(preset_error("nvmeof", {"mix=balanced"}),
            "--param mix=balanced: mix must be one of read-heavy, write-heavy (preset nvmeof)");
  EXPECT_EQ(preset_error("nvmeof", {"io_min=64KiB", "io_max=4KiB"}),
            "--param io_max=4KiB: io_max must be at least io_min (preset nvmeof)");
  EXPECT_EQ(preset_error("cdf", {"cdf=Foo"}),
            "--param cdf=Foo: cdf must be one of AliStorage2019, WebSearch, FbHdp2015, "
            "GoogleRPC2008 (preset cdf)");
  EXPECT_EQ(preset_error("cdf", {"load=1.5"}),
            "--param load=1.5: load must be in 0.001..1 (preset cdf)");
  EXPECT_EQ(preset_error("ecmp-collision", {"uplink=2"}),
            "--param uplink=2: not the port of a member of group uplinks (preset ecmp-collision)");
  EXPECT_EQ(preset_error("pfc-storm", {"port=5"}),
            "--param port=5: not a host port (a port with a host neighbor) (preset pfc-storm)");
  EXPECT_EQ(preset_error("multitenant", {"by=mpls"}),
            "--param by=mpls: by must be one of vlan, dscp (preset multitenant)");
}

}  // namespace
}  // namespace rocelb
