// Bulk offer tables (SkyPilot vms.csv format) referenced by providers or given with --catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {

// Reads the table's rows into catalog.offers (provider = ref.provider), records what was
// skipped in catalog.skipped, and reports located problems (file:line) into diags.
void load_offer_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags);

// Several tables of one provider read together, so that GCP host rows in one file price the
// accelerator rows of another (upstream keeps both in one vms.csv).
struct TableSource {
    TableRef ref;
    std::string_view bytes;
};
void load_offer_tables(const std::vector<TableSource>& sources, Catalog& catalog, Diagnostics& diags);

using gpuadvise::SkipKind;  // recorded per reason in SkipSummary::rows_by_kind

// True when `bytes` starts with a SkyPilot vms.csv header.
bool looks_like_skypilot_csv(std::string_view bytes);

// The name a table is reported under: "<built-in>/skypilot/aws.csv" or the path given.
std::string table_display_name(const TableRef& ref);

}  // namespace gpuadvise::io
