#include "gpuadvise/base/dates.hpp"

#include <charconv>

namespace gpuadvise {

std::optional<long> parse_iso_date(std::string_view text) {
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
    auto field = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
        int v = 0;
        auto [p, ec] = std::from_chars(text.data() + pos, text.data() + pos + len, v);
        if (ec != std::errc() || p != text.data() + pos + len) return std::nullopt;
        return v;
    };
    auto y = field(0, 4), m = field(5, 2), d = field(8, 2);
    if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1) return std::nullopt;
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
    if (*d > kDays[*m - 1] + (*m == 2 && leap ? 1 : 0)) return std::nullopt;
    // Howard Hinnant's days_from_civil.
    long yy = *y - (*m <= 2 ? 1 : 0);
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long mp = (*m + 9) % 12;
    long doy = (153 * mp + 2) / 5 + *d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

}  // namespace gpuadvise
