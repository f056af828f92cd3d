// Bulk offer tables (SkyPilot vms.csv format) referenced by providers or given with --catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "io/catalog_loader.hpp"
#include "io/catalog_sections.hpp"

namespace gpuadvise::io {

// Reads the table's rows into catalog.offers (provider = ref.provider), records what was
// skipped in catalog.skipped, and reports located problems (file:line) into diags.
void load_offer_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags);

// Several tables of one provider read together, so that GCP host rows in one file price the
// accelerator rows of another (upstream keeps both in one vms.csv).
// `stream` set: the table is read from it piece by piece instead of from `bytes` (a large table given
// on the command line: memory grows with the offers kept, not the file).
struct TableSource {
    TableRef ref;
    std::string_view bytes;
    LineChunks* stream = nullptr;
    const Provider* provider = nullptr;  // ref.provider's entry, when the caller looked it up (else found)
    StreamKeying keying = StreamKeying::balance;  // a stream's: CatalogOptions::stream_keying
};
// `filter` (a command's --gpu/--provider/--region, CatalogOptions::filter): offers that cannot match it
// are not kept (their rows are still checked and counted; docs/catalog.md, "Filters applied while
// reading"); nullptr keeps every offer. What it left out is counted into `pruned` (for lint_catalog).
void load_offer_tables(const std::vector<TableSource>& sources, Catalog& catalog, Diagnostics& diags,
                       const OfferFilter* filter = nullptr, std::vector<PrunedOffers>* pruned = nullptr);

using gpuadvise::SkipKind;  // recorded per reason in SkipSummary::rows_by_kind

// True when `bytes` starts with a SkyPilot vms.csv header.
bool looks_like_skypilot_csv(std::string_view bytes);

// The name a table is reported under: "<built-in>/skypilot/aws.csv" or the path given.
std::string table_display_name(const TableRef& ref);

}  // namespace gpuadvise::io
