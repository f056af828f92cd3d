// ISO dates (YYYY-MM-DD) as day numbers, for price freshness.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuadvise {

// Days since 1970-01-01; nullopt unless the text is a valid YYYY-MM-DD date.
std::optional<long> parse_iso_date(std::string_view text);
// Why `text` is not a valid YYYY-MM-DD date, for an error to say after the date; "" when it is one:
// "expected YYYY-MM-DD", "there is no month 13", "February 2026 has 28 days", "there is no day 0".
std::string iso_date_problem(std::string_view text);

}  // namespace gpuadvise
