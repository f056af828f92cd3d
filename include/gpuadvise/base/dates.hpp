// ISO dates (YYYY-MM-DD) as day numbers, for price freshness.
#pragma once

#include <optional>
#include <string_view>

namespace gpuadvise {

// Days since 1970-01-01; nullopt unless the text is a valid YYYY-MM-DD date.
std::optional<long> parse_iso_date(std::string_view text);

}  // namespace gpuadvise
