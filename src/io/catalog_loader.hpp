// Loads the catalog: the built-in data (data/ compiled into the binary), then each --catalog file
// in order; later files override earlier ones. All problems are collected; if any is an error,
// nothing is returned (DataError with every diagnostic) — never a half-loaded catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise::io {

struct CatalogOptions {
    std::vector<std::string> files;  // user catalogs, in order (YAML, or a SkyPilot CSV)
    bool builtin = true;             // start from the built-in data
    std::string provider_name;       // --provider-name for a CSV given directly
    std::string today;               // ISO date for the staleness lint; empty = skip it
    bool strict_variants = false;    // drop table rows whose GPU variant was assumed (--strict-variants)
    std::string as_of;               // --as-of: date of SkyPilot tables given directly (else "as-of unknown")
    bool sky_catalogs = true;        // read ~/.sky/catalogs when present (with the built-in data only)
    bool cache = true;  // layer the `catalog update` cache (io/update_cache.hpp) over the built-in data
};

// Rows kept with an assumed GPU variant (a bare "A100"), over all tables: the "variant assumed"
// reasons in catalog.skipped.
long variant_assumed_rows(const Catalog& catalog);

Catalog load_catalog(const CatalogOptions& options);

// The built-in data's files are reported as "<built-in>/providers.yaml", "<built-in>/skypilot/aws.csv".
inline constexpr std::string_view kBuiltinFilePrefix = "<built-in>/";
inline std::string builtin_file_name(std::string_view name) {
    return std::string(kBuiltinFilePrefix) + std::string(name);
}
inline bool is_builtin_file(std::string_view file) {
    return file.substr(0, kBuiltinFilePrefix.size()) == kBuiltinFilePrefix;
}

// SkyPilot catalog schema versions this gpuadvise reads (catalogs/v<N>/<cloud>/vms.csv).
inline constexpr int kNewestSkypilotSchema = 9;
inline constexpr int kOldestSkypilotSchema = 5;

// One table of a SkyPilot tree: the cloud (its directory's name, lower case) and the vms.csv path.
struct TreeTable {
    std::string provider;
    std::string path;
};

// The tables of a directory: `DIR/<cloud>/vms.csv`, else the newest version this gpuadvise reads of
// `DIR/v<N>/<cloud>/vms.csv` or `DIR/catalogs/v<N>/<cloud>/vms.csv`; empty when none.
std::vector<TreeTable> skypilot_tree_tables(const std::string& dir);

// SkyPilot's own download directory, ~/.sky/catalogs ($GPUADVISE_SKY_DIR overrides, "" = none).
std::string skypilot_home_catalogs();

// Parses one YAML document into `out` (used by the loader and by tests on strings).
// `origin` names the file in diagnostics; `base_dir` resolves table paths ("" = built-in data).
struct TableRef;
void parse_catalog_yaml(std::string_view text, const std::string& origin, bool builtin,
                        const std::string& base_dir, Catalog& out, std::vector<TableRef>& tables,
                        Diagnostics& diags);

// Reads a whole file (src/io/read_file.cpp, the one place files are read): only a regular file of at
// most kMaxInputBytes; a FIFO, device, directory or socket, an open or read error (nothing of a file
// that failed midway is returned) throws DataError naming the file and the reason.
inline constexpr unsigned long long kMaxInputBytes = 1ULL << 30;  // 1 GiB
std::string read_file(const std::string& path);
// "a FIFO (named pipe)", "a directory", ... for a st_mode.
std::string describe_file_type(unsigned mode);

}  // namespace gpuadvise::io
