// Loads the catalog: the built-in data (data/ compiled into the binary), then each --catalog file
// in order; later files override earlier ones. All problems are collected; if any is an error,
// nothing is returned (DataError with every diagnostic) — never a half-loaded catalog.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

namespace gpuadvise::io {

// The filters of a command that tables given directly (--catalog FILE.csv or DIR, ~/.sky/catalogs, the
// `catalog update` cache) apply while they are read: an offer that cannot match them is not kept
// (`offers --gpu/--provider/--region`; query_offers applies them again, with the other filters).
struct OfferFilter {
    GpuSpec gpu;                         // names and memory empty = any GPU; count = that many GPUs
    std::vector<std::string> providers;  // ids, case-insensitive; empty = all
    std::vector<std::string> regions;    // substrings, case-insensitive; empty = all
    bool strict_variants = false;        // set by load_catalog from CatalogOptions
};

// Which stage of a streamed table's read (io/skypilot_csv.cpp: a read stage on a thread of its own,
// an offer stage) works out its rows' GpuInfo facts, GPUs and keys: `balance` has the read stage do it
// while the offer stage is behind and leaves it to the offer stage otherwise; the others pin it (the
// offers and messages never depend on it: tests read a table each way).
enum class StreamKeying { balance, read_stage, offer_stage };

struct CatalogOptions {
    std::vector<std::string> files;  // user catalogs, in order (YAML, or a SkyPilot CSV)
    bool builtin = true;             // start from the built-in data
    std::string provider_name;       // --provider-name for a CSV given directly
    std::string today;               // ISO date for the staleness lint; empty = skip it
    bool strict_variants = false;    // drop table rows whose GPU variant was assumed (--strict-variants)
    std::string as_of;               // --as-of: date of SkyPilot tables given directly (else "as-of unknown")
    bool sky_catalogs = true;        // read ~/.sky/catalogs when present (with the built-in data only)
    bool cache = true;  // layer the `catalog update` cache (io/update_cache.hpp) over the built-in data
    std::optional<OfferFilter> filter;  // push-down of a command's filters (none: every offer is kept)
    // A SkyPilot table given with --catalog that is larger than this is read in pieces of about this
    // size (LineChunks) instead of whole; 0 = always whole.
    std::size_t stream_chunk_bytes = std::size_t{4} << 20;
    StreamKeying stream_keying = StreamKeying::balance;
    // Write the compact store (vms.store) of every cache table that has none or a stale one, without
    // taking the cache lock: `catalog update`, which holds it, after it wrote new tables. Otherwise only
    // a stale or corrupt store is written again, under the lock.
    bool write_cache_stores = false;
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
// `max_bytes` (at most kMaxInputBytes) bounds a kind of file more tightly; `fix` is the hint of its
// too-large error.
std::string read_file(const std::string& path, unsigned long long max_bytes = kMaxInputBytes,
                      const char* fix = nullptr);
// The same file read in pieces of whole lines, for tables too large to hold (the same checks at the
// open; a read error or a file grown past kMaxInputBytes throws DataError from next()). Memory: about
// `chunk_bytes` (more only for a line longer than that).
class LineChunks {
public:
    LineChunks(const std::string& path, std::size_t chunk_bytes);
    ~LineChunks();
    LineChunks(const LineChunks&) = delete;
    LineChunks& operator=(const LineChunks&) = delete;
    // The next piece: whole lines ending in '\n' (or the file's last line without one); empty at the
    // end of the file. Valid until the next call.
    std::string_view next();
    std::string_view peek();  // the piece next() returns next
    std::string read_all();   // the rest of the file, in one string (what read_file would return)
    const std::string& path() const { return path_; }
    std::size_t size() const { return size_; }  // as stat(2) saw it at the open

private:
    bool fill();
    std::string path_;
    std::size_t chunk_;
    int fd_ = -1;
    std::size_t size_ = 0, read_ = 0;
    std::string buffer_;
    std::size_t begin_ = 0, end_ = 0, piece_ = 0;  // buffer_[begin_, begin_ + piece_) is the piece returned
    bool eof_ = false, peeked_ = false;
};

// "a FIFO (named pipe)", "a directory", ... for a st_mode.
std::string describe_file_type(unsigned mode);

}  // namespace gpuadvise::io
