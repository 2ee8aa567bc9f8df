// The command-line helpers every tool shares (sw/include/xf/cli.hpp): sizes and whole numbers
// reject a sign, a space, a fraction and an overflow with a message that names the option.
#include <gtest/gtest.h>

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
