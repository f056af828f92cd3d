#include "gpuadvise/base/names.hpp"

#include "gpuadvise/base/errors.hpp"

namespace gpuadvise {

void throw_unknown_name(std::string_view text, std::string_view what, const std::vector<std::string>& names) {
    std::string hint = "expected one of: " + join(names, ", ");
    if (auto best = closest_match(text, names)) hint = "did you mean '" + *best + "'? " + hint;
    throw UsageError(std::string(what) + ": unknown value '" + shorten(text) + "'", hint);
}

}  // namespace gpuadvise
