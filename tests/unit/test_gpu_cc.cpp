// Gpu::compute_capability_value reads the usual "8.0" form without from_chars; it must give the
// value from_chars gives, bit for bit, and refuse what from_chars refuses.
#include <catch2/catch.hpp>

#include <charconv>
#include <optional>
#include <string>

#include "gpuadvise/catalog/gpu.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_gpu_cc {

using namespace gpuadvise;

namespace {
std::optional<double> by_from_chars(const std::string& text) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}
}  // namespace

TEST_CASE("compute capability reads as from_chars does", "[core]") {
    std::vector<std::string> texts = {"",
                                      ".",
                                      "8",
                                      "8.",
                                      ".5",
                                      "8.0.1",
                                      "8,0",
                                      "x",
                                      "8.x",
                                      "-8.0",
                                      "+8.0",
                                      "1e1",
                                      "8.9",
                                      "9.0",
                                      "12.0",
                                      "10.10",
                                      "0.1",
                                      "3.7",
                                      "7.5",
                                      "12.345678",
                                      "123456789012345.6",
                                      "1234567890123456.7",
                                      "00008.90"};
    for (int major = 0; major <= 20; ++major)
        for (int minor = 0; minor <= 99; ++minor)
            texts.push_back(std::to_string(major) + "." + std::to_string(minor));
    for (const auto& text : texts) {
        INFO("'" << text << "'");
        Gpu g;
        g.compute_capability = text;
        const auto expected = by_from_chars(text);
        const auto got = g.compute_capability_value();
        REQUIRE(got.has_value() == expected.has_value());
        if (expected) CHECK(*got == *expected);
    }
    Gpu a100;
    a100.compute_capability = "8.0";
    CHECK(a100.compute_capability_value() == 8.0);
}

}  // namespace unit_test_gpu_cc
