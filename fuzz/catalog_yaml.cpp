// libFuzzer target: one catalog YAML document through the reader, the GPU-name resolution the
// loader does afterwards, and the lint. Any input must end in diagnostics, never a crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace gpuadvise;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Catalog catalog;
    std::vector<io::TableRef> tables;
    Diagnostics diags;
    io::parse_catalog_yaml(text, "fuzz.yaml", false, "/nonexistent", catalog, tables, diags);
    // What load_catalog does next: offers may name GPUs by alias or family (of this document).
    for (const auto& offer : catalog.offers) {
        try {
            (void)resolve_gpu_name(catalog, offer.gpu);
        } catch (const UsageError&) {
        }
    }
    (void)lint_catalog(catalog, "2026-11-29");
    fuzz::consume(diags);
    return 0;
}
