// iequals compares ASCII letters without case, as std::tolower does in the "C" locale that
// gpuadvise runs in (it never calls setlocale); every other byte only equals itself.
#include <catch2/catch.hpp>

#include <cctype>
#include <string>

#include "gpuadvise/base/text.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_iequals {

using namespace gpuadvise;

TEST_CASE("iequals agrees with std::tolower on every pair of bytes", "[core]") {
    int mismatches = 0;
    for (int x = 0; x < 256; ++x)
        for (int y = 0; y < 256; ++y) {
            const std::string a(1, static_cast<char>(x)), b(1, static_cast<char>(y));
            const bool expected = std::tolower(x) == std::tolower(y);
            if (iequals(a, b) != expected) ++mismatches;
        }
    CHECK(mismatches == 0);
    CHECK(iequals("AWS", "aws"));
    CHECK(iequals("p4d.24XLarge", "P4D.24xlarge"));
    CHECK_FALSE(iequals("aws", "aws "));
    CHECK_FALSE(iequals("a[", "A{"));  // '[' and '{' are 32 apart, not a case pair
    CHECK(iequals("", ""));
}

}  // namespace unit_test_iequals
