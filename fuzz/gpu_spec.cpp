// libFuzzer target: a GPU spec as typed after --gpu ("A100:80GB:8", "H100,H200", "80GB"), parsed
// and resolved against the built-in catalog. UsageError is the expected answer to bad input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpuadvise;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Catalog& catalog = fuzz::builtin_catalog();
    try {
        GpuSpec spec = parse_gpu_spec(text);
        (void)select_gpus(catalog, spec);
    } catch (const UsageError& e) {
        (void)e.hint();
    }
    try {
        (void)resolve_gpu_name(catalog, text);
    } catch (const UsageError&) {
    }
    return 0;
}
