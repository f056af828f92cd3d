// Rules every number a user writes passes, wherever it is written (an option, a jobs file, a
// catalog, the configuration file), so that the command line and the files refuse the same values.
#pragma once

#include <cmath>
#include <string_view>

namespace gpuadvise {

// A non-zero number below double's normal range (about 2.2e-308): held with fewer digits than it
// was written with, and noise in every quantity gpuadvise reads (1e-320 runs a week, 1e-320 epochs).
inline bool is_denormal(double v) { return v != 0 && std::fpclassify(v) == FP_SUBNORMAL; }

// What an error says after the value it quotes, before the fix that fits the place ("'1e-320' is too
// small to be represented exactly (a denormal); use 0 or a larger value").
inline constexpr std::string_view kDenormalReason = "is too small to be represented exactly (a denormal)";

}  // namespace gpuadvise
