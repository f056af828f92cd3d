// What the terminal can do: colour only on a TTY, NO_COLOR respected, --color overrides.
#pragma once

#include <string>
#include <string_view>

namespace gpuadvise::io {

enum class ColorMode { automatic, always, never };

bool stdout_is_terminal();
// auto: colour when stdout is a TTY, NO_COLOR is unset or empty and TERM is not "dumb".
bool use_color(ColorMode mode);
// Today's date (YYYY-MM-DD), or GPUADVISE_TODAY when set (reproducible tests).
std::string today_iso();

}  // namespace gpuadvise::io
