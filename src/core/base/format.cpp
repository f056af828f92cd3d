#include "gpuadvise/base/format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gpuadvise {
namespace {

// %g with 3 significant digits: 336, 1.28, 88.6 (never an exponent below 1e15).
std::string significant(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

}  // namespace

std::string format_count(double v) {
    const double a = std::fabs(v);
    if (a >= 999.5e9) return significant(v / 1e12) + "T";
    if (a >= 999.5e6) return significant(v / 1e9) + "B";
    if (a >= 999.5e3) return significant(v / 1e6) + "M";
    if (a >= 999.5) return significant(v / 1e3) + "k";
    return significant(v);
}

std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string format_amount(double amount, std::string_view currency) {
    const double a = std::fabs(amount);
    return format_fixed(amount, a >= 100 ? 0 : a >= 1 ? 2 : 4) + " " + std::string(currency);
}

std::string format_duration(double hours) {
    return format_fixed(hours, hours >= 10 ? 0 : hours >= 1 ? 1 : 2) + " h";
}

std::string format_fixed(double v, int decimals) {
    // std::to_chars prints what printf's "%.*f" prints (correctly rounded), at a tenth of its cost: a
    // thousand-point --what-if table or an HTML report formats tens of thousands of numbers.
    char buf[64];
    if (decimals >= 0)
        if (const auto [end, ec] =
                std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
            ec == std::errc())
            return std::string(buf, end);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);  // longer than the buffer: as printf cuts it
    return buf;
}

std::string format_money(double v) { return format_fixed(v, std::fabs(v) < 100 ? 2 : 0); }

std::string format_hours(double h) {
    if (!(h > 0)) return "-";
    if (h < 0.1) return format_fixed(h, 3);
    if (h < 10) return format_fixed(h, 1);
    return format_fixed(h, 0);
}

std::string format_percent(double share) {
    const double pct = 100 * share;
    return format_fixed(pct, std::fabs(pct) < 1 && pct != 0 ? 2 : 0) + "%";
}

std::string count_noun(double count, std::string_view singular, std::string_view plural) {
    const bool one = count == 1;
    std::string noun = one              ? std::string(singular)
                       : plural.empty() ? std::string(singular) + "s"
                                        : std::string(plural);
    return format_number(count) + " " + noun;
}

}  // namespace gpuadvise
