#include "gpuadvise/gpu.hpp"

#include <algorithm>
#include <charconv>

#include "gpuadvise/text.hpp"

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
    double value = 0;
    const char* begin = compute_capability.data();
    const char* end = begin + compute_capability.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

bool Gpu::supports(Precision p) const { return tflops.at(p).has_value(); }

bool Gpu::is_uncertain(std::string_view field) const {
    return std::find(uncertain.begin(), uncertain.end(), field) != uncertain.end();
}

}  // namespace gpuadvise
