// The data files built into the binary (data/ at build time), by path relative to data/.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace gpuadvise::io {

struct EmbeddedFile {
    std::string_view path;  // "providers.yaml", "skypilot/aws.csv"
    std::string_view bytes;
};

const std::vector<EmbeddedFile>& embedded_files();
std::optional<std::string_view> find_embedded(std::string_view path);

}  // namespace gpuadvise::io
