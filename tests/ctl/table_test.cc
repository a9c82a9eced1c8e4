// Aligned text tables (tools/ctl/table.h).
#include "tools/ctl/table.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace rocelb {
namespace {

TEST(Table, AlignsNumbersRightAndTextLeft) {
  Table t({right("port"), left("name"), right("rx_pkts"), left("state")});
  t.add({"0", "host0", "1250000", "up"}).add({"12", "spine0-long", "7", "down"});
  EXPECT_EQ(t.render(),
            "port  name         rx_pkts  state\n"
            "   0  host0        1250000  up\n"
            "  12  spine0-long        7  down\n");
  EXPECT_EQ(t.rows(), 2u);
}

TEST(Table, HeaderOnlyWhenEmptyAndNoTrailingSpaces) {
  Table t({left("via"), left("note")}, "  ");
  EXPECT_EQ(t.render(), "  via  note\n");
  t.add({"10.1.4.2"});  // the missing cell is empty and leaves no spaces behind
  EXPECT_EQ(t.render(),
            "  via       note\n"
            "  10.1.4.2\n");
}

TEST(Table, CountsUtf8CodePointsNotBytes) {
  Table t({left("unit"), right("n")});
  t.add({"µs", "1"}).add({"us", "22"});
  EXPECT_EQ(t.render(),
            "unit   n\n"
            "µs     1\n"
            "us    22\n");
}

TEST(Table, TooManyCellsThrows) {
  Table t({left("a")});
  EXPECT_THROW(t.add({"1", "2"}), std::invalid_argument);
}

}  // namespace
}  // namespace rocelb
