#include "io/terminal.hpp"

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace gpuadvise::io {

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }

std::size_t terminal_width(int fd) {
    constexpr std::size_t kDefault = 100, kMinimum = 20;
    if (const char* env = std::getenv("COLUMNS"); env && *env) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end && !*end && v > 0) return std::max(kMinimum, static_cast<std::size_t>(v));
    }
    winsize ws{};
    if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return std::max(kMinimum, static_cast<std::size_t>(ws.ws_col));
    return kDefault;
}

bool use_color(ColorMode mode) {
    if (mode == ColorMode::always) return true;
    if (mode == ColorMode::never) return false;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    const char* term = std::getenv("TERM");
    if (term && std::string_view(term) == "dumb") return false;
    return stdout_is_terminal();
}

std::string today_iso() {
    if (const char* fixed = std::getenv("GPUADVISE_TODAY"); fixed && *fixed) {
        if (!parse_iso_date(fixed))
            throw UsageError(std::string("GPUADVISE_TODAY: '") + fixed + "' is not a YYYY-MM-DD date",
                             "unset it to use today's date, or give e.g. GPUADVISE_TODAY=2026-11-29");
        return fixed;
    }
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

}  // namespace gpuadvise::io
