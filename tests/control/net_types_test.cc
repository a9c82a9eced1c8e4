// MAC / IP / prefix parsing and formatting (control/net_types.h).
#include "control/net_types.h"

#include <gtest/gtest.h>

namespace rocelb {
namespace {

MacAddr mac(std::string_view s) {
  MacAddr m;
  EXPECT_TRUE(parse_mac(s, m)) << s;
  return m;
}

IpAddr ip(std::string_view s) {
  IpAddr a;
  EXPECT_TRUE(parse_ip(s, a)) << s;
  return a;
}

IpPrefix prefix(std::string_view s) {
  IpPrefix p;
  std::string why;
  EXPECT_TRUE(parse_prefix(s, p, &why)) << s << ": " << why;
  return p;
}

std::string prefix_error(std::string_view s) {
  IpPrefix p;
  std::string why;
  if (parse_prefix(s, p, &why)) return "parsed";
  return why;
}

TEST(ParseMac, ColonAndDashSeparators) {
  MacAddr m = mac("02:00:00:00:00:01");
  EXPECT_EQ(m.b, (std::array<uint8_t, 6>{0x02, 0, 0, 0, 0, 0x01}));
  EXPECT_EQ(mac("0a-1B-2c-3D-4e-5F").b,
            (std::array<uint8_t, 6>{0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f}));
  EXPECT_EQ(to_string(mac("0A:1B:2C:3D:4E:5F")), "0a:1b:2c:3d:4e:5f");
}

TEST(ParseMac, RejectsMalformed) {
  MacAddr m;
  for (const char* bad : {"", "02:00:00:00:00", "02:00:00:00:00:01:02", "02:00:00-00:00:01",
                          "2:0:0:0:0:1", "02:00:00:00:00:0g", "0200.0000.0001",
                          "02:00:00:00:00:01 ", "02::00:00:00:00:01", "02.00.00.00.00.01"})
    EXPECT_FALSE(parse_mac(bad, m)) << bad;
}

TEST(ParseMac, MulticastAndZero) {
  EXPECT_TRUE(mac("01:00:5e:00:00:01").is_multicast());
  EXPECT_FALSE(mac("02:00:00:00:00:01").is_multicast());
  EXPECT_TRUE(mac("00:00:00:00:00:00").is_zero());
}

TEST(ParseIp, V4DottedQuad) {
  IpAddr a = ip("10.1.2.255");
  EXPECT_TRUE(a.is_v4());
  EXPECT_EQ(a.v4_host_order(), 0x0a0102ffu);
  EXPECT_EQ(to_string(a), "10.1.2.255");
  EXPECT_EQ(to_string(ip("0.0.0.0")), "0.0.0.0");
  EXPECT_EQ(to_string(ip("255.255.255.255")), "255.255.255.255");
}

TEST(ParseIp, V4Strict) {
  IpAddr a;
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "+1.2.3.4", "1.+2.3.4", "01.2.3.4",
                          "1.2.3.04", "1.2.3.4 ", " 1.2.3.4", "1..3.4", "1.2.3.", "0x1.2.3.4",
                          "1.2.3.1000", "a.b.c.d", "-1.2.3.4"})
    EXPECT_FALSE(parse_ip(bad, a)) << bad;
}

TEST(ParseIp, V6TextForms) {
  EXPECT_EQ(to_string(ip("::")), "::");
  EXPECT_EQ(to_string(ip("::1")), "::1");
  EXPECT_EQ(to_string(ip("fd00:0:0::1")), "fd00::1");
  EXPECT_EQ(to_string(ip("FD00:0000:0000:0000:0000:0000:0000:0001")), "fd00::1");
  EXPECT_EQ(to_string(ip("1:2:3:4:5:6:7:8")), "1:2:3:4:5:6:7:8");
  // RFC 5952: one zero field is not compressed; the longest run is.
  EXPECT_EQ(to_string(ip("2001:db8:0:1:1:1:1:1")), "2001:db8:0:1:1:1:1:1");
  EXPECT_EQ(to_string(ip("2001:0:0:1:0:0:0:1")), "2001:0:0:1::1");
  IpAddr mapped = ip("::ffff:10.0.0.1");
  EXPECT_TRUE(mapped.is_v6());
  EXPECT_EQ(mapped.b[10], 0xff);
  EXPECT_EQ(mapped.b[12], 10);
  EXPECT_EQ(mapped.b[15], 1);
  IpAddr a = ip("fd00:1:4::2");
  EXPECT_EQ(a.b[0], 0xfd);
  EXPECT_EQ(a.b[3], 0x01);
  EXPECT_EQ(a.b[5], 0x04);
  EXPECT_EQ(a.b[15], 0x02);
}

