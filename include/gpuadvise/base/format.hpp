// One home for how numbers read in messages and tables: counts, fixed decimals, money, hours,
// percentages and a count with its noun. The core's messages and the cli's renderers both use it, so
// that one screen never shows "336 M params" beside "336M parameters".
#pragma once

#include <string>
#include <string_view>

namespace gpuadvise {

// 3 significant digits with k / M / B / T and no space: 750, 88.6k, 1.28M, 336M, 14.5B, 5T.
std::string format_count(double v);
// A plain number, shortest form (%g): 4, 4.5, 0.125.
std::string format_number(double v);
// An amount with its currency, as messages write it: "7.91 USD", "179 USD", "0.0035 USD".
std::string format_amount(double amount, std::string_view currency);
// A duration in hours, as messages write it: "0.49 h", "1.4 h", "37 h".
std::string format_duration(double hours);
// Fixed decimals: format_fixed(3.14159, 2) == "3.14".
std::string format_fixed(double v, int decimals);
// An amount of money: 2 decimals below 100 (3.38, 0.19), whole above (179, 1234).
std::string format_money(double v);
// Hours with sensible precision: 0.012, 1.4, 37, 1200; "-" for none (0 or less).
std::string format_hours(double h);
// A share (0.22) as a percentage: "22%"; below 1% with two decimals ("0.35%").
std::string format_percent(double share);
// The count and its noun, agreeing: "1 run", "4 runs", "4.5 runs", "0 runs". `plural` defaults to
// the singular with an "s".
std::string count_noun(double count, std::string_view singular, std::string_view plural = {});

}  // namespace gpuadvise
