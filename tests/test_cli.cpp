// The command-line helpers every tool shares (sw/include/xf/cli.hpp): sizes and whole numbers
// reject a sign, a space, a fraction and an overflow with a message that names the option; input
// files that are not readable regular files are usage errors naming the option and the file;
// control characters in user text are escaped before they are printed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "xf/cli.hpp"

using namespace xf;
using cli::Usage;

namespace {

// The message of the usage error `f` throws, "" if it throws none.
template <class F>
std::string usage_of(F&& f) {
  try {
    f();
  } catch (const Usage& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Cli, SizesTakeDigitsAndASuffix) {
  EXPECT_EQ(cli::parse_bytes("bytes", "4096"), 4096u);
  EXPECT_EQ(cli::parse_bytes("bytes", "64k"), 64u << 10);
  EXPECT_EQ(cli::parse_bytes("bytes", "1MiB"), 1u << 20);
  EXPECT_EQ(cli::parse_bytes("bytes", "4G"), 4ull << 30);
  EXPECT_EQ(cli::parse_bytes("bytes", "0"), 0u);
  EXPECT_EQ(cli::parse_bytes("bytes", "18446744073709551615"), ~0ull);
  EXPECT_EQ(cli::parse_bytes("chunk", "16M", 1u << 24), 1u << 24);
}

TEST(Cli, SizesRejectSignsFractionsAndOverflowNamingTheOption) {
  for (const char* opt : {"bytes", "chunk", "min-bytes", "max-bytes", "dmem-bytes"})
    for (const char* bad :
         {"-4", "+4", " 4", "-0", "1.5K", "0.5", "4,5", "", "K", "0x10", "18446744073709551616",
          "99999999999999999999", "17179869184G", "4 K", "4Q", "4K\x1b[2J"}) {
      const std::string m = usage_of([&] { cli::parse_bytes(opt, bad); });
      EXPECT_EQ(m.rfind(std::string("--") + opt + " '" + bad + "'", 0), 0u)
          << opt << " '" << bad << "': " << m;
    }
  EXPECT_NE(usage_of([] { cli::parse_bytes("bytes", "-4"); }).find("is not a size"),
            std::string::npos);
  EXPECT_NE(usage_of([] { cli::parse_bytes("bytes", "1.5K"); }).find("whole number of bytes"),
            std::string::npos);
  EXPECT_NE(usage_of([] { cli::parse_bytes("bytes", "17179869184G"); }).find("too large"),
            std::string::npos);
  EXPECT_NE(usage_of([] { cli::parse_bytes("chunk", "17M", 1u << 24); }).find("at most 16M"),
            std::string::npos);
}

TEST(Cli, WholeNumbersRejectSignsFractionsAndOverflow) {
  EXPECT_EQ(cli::parse_int("tiles", "16", 1, 16), 16);
  EXPECT_EQ(cli::parse_int("seed", "0x2a", 0, 1ll << 62), 42);
  EXPECT_EQ(cli::parse_int("seed", "010", 0, 100), 8);
  EXPECT_EQ(cli::parse_int("offset", "-3", -5, 5), -3);
  for (const char* bad :
       {"-1", "+1", " 1", "1.5", "1e3", "", "0x", "-0", "99999999999999999999", "1 ", "x"}) {
    const std::string m = usage_of([&] { cli::parse_int("seed", bad, 0, 1ll << 62); });
    EXPECT_EQ(m.rfind(std::string("--seed '") + bad + "' must be a whole number", 0), 0u)
        << "'" << bad << "': " << m;
  }
  EXPECT_NE(usage_of([] { cli::parse_int("tiles", "17", 1, 16); }), "");
  EXPECT_NE(usage_of([] { cli::parse_real("lr", " 0.5", 0, 1); }), "");
  EXPECT_EQ(cli::parse_real("lr", "-0.5", -1, 1), -0.5);
}

TEST(Cli, ControlCharactersArePrintedEscaped) {
  EXPECT_EQ(cli::printable("ring:4"), "ring:4");
  EXPECT_EQ(cli::printable("a\nb\tc\rd\x1b[2J\x7f"), "a\\nb\\tc\\rd\\x1B[2J\\x7F");
  EXPECT_EQ(cli::printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(cli::printable("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays
  const std::string once = cli::printable("\x01\x02");
  EXPECT_EQ(cli::printable(once), once);
  // exit_status prints what a tool's usage printer gets through printable().
  std::string seen;
  const int rc = [&] {
    try {
      throw Usage("--bytes 'x\x1b]0;pwned\x07'");
    } catch (...) {
      return cli::exit_status("t", [&](const char* why) {
        seen = why;
        return 2;
      });
    }
  }();
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(seen, "--bytes 'x\\x1B]0;pwned\\x07'");
}

TEST(Cli, InputFilesMustBeReadableRegularFiles) {
  std::string tmpl = ::testing::TempDir() + "xf_test_cli_XXXXXX";
  ASSERT_NE(mkdtemp(&tmpl[0]), nullptr);
  const std::string dir = tmpl;
  const std::string file = dir + "/chip0.bin", sub = dir + "/chip1.bin", fifo = dir + "/fifo";
  std::ofstream(file) << "12345678";
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(cli::input_file_bytes("input", file), 8u);
  auto m = usage_of([&] { cli::input_file_bytes("input", sub); });
  EXPECT_EQ(m, "--input: " + sub + " is a directory, not a file; give a readable regular file");
  m = usage_of([&] { cli::input_file_bytes("input", fifo); });  // must not block
  EXPECT_NE(m.find("--input: " + fifo + " is a FIFO"), std::string::npos) << m;
  m = usage_of([&] { cli::input_file_bytes("input", dir + "/none.bin"); });
  EXPECT_NE(m.find("cannot be read: No such file"), std::string::npos) << m;
  if (geteuid() != 0) {  // root reads every file
    ASSERT_EQ(chmod(file.c_str(), 0), 0);
    m = usage_of([&] { cli::input_file_bytes("input", file); });
    EXPECT_NE(m.find("Permission denied"), std::string::npos) << m;
  }
  // A file: topology names the file and what is wrong with it.
  try {
    parse_topology("file:" + sub);
    ADD_FAILURE() << "a directory parsed as a topology file";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  std::remove(file.c_str());
  std::remove(fifo.c_str());
  rmdir(sub.c_str());
  rmdir(dir.c_str());
}
