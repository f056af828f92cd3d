#include "gpuadvise/catalog/gpu.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "gpuadvise/base/text.hpp"

namespace gpuadvise {

std::string_view to_string(Precision p) { return kPrecisionNames.name(p); }

std::optional<Precision> parse_precision(std::string_view text) { return kPrecisionNames.parse(text); }

std::optional<double> DenseTflops::at(Precision p) const {
    switch (p) {
        case Precision::fp32: return fp32;
        case Precision::tf32: return tf32;
        case Precision::fp16: return fp16;
        case Precision::bf16: return bf16;
        case Precision::fp8: return fp8;
    }
    return std::nullopt;
}

std::optional<double> Gpu::compute_capability_value() const {
    // The layout planner asks this per layout (memory_model's attention choice), so the usual form,
    // "8.0" or "12.0" (digits, a point, digits), is read without from_chars and to the same value:
    // the digits as an integer divided by a power of ten, both exact in a double, and the division
    // rounds once, correctly, as from_chars does (Clinger's fast path). Anything else: from_chars.
    static constexpr double kPowersOfTen[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    std::uint64_t digits = 0;
    int fraction = -1;  // digits after the point; -1: no point yet
    bool plain =
        !compute_capability.empty() && compute_capability.size() <= 16 && compute_capability[0] != '.';
    for (char ch : compute_capability) {
        if (!plain) break;
        if (ch == '.') {
            plain = fraction < 0;
            fraction = 0;
        } else if (ch >= '0' && ch <= '9') {
            digits = digits * 10 + static_cast<std::uint64_t>(ch - '0');
            if (fraction >= 0) ++fraction;
        } else {
            plain = false;
        }
    }
    if (plain && fraction > 0 && fraction < static_cast<int>(std::size(kPowersOfTen)))
        return static_cast<double>(digits) / kPowersOfTen[fraction];
    double value = 0;
    const char* begin = compute_capability.data();
    const char* end = begin + compute_capability.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

bool Gpu::supports(Precision p) const { return tflops.at(p).has_value(); }

bool Gpu::is_amd() const { return vendor == "AMD" || compute_capability.rfind("gfx", 0) == 0; }

bool Gpu::is_uncertain(std::string_view field) const {
    return std::find(uncertain.begin(), uncertain.end(), field) != uncertain.end();
}

}  // namespace gpuadvise