TEST(ParseIp, V6Rejects) {
  IpAddr a;
  for (const char* bad : {":", "1::2::3", "fd00::1%eth0", "12345::", "1:2:3:4:5:6:7:8:9",
                          "1:2:3:4:5:6:7", "::g", "fd00::1/64", ":::"})
    EXPECT_FALSE(parse_ip(bad, a)) << bad;
}

TEST(ParsePrefix, Valid) {
  IpPrefix p = prefix("10.0.0.0/24");
  EXPECT_TRUE(p.addr.is_v4());
  EXPECT_EQ(p.len, 24);
  EXPECT_EQ(to_string(p), "10.0.0.0/24");
  EXPECT_EQ(to_string(prefix("0.0.0.0/0")), "0.0.0.0/0");
  EXPECT_EQ(to_string(prefix("::/0")), "::/0");
  EXPECT_EQ(to_string(prefix("fd00:0:0::1/64")), "fd00::1/64");
  EXPECT_EQ(prefix("fd00::/128").len, 128);
}

TEST(ParsePrefix, Errors) {
  EXPECT_EQ(prefix_error("10.0.0.0/33"), "prefix length must be 0..32");
  EXPECT_EQ(prefix_error("fd00::/129"), "prefix length must be 0..128");
  EXPECT_EQ(prefix_error("10.0.0.0/"), "prefix length must be 0..32");
  EXPECT_EQ(prefix_error("10.0.0.0/-1"), "prefix length must be 0..32");
  EXPECT_EQ(prefix_error("10.0.0.0/2a"), "prefix length must be 0..32");
  EXPECT_EQ(prefix_error("10.0.0.0/1000"), "prefix length must be 0..32");
  EXPECT_EQ(prefix_error("10.0.0.0"), "missing /LEN");
  EXPECT_EQ(prefix_error("fd00::"), "missing /LEN");
  EXPECT_EQ(prefix_error("10.0.0/8"), "not an IP address");
  EXPECT_EQ(prefix_error("host/8"), "not an IP address");
  EXPECT_EQ(prefix_error("nonsense"), "not an IP address");
}

TEST(IpPrefix, Contains) {
  IpPrefix p = prefix("10.0.0.0/24");
  EXPECT_TRUE(p.contains(ip("10.0.0.0")));
  EXPECT_TRUE(p.contains(ip("10.0.0.255")));
  EXPECT_FALSE(p.contains(ip("10.0.1.0")));
  EXPECT_FALSE(p.contains(ip("::a00:1")));
  IpPrefix p22 = prefix("10.0.4.0/22");
  EXPECT_TRUE(p22.contains(ip("10.0.7.9")));
  EXPECT_FALSE(p22.contains(ip("10.0.8.1")));
  EXPECT_FALSE(p22.contains(ip("10.0.3.255")));
  EXPECT_TRUE(prefix("0.0.0.0/0").contains(ip("192.168.1.1")));
  EXPECT_FALSE(prefix("0.0.0.0/0").contains(ip("::1")));
  EXPECT_TRUE(prefix("10.0.0.1/32").contains(ip("10.0.0.1")));
  EXPECT_FALSE(prefix("10.0.0.1/32").contains(ip("10.0.0.2")));
  IpPrefix v6 = prefix("fd00:0:1::/64");
  EXPECT_TRUE(v6.contains(ip("fd00:0:1::2")));
  EXPECT_TRUE(v6.contains(ip("fd00:0:1:0:ffff:ffff:ffff:ffff")));
  EXPECT_FALSE(v6.contains(ip("fd00:0:1:1::2")));
  EXPECT_TRUE(prefix("::/0").contains(ip("2001:db8::1")));
  EXPECT_FALSE(prefix("::/0").contains(ip("10.0.0.1")));
}

TEST(IpPrefix, IsCanonical) {
  EXPECT_TRUE(prefix("10.0.0.0/24").is_canonical());
  EXPECT_FALSE(prefix("10.0.0.1/24").is_canonical());
  EXPECT_TRUE(prefix("0.0.0.0/0").is_canonical());
  EXPECT_FALSE(prefix("128.0.0.0/0").is_canonical());
  EXPECT_TRUE(prefix("10.0.0.1/32").is_canonical());
  EXPECT_TRUE(prefix("10.0.16.0/20").is_canonical());
  EXPECT_FALSE(prefix("10.0.8.0/20").is_canonical());
  EXPECT_TRUE(prefix("fd00::/64").is_canonical());
  EXPECT_FALSE(prefix("fd00::1/64").is_canonical());
  EXPECT_TRUE(prefix("::/0").is_canonical());
  EXPECT_TRUE(prefix("fd00::1/128").is_canonical());
}

}  // namespace
}  // namespace rocelb
