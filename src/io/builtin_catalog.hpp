// The built-in catalog (data/) in the stages load_catalog combines it in, so that it can be read
// once at build time and compiled in as a snapshot (tools/make_snapshot.cpp): start-up then parses
// no YAML and no CSV. The stages matter because --catalog layers come between them: they merge
// over the YAML documents and before the SkyPilot tables are read (docs/catalog.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/catalog_loader.hpp"
#include "io/table_ref.hpp"

namespace gpuadvise::io {

// What one built-in table added, read against the built-in GPUs and its built-in provider. The
// table reader reads nothing else of the catalog (skypilot_csv.cpp: the GPU list through the name
// mapper, the provider's as_of and source), so the rows stay valid while those are unchanged.
struct BuiltinTable {
    TableRef ref;
    std::string provider_as_of;  // the provider's as_of and source when it was read
    std::string provider_source;
    std::vector<Offer> offers;
    std::vector<SkipSummary> skipped;
    std::vector<Diagnostic> diagnostics;

    bool operator==(const BuiltinTable&) const = default;
};

// Every built-in table read and joined as load_catalog joins them (a commitment table's rows attached to
// its provider's offers): what load_catalog takes as it is when the tables to read are the built-in ones,
// unchanged, which is every command without --catalog layers or a cached table. It saves attaching the
// commitments at every start.
struct JoinedTables {
    std::vector<BuiltinTable> stamps;  // each table's ref and provider stamp (no rows), in order
    // The catalog's offers after the tables: the base's, then the tables', their GPUs resolved
    // (resolve_offer_gpus: load_catalog takes them as they are).
    std::vector<Offer> offers;
    std::vector<SkipSummary> skipped;  // the same for the skipped rows
    std::vector<Diagnostic> diagnostics;
    // What lint_catalog's undated checks find in the catalog these tables make (the base and `offers`,
    // their GPU names resolved): load_catalog takes them with the offers and checks only the dates and
    // the exchange rates at run time (1.6 M of the common question's 31 M instructions were the lint).
    std::vector<Diagnostic> undated_lint;

    bool operator==(const JoinedTables&) const = default;
};

struct BuiltinCatalog {
    Catalog base;  // the four YAML documents merged: no table rows yet, offer GPU names not resolved
    std::vector<Diagnostic> diagnostics;  // found reading them
    std::vector<BuiltinTable> tables;     // in the order load_catalog reads them
    std::optional<JoinedTables> joined;   // made by read_builtin_catalog
    // read_builtin_snapshot(bytes, false): the snapshot's bytes of `tables`, decoded by load_catalog only
    // when `joined` cannot serve (read_snapshot_tables). Empty otherwise.
    std::string_view tables_bytes;
    // builtin_snapshot_key() of the binary whose snapshot this is (set by load_catalog(options), not
    // stored in the snapshot): the key of the cache's table stores; 0 = read and write none.
    std::uint64_t store_key = 0;

    bool operator==(const BuiltinCatalog&) const = default;
};

// Reads data/ (embedded YAML and CSV) into its stages. Problems are in the diagnostics, not thrown.
BuiltinCatalog read_builtin_catalog();

// load_catalog with the built-in stages given (moved from), or nullopt to parse the embedded
// YAML and CSV as they are. Results are identical; load_catalog(options) passes the snapshot.
Catalog load_catalog(const CatalogOptions& options, std::optional<BuiltinCatalog> builtin);

// The snapshot format (catalog_snapshot.cpp, cereal binary archive behind a magic header).
std::string write_builtin_snapshot(const BuiltinCatalog& builtin);
// Throws DataError when `bytes` is not a complete snapshot of this version. With tables_now false, the
// tables are left in `tables_bytes` (which points into `bytes`) for read_snapshot_tables.
BuiltinCatalog read_builtin_snapshot(std::string_view bytes, bool tables_now = true);
std::vector<BuiltinTable> read_snapshot_tables(std::string_view tables_bytes);
// The same tables one by one: each table's ref and its bytes (pointing into `tables_bytes`), decoded by
// read_snapshot_table only when a load reads that table. Throw DataError as read_builtin_snapshot does.
struct SnapshotTablePart {
    TableRef ref;
    std::string_view bytes;
};
std::vector<SnapshotTablePart> index_snapshot_tables(std::string_view tables_bytes);
BuiltinTable read_snapshot_table(const SnapshotTablePart& part);

// The compact store of a `catalog update` cache table (<cache>/skypilot/<cloud>/vms.store beside its
// vms.csv): the table as the loader reads it (its offers, skipped rows and diagnostics, in the snapshot's
// format), behind a header that names what it was read from: the gpuadvise build (builtin_snapshot_key:
// the GPU list and name mapping it read with) and the size and hash of the vms.csv bytes, and the
// payload's own size and hash. A store is used only when all of them match (and the loader checks the
// table's path and provider stamp too); otherwise the CSV is read.
struct TableStoreKey {
    std::uint64_t build = 0;
    std::uint64_t csv_hash = 0;  // hash_text of the vms.csv bytes
    std::uint64_t csv_size = 0;
};
std::string write_table_store(const BuiltinTable& table, const TableStoreKey& key);
// The table, or nullopt with `why` set: "stale: ..." (made from other inputs) or "corrupt: ...".
std::optional<BuiltinTable> read_table_store(std::string_view bytes, const TableStoreKey& key,
                                             std::string& why);

// The snapshot compiled into gpuadvise (generated by cmake/EmbedData.cmake). Linked only into
// gpuadvise_io, never into the snapshot tool, which makes it.
std::string_view builtin_snapshot_bytes();

}  // namespace gpuadvise::io
