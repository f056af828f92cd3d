#include "gpuadvise/base/dates.hpp"

#include <charconv>

namespace gpuadvise {
namespace {

struct CivilDate {
    int year = 0, month = 0, day = 0;
};

// The date `text` names, or why it names none (`why`); the one check of both functions below.
std::optional<CivilDate> read_iso_date(std::string_view text, std::string* why) {
    auto fail = [why](std::string reason) -> std::optional<CivilDate> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return fail("expected YYYY-MM-DD");
    auto field = [&](std::size_t pos, std::size_t len) -> std::optional<int> {
        int v = 0;
        auto [p, ec] = std::from_chars(text.data() + pos, text.data() + pos + len, v);
        if (ec != std::errc() || p != text.data() + pos + len) return std::nullopt;
        return v;
    };
    auto y = field(0, 4), m = field(5, 2), d = field(8, 2);
    if (!y || !m || !d) return fail("expected YYYY-MM-DD");
    if (*m < 1 || *m > 12) return fail("there is no month " + std::to_string(*m));
    if (*d < 1) return fail("there is no day 0");
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    static const char* const kMonths[] = {"January",   "February", "March",    "April",
                                          "May",       "June",     "July",     "August",
                                          "September", "October",  "November", "December"};
    const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
    const int days = kDays[*m - 1] + (*m == 2 && leap ? 1 : 0);
    if (*d > days)
        return fail(std::string(kMonths[*m - 1]) + " " + std::to_string(*y) + " has " + std::to_string(days) +
                    " days");
    return CivilDate{*y, *m, *d};
}

}  // namespace

std::optional<long> parse_iso_date(std::string_view text) {
    const auto date = read_iso_date(text, nullptr);
    if (!date) return std::nullopt;
    // Howard Hinnant's days_from_civil.
    long yy = date->year - (date->month <= 2 ? 1 : 0);
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long mp = (date->month + 9) % 12;
    long doy = (153 * mp + 2) / 5 + date->day - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

std::string iso_date_problem(std::string_view text) {
    std::string why;
    read_iso_date(text, &why);
    return why;
}

}  // namespace gpuadvise
