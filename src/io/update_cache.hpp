// The user's price cache written by `gpuadvise catalog update` and layered over the built-in data by
// every command: $GPUADVISE_CACHE_DIR, else $XDG_CACHE_HOME/gpuadvise, else ~/.cache/gpuadvise.
//
//   (each folder skypilot/<cloud>, rates, gcp is a link to .<folder>.v-SUFFIX: replace_folder)
//   <cache>/skypilot/<cloud>/vms.csv    the GPU rows of upstream's catalogs/v<N>/<cloud>/vms.csv
//   <cache>/skypilot/<cloud>/meta.json  url, schema version, ETag, Last-Modified, fetch time, rows read/kept
//   <cache>/skypilot/<cloud>/vms.store  the table as read, for the next commands (builtin_catalog.hpp)
//   <cache>/rates/rates.yaml            ECB reference rates as a catalog `rates:` document (+ meta.json)
//   <cache>/gcp/pricing.yml             the GCP price file with committed-use prices (+ meta.json)
//   <cache>/.lock                       flock()ed by an update
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuadvise::io {

// "" when no directory can be named (no HOME, no XDG_CACHE_HOME, no override).
std::string cache_dir();

struct CacheMeta {
    std::string url, etag, last_modified, fetched_at;  // fetched_at: ISO date-time (UTC)
    int schema_version = 0;
    long rows_read = 0, rows_kept = 0;
    std::string as_of;  // ISO date the entry's prices are dated with (the fetch date)
};

std::optional<CacheMeta> read_cache_meta(const std::string& meta_path);
std::string cache_meta_json(const CacheMeta& m);

// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename, fsync of
// the directory. Returns "" or why it failed (the old file is then untouched, the temporary removed).
std::string write_file_atomically(const std::string& path, std::string_view bytes);

// One update of one source is one transaction: FOLDER (<cache>/skypilot/aws, rates, gcp) is a symbolic
// link to .FOLDER.v-SUFFIX holding all the source's files. replace_folder writes `files` (name, bytes)
// into a new version beside it (each file and the directory fsynced) and swaps the link with one
// rename(), so a reader or the next update sees the old files or the new ones, never a mix, even after
// SIGKILL at any point. A FOLDER that is still a plain directory (written by an older gpuadvise) is
// exchanged with the new link atomically (renameat2 RENAME_EXCHANGE), then removed. Returns "" or why it
// failed (nothing changed then). remove_folder_leftovers removes what an interrupted one left
// (.FOLDER.tmp-*, .FOLDER.link-*, versions the link does not point to); replace_folder calls it first.
std::string replace_folder(const std::string& folder,
                           const std::vector<std::pair<std::string, std::string>>& files);
void remove_folder_leftovers(const std::string& folder);

// An exclusive, non-blocking flock on <dir>/.lock, released by the destructor.
class CacheLock {
public:
    explicit CacheLock(const std::string& dir);
    ~CacheLock();
    CacheLock(const CacheLock&) = delete;
    CacheLock& operator=(const CacheLock&) = delete;
    bool held() const { return fd_ >= 0; }
    const std::string& error() const { return error_; }

private:
    int fd_ = -1;
    std::string error_;
};

// The SkyPilot rows gpuadvise uses: the header, every row with an AcceleratorName, and GCP's host VM
// rows (empty AcceleratorName) of the machine families that carry GPUs. Counts the data rows.
struct FilteredTable {
    std::string bytes;
    long rows_read = 0, rows_kept = 0;
};
FilteredTable filter_skypilot_rows(std::string_view bytes);

// ECB eurofxref-daily XML -> a catalog YAML `rates:` document (CNY, EUR, ... in USD per unit). Returns
// "" and sets `error` when the XML has no date or no USD rate.
std::string ecb_rates_yaml(std::string_view xml, const std::string& url, std::string& as_of, long& currencies,
                           std::string& error);

}  // namespace gpuadvise::io
