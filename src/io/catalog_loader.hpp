// Loads the catalog: the built-in data (data/ compiled into the binary), then each --catalog file
// in order; later files override earlier ones. All problems are collected; if any is an error,
// nothing is returned (DataError with every diagnostic) — never a half-loaded catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"

namespace gpuadvise::io {

struct CatalogOptions {
    std::vector<std::string> files;  // user catalogs, in order (YAML, or a SkyPilot CSV)
    bool builtin = true;             // start from the built-in data
    std::string provider_name;       // --provider-name for a CSV given directly
    std::string today;               // ISO date for the staleness lint; empty = skip it
};

Catalog load_catalog(const CatalogOptions& options);

// Parses one YAML document into `out` (used by the loader and by tests on strings).
// `origin` names the file in diagnostics; `base_dir` resolves table paths ("" = built-in data).
struct TableRef;
void parse_catalog_yaml(std::string_view text, const std::string& origin, bool builtin, const std::string& base_dir,
                        Catalog& out, std::vector<TableRef>& tables, Diagnostics& diags);

// Reads a whole file (src/io/read_file.cpp, the one place files are read): only a regular file of at
// most kMaxInputBytes; a FIFO, device, directory or socket, an open or read error (nothing of a file
// that failed midway is returned) throws DataError naming the file and the reason.
inline constexpr unsigned long long kMaxInputBytes = 1ULL << 30;  // 1 GiB
std::string read_file(const std::string& path);
// "a FIFO (named pipe)", "a directory", ... for a st_mode.
std::string describe_file_type(unsigned mode);

}  // namespace gpuadvise::io
