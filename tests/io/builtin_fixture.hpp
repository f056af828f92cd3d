// The [io] tests' built-in catalog, loaded once per test binary on the goldens' date, and a GPU from it.
#pragma once

#include <catch2/catch.hpp>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/catalog_loader.hpp"

namespace gpuadvise::testing {

inline const Catalog& builtin() {
    static const Catalog catalog = [] {
        io::CatalogOptions o;
        o.builtin = true;
        o.today = "2026-11-29";
        return io::load_catalog(o);
    }();
    return catalog;
}

inline const Gpu& builtin_gpu(const char* id) {
    const Gpu* g = builtin().find_gpu(id);
    INFO("GPU " << id);
    REQUIRE(g != nullptr);
    return *g;
}

}  // namespace gpuadvise::testing
