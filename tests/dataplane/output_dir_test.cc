// OutputDir: a run's outputs land all together or not at all, and a run
// that fails leaves no folder it created.
#include "dataplane/record/output_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace rocelb {
namespace {
namespace fs = std::filesystem;

class OutputDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("rocelb-outdir-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  static void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  static std::set<std::string> names_in(const fs::path& d) {
    std::set<std::string> n;
    for (const auto& e : fs::directory_iterator(d)) n.insert(e.path().filename().string());
    return n;
  }

  fs::path root_;
};

TEST_F(OutputDirTest, CommitMovesEveryOutputIntoPlaceReplacingOldFiles) {
  const fs::path dir = root_ / "out";
  fs::create_directories(dir);
  put(dir / "a.pcap", "old a");
  put(dir / "notes.txt", "mine");
  {
    OutputDir out(dir.string());
    put(out.staged("a.pcap"), "new a");
    put(out.staged("b.pcap"), "new b");
    out.commit({"a.pcap", "b.pcap"});
  }
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a.pcap", "b.pcap", "notes.txt"}));
  EXPECT_EQ(slurp(dir / "a.pcap"), "new a");
  EXPECT_EQ(slurp(dir / "b.pcap"), "new b");
  EXPECT_EQ(slurp(dir / "notes.txt"), "mine");
}

TEST_F(OutputDirTest, WithoutACommitNothingLandsAndCreatedFoldersGo) {
  {
    OutputDir out((root_ / "x" / "y" / "z").string());
    EXPECT_TRUE(fs::is_directory(root_ / "x" / "y" / "z"));
    put(out.staged("a.pcap"), "new a");
  }
  EXPECT_TRUE(fs::is_empty(root_));
  // A folder that was there stays, as it was; one the run made inside goes.
  fs::create_directories(root_ / "kept");
  { OutputDir out((root_ / "kept" / "new").string()); }
  EXPECT_EQ(names_in(root_), (std::set<std::string>{"kept"}));
  EXPECT_TRUE(fs::is_empty(root_ / "kept"));
}

TEST_F(OutputDirTest, ADirectoryInTheWayIsFoundBeforeAnythingMoves) {
  const fs::path dir = root_ / "out";
  fs::create_directories(dir / "b.pcap");
  put(dir / "a.pcap", "old a");
  OutputDir out(dir.string());
  put(out.staged("a.pcap"), "new a");
  put(out.staged("b.pcap"), "new b");
  try {
    out.commit({"a.pcap", "b.pcap"});
    FAIL() << "committed over a directory";
  } catch (const OutputDirError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "b.pcap").string() +
                  " is a directory: an output replaces a file, never a directory; "
                  "nothing was written");
  }
  EXPECT_EQ(slurp(dir / "a.pcap"), "old a");
  // check() alone says the same, before anything is written.
  EXPECT_THROW(out.check({"a.pcap", "b.pcap"}), OutputDirError);
  EXPECT_NO_THROW(out.check({"a.pcap", "c.pcap"}));
}

TEST_F(OutputDirTest, AMoveThatFailsPutsEverythingBack) {
  const fs::path dir = root_ / "out";
  fs::create_directories(dir);
  put(dir / "a.pcap", "old a");
  put(dir / "c.pcap", "old c");
  {
    OutputDir out(dir.string());
    put(out.staged("a.pcap"), "new a");
    put(out.staged("b.pcap"), "new b");
    put(out.staged("c.pcap"), "new c");
    // "lost" was never written: its move fails after a and b have moved.
    try {
      out.commit({"a.pcap", "b.pcap", "lost", "c.pcap"});
      FAIL() << "committed a missing output";
    } catch (const OutputDirError& e) {
      EXPECT_NE(std::string(e.what()).find("lost"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nothing was written"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a.pcap", "c.pcap"}));
  EXPECT_EQ(slurp(dir / "a.pcap"), "old a");
  EXPECT_EQ(slurp(dir / "c.pcap"), "old c");
}

TEST_F(OutputDirTest, AnOutputFolderThatCannotBeMadeIsOneError) {
  put(root_ / "file", "x");
  try {
    OutputDir out((root_ / "file" / "out").string());
    FAIL();
  } catch (const OutputDirError& e) {
    EXPECT_NE(std::string(e.what()).find((root_ / "file" / "out").string()), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(names_in(root_), (std::set<std::string>{"file"}));
}

}  // namespace
}  // namespace rocelb
