// gpuadvise-fetch: the one program of the project that talks to the network, for `gpuadvise catalog
// update` (src/io/http_fetch.cpp runs it). It is separate so that gpuadvise itself stays a static
// executable (start-up time, docs/performance.md) while libcurl, which cannot be linked statically on
// Debian, stays a shared library here.
//
// usage: gpuadvise-fetch URL [--etag E] [--last-modified D] [--connect-timeout S] [--timeout S]
//                        [--max-bytes N] [--progress LABEL]
//                        [--parent PID]
// Writes to stdout one JSON line {"ok", "status", "not_modified", "etag_hex", "last_modified_hex",
// "content_type_hex", "error", "body_bytes"}, then the response body (body_bytes bytes). Response headers
// are bytes (a server may send any octets but CR/LF), so they travel hex-encoded and come back exactly;
// the error text is UTF-8 with invalid bytes replaced. Nothing is written to a file.
// With --parent PID the helper dies with gpuadvise (PR_SET_PDEATHSIG) and exits at once when PID is
// already gone, so a killed `catalog update` leaves no download running.
#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "io/http_fetch.hpp"

#include <cstdio>
#include <mutex>

namespace gpuadvise::io {

FetchResult curl_fetch(const FetchRequest& request);

namespace {

struct Transfer {
    const FetchRequest* request;
    FetchResult* result;
    bool too_large = false;
    bool progress = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * n;
    if (t->result->body.size() + bytes > t->request->max_bytes) {
        t->too_large = true;
        return 0;  // aborts the transfer
    }
    t->result->body.append(data, bytes);
    return bytes;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && s[i] == ' ') ++i;
    return s.substr(i);
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string line(data, size * n);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const std::string value = trim(line.substr(colon + 1));
        if (name == "etag")
            t->result->etag = value;
        else if (name == "last-modified")
            t->result->last_modified = value;
        else if (name == "content-type")
            t->result->content_type = value;
    } else if (line.rfind("HTTP/", 0) ==
               0) {  // a new response (after a redirect): forget the last one's headers
        t->result->etag.clear();
        t->result->last_modified.clear();
        t->result->content_type.clear();
    }
    return size * n;
}

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (t->progress) {
        if (total > 0)
            std::fprintf(stderr, "\r%s: %lld of %lld KB", t->request->progress_label.c_str(),
                         static_cast<long long>(now / 1024), static_cast<long long>(total / 1024));
        else
            std::fprintf(stderr, "\r%s: %lld KB", t->request->progress_label.c_str(),
                         static_cast<long long>(now / 1024));
        std::fflush(stderr);
    }
    return 0;
}

}  // namespace

FetchResult curl_fetch(const FetchRequest& request) {
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    FetchResult result;
    CURL* curl = curl_easy_init();
    if (!curl) {
        result.error = "cannot start libcurl";
        return result;
    }
    Transfer t{&request, &result, false, !request.progress_label.empty() && isatty(STDERR_FILENO)};
    char curl_error[CURL_ERROR_SIZE] = "";
    curl_slist* headers = nullptr;
    if (!request.etag.empty())
        headers = curl_slist_append(headers, ("If-None-Match: " + request.etag).c_str());
    if (!request.last_modified.empty())
        headers = curl_slist_append(headers, ("If-Modified-Since: " + request.last_modified).c_str());
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, request.total_timeout_s);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "gpuadvise (catalog update)");
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_bytes));
    if (t.progress) {
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    }
    const CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    if (t.progress) std::fprintf(stderr, "\r\033[K");
    if (t.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
        result.error = "larger than the size cap of " + std::to_string(request.max_bytes >> 20) + " MB";
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        result.error = "timed out (connect " + std::to_string(request.connect_timeout_s) + " s, total " +
                       std::to_string(request.total_timeout_s) + " s)";
    } else if (rc == CURLE_COULDNT_CONNECT) {
        result.error = "connection refused or unreachable (" + request.url + ")";
    } else if (rc == CURLE_OUT_OF_MEMORY) {  // what curl answers to a header line over its 100 KB limit
        result.error =
            "the response was refused: a header line over libcurl's 100 KB limit (or out of memory)";
    } else if (rc == CURLE_PARTIAL_FILE) {
        result.error = "truncated response (the connection closed before the whole body came)";
    } else if (rc != CURLE_OK) {
        result.error = std::string(curl_error[0] ? curl_error : curl_easy_strerror(rc));
    } else if (result.status == 304) {
        result.ok = true;
        result.not_modified = true;
    } else if (result.status == 200) {
        result.ok = true;
    } else {
        result.error = "HTTP " + std::to_string(result.status) + " from " + request.url;
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return result;
}

}  // namespace gpuadvise::io

namespace {

std::string hex(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += kDigits[c >> 4];
        out += kDigits[c & 15];
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    using gpuadvise::io::FetchRequest;
    if (argc < 2) {
        std::cerr << "usage: gpuadvise-fetch URL [--etag E] [--last-modified D] [--connect-timeout S] "
                     "[--timeout S] [--max-bytes N] [--progress LABEL]\n";
        return 2;
    }
    FetchRequest req;
    req.url = argv[1];
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string opt = argv[i], value = argv[i + 1];
        if (opt == "--etag")
            req.etag = value;
        else if (opt == "--last-modified")
            req.last_modified = value;
        else if (opt == "--connect-timeout")
            req.connect_timeout_s = std::stol(value);
        else if (opt == "--timeout")
            req.total_timeout_s = std::stol(value);
        else if (opt == "--max-bytes")
            req.max_bytes = std::stoul(value);
        else if (opt == "--progress")
            req.progress_label = value;
        else if (opt == "--parent") {
            // Dies with the parent; the check after the prctl closes the race of a parent gone before it.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (std::to_string(::getppid()) != value) return 1;
        } else {
            std::cerr << "gpuadvise-fetch: unknown option " << opt << "\n";
            return 2;
        }
    }
    gpuadvise::io::FetchResult r = gpuadvise::io::curl_fetch(req);
    if (!r.ok) r.body.clear();
    nlohmann::json j;
    j["ok"] = r.ok;
    j["status"] = r.status;
    j["not_modified"] = r.not_modified;
    j["etag_hex"] = hex(r.etag);
    j["last_modified_hex"] = hex(r.last_modified);
    j["content_type_hex"] = hex(r.content_type);
    j["error"] = r.error;
    j["body_bytes"] = r.body.size();
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    std::cout.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
    std::cout.flush();
    return std::cout ? 0 : 1;
}
