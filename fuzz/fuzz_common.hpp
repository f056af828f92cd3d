// Shared by the fuzz targets: the built-in catalog (loaded once) and a sink for diagnostics, so
// that formatting every message is exercised too.
#pragma once

#include <string>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/catalog_loader.hpp"

namespace gpuadvise::fuzz {

inline const Catalog& builtin_catalog() {
    static const Catalog catalog = [] {
        io::CatalogOptions options;
        return io::load_catalog(options);
    }();
    return catalog;
}

inline volatile std::size_t formatted_bytes = 0;

inline void consume(const Diagnostics& diags) {
    for (const auto& d : diags.all()) formatted_bytes = formatted_bytes + format_diagnostic(d).size();
}

}  // namespace gpuadvise::fuzz
