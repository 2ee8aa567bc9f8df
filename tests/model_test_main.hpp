// sc_main for GoogleTest binaries that use the SystemC model. SystemC owns main() and
// elaborates once per process, so ctest runs each test case in its own process
// (gtest_discover_tests); a binary run by hand with several cases runs only the first that
// builds a System, and says so.
#pragma once

#include <gtest/gtest.h>

#include <systemc>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
