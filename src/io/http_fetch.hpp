// HTTP(S) downloads through libcurl for `catalog update`: conditional requests (ETag /
// Last-Modified), connect and total timeouts, a size cap, a progress line on a terminal.
#pragma once

#include <cstddef>
#include <string>

namespace gpuadvise::io {

struct FetchRequest {
    std::string url;
    std::string etag;           // If-None-Match when not empty
    std::string last_modified;  // If-Modified-Since when not empty
    long connect_timeout_s = 10;
    long total_timeout_s = 120;
    std::size_t max_bytes = 64u << 20;  // larger bodies are refused (upstream aws vms.csv is ~5 MB)
    std::string progress_label;         // shown on stderr when it is a terminal; empty = no progress
};

struct FetchResult {
    bool ok = false;            // a complete 200 or 304 response
    long status = 0;            // HTTP status; 0 when no response came
    bool not_modified = false;  // 304: the cached copy is current
    std::string body;
    std::string etag, last_modified, content_type;
    std::string error;  // why not ok, for the summary: "HTTP 404", "timed out after 5 s", ...
};

// Runs the gpuadvise-fetch helper ($GPUADVISE_FETCH, else beside this executable, else on PATH).
FetchResult http_fetch(const FetchRequest& request);
std::string fetch_helper_path();

}  // namespace gpuadvise::io
