// The one formatting module (issue 11): counts, money, hours, percentages and nouns that agree.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "gpuadvise/base/format.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_format {

using namespace gpuadvise;

TEST_CASE("format_count writes 3 significant digits and a suffix without a space", "[core]") {
    CHECK(format_count(336e6) == "336M");
    CHECK(format_count(88641) == "88.6k");
    CHECK(format_count(1.28e6) == "1.28M");
    CHECK(format_count(69e9) == "69B");
    CHECK(format_count(6.74e9) == "6.74B");
    CHECK(format_count(5e12) == "5T");
    CHECK(format_count(750) == "750");
    CHECK(format_count(999.7e3) == "1M");  // rounds up into the next suffix, never "1e+03k"
}

TEST_CASE("money, hours and percentages read the same everywhere", "[core]") {
    CHECK(format_fixed(3.14159, 2) == "3.14");
    CHECK(format_money(3.384) == "3.38");
    CHECK(format_money(179.4) == "179");
    CHECK(format_hours(0.0123) == "0.012");
    CHECK(format_hours(1.44) == "1.4");
    CHECK(format_hours(37.2) == "37");
    CHECK(format_hours(0) == "-");
    CHECK(format_percent(0.22) == "22%");
    CHECK(format_percent(0.0035) == "0.35%");
}

TEST_CASE("count_noun makes the noun agree with its count", "[core]") {
    CHECK(count_noun(1, "run") == "1 run");
    CHECK(count_noun(4, "run") == "4 runs");
    CHECK(count_noun(4.5, "run") == "4.5 runs");
    CHECK(count_noun(0, "warning") == "0 warnings");
    CHECK(count_noun(2, "query", "queries") == "2 queries");
}

// format_fixed prints through std::to_chars: the same text as printf's "%.*f" (correctly rounded, ties
// of exact binary values to even), including ties, negative zero, the infinities and huge values.
TEST_CASE("format_fixed prints what printf's %.*f prints", "[core]") {
    std::vector<double> values = {0.0,
                                  -0.0,
                                  0.25,
                                  0.35,
                                  2.5,
                                  -2.5,
                                  0.05,
                                  0.049999,
                                  1.005,
                                  123.45,
                                  1e-7,
                                  1e15,
                                  1e20,
                                  1e300,
                                  -1e300,
                                  4.35,
                                  99.995,
                                  1e-300,
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  std::nan("")};
    std::mt19937_64 random(42);
    std::uniform_real_distribution<double> spread(-1e6, 1e6);
    for (int i = 0; i < 2000; ++i) values.push_back(spread(random) / std::pow(10.0, i % 7));
    for (double v : values)
        for (int decimals : {0, 1, 2, 3, 6}) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
            INFO(v << " with " << decimals << " decimals");
            CHECK(format_fixed(v, decimals) == buf);
        }
}

}  // namespace unit_test_format
