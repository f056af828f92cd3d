// What the terminal can do: colour only on a TTY, NO_COLOR respected, --color overrides.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpuadvise::io {

enum class ColorMode { automatic, always, never };

bool stdout_is_terminal();
// The width output is laid out for: COLUMNS when it is a positive number, else the width of the
// terminal on `fd` when it is one, else 100. Never below 20.
std::size_t terminal_width(int fd = 1);
// auto: colour when stdout is a TTY, NO_COLOR is unset or empty and TERM is not "dumb".
bool use_color(ColorMode mode);
// Today's date (YYYY-MM-DD), or GPUADVISE_TODAY when set (reproducible tests).
std::string today_iso();

}  // namespace gpuadvise::io
