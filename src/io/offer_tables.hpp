// Bulk offer tables (SkyPilot vms.csv format) referenced by providers or given with --catalog.
#pragma once

#include <string>
#include <string_view>

#include "gpuadvise/catalog.hpp"
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {

// Reads the table's rows into catalog.offers (provider = ref.provider), records what was
// skipped in catalog.skipped, and reports located problems (file:line) into diags.
void load_offer_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags);

// True when `bytes` starts with a SkyPilot vms.csv header.
bool looks_like_skypilot_csv(std::string_view bytes);

}  // namespace gpuadvise::io
