// GPU names and specs as users type them: "A100", "a100-80gb-sxm", "A100:80GB:8", "H100,H200", "80GB".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise {

struct GpuSpec {
    std::vector<std::string> names;   // empty = any GPU
    std::optional<double> memory_gb;  // per GPU, exact (as datasheets quote it)
    std::optional<int> count;         // GPUs per offer
};

// Throws UsageError for an empty token, two counts, a zero or absurd count.
GpuSpec parse_gpu_spec(std::string_view text);

struct GpuMatch {
    std::string query;
    std::vector<const Gpu*> gpus;  // every variant the name covers, catalog order
    std::string matched_by;        // "id", "alias" or "family"
};

// Resolves one name; throws UsageError with "did you mean" when nothing matches.
GpuMatch resolve_gpu_name(const Catalog& catalog, std::string_view name);

// All GPUs a spec selects (names resolved, memory applied); duplicates removed.
std::vector<const Gpu*> select_gpus(const Catalog& catalog, const GpuSpec& spec);

}  // namespace gpuadvise
