#include "io/embedded_data.hpp"

namespace gpuadvise::io {

std::optional<std::string_view> find_embedded(std::string_view path) {
    for (const auto& f : embedded_files())
        if (f.path == path) return f.bytes;
    return std::nullopt;
}

}  // namespace gpuadvise::io
