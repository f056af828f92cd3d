// Bulk offer tables (SkyPilot vms.csv format) referenced by providers or given with --catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
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

// What a skip reason recorded in Catalog::skipped is about, for summaries.
enum class SkipKind {
    spot_not_below_on_demand,  // spot price dropped, offer kept
    empty_price,               // on-demand price empty in the table
    zero_price,                // a price of 0 (on-demand, or spot meaning "no spot market")
    sentinel_price,            // GCP's 700.0 placeholder
    accelerator,               // the accelerator is not a GPU, unknown or ambiguous: row skipped
    merged,                    // zone duplicate merged into another offer
    other,                     // GPU-only prices, no usable price, bad counts
};
SkipKind skip_kind(std::string_view reason);

// True when `bytes` starts with a SkyPilot vms.csv header.
bool looks_like_skypilot_csv(std::string_view bytes);

// The name a table is reported under: "<built-in>/skypilot/aws.csv" or the path given.
std::string table_display_name(const TableRef& ref);

}  // namespace gpuadvise::io
