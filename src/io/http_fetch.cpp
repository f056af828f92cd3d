// http_fetch: runs the gpuadvise-fetch helper (tools/gpuadvise_fetch.cpp, libcurl), which writes its
// status as one JSON line and then the body to a pipe, so gpuadvise itself links no libcurl.
#include "io/http_fetch.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

extern char** environ;

namespace gpuadvise::io {
namespace {

namespace fs = std::filesystem;

// The helper's hex text back to bytes; "" for anything that is not hex.
std::string unhex(const std::string& text) {
    auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (text.size() % 2) return "";
    std::string out;
    out.reserve(text.size() / 2);
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = digit(text[i]), lo = digit(text[i + 1]);
        if (hi < 0 || lo < 0) return "";
        out += static_cast<char>(hi * 16 + lo);
    }
    return out;
}

// A validator header is sent back as it came (If-None-Match, If-Modified-Since) only when it can be:
// no control byte (CR/LF would end the header line), at most kMaxValidatorBytes. Otherwise it is
// dropped, and the next update asks unconditionally (the same-bytes check still rewrites nothing).
constexpr std::size_t kMaxValidatorBytes = 1024;
std::string usable_validator(std::string value) {
    if (value.size() > kMaxValidatorBytes) return "";
    for (unsigned char c : value)
        if (c < 0x20 || c == 0x7f) return "";
    return value;
}

}  // namespace

std::string fetch_helper_path() {
    if (const char* env = std::getenv("GPUADVISE_FETCH"); env && *env) return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& p :
             {self.parent_path() / "gpuadvise-fetch",
              self.parent_path().parent_path() / "libexec" / "gpuadvise" / "gpuadvise-fetch"})
            if (fs::is_regular_file(p, ec)) return p.string();
    }
    return "gpuadvise-fetch";  // from PATH
}

FetchResult http_fetch(const FetchRequest& request) {
    FetchResult result;
    const std::string helper = fetch_helper_path();
    std::vector<std::string> args{helper,
                                  request.url,
                                  "--connect-timeout",
                                  std::to_string(request.connect_timeout_s),
                                  "--timeout",
                                  std::to_string(request.total_timeout_s),
                                  "--max-bytes",
                                  std::to_string(request.max_bytes),
                                  "--parent",  // the helper dies with this process (SIGKILL included)
                                  std::to_string(::getpid())};
    if (!request.etag.empty()) args.insert(args.end(), {"--etag", request.etag});
    if (!request.last_modified.empty()) args.insert(args.end(), {"--last-modified", request.last_modified});
    if (!request.progress_label.empty()) args.insert(args.end(), {"--progress", request.progress_label});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int out[2];
    if (::pipe(out) != 0) {
        result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    pid_t pid = 0;
    const int rc = helper.find('/') == std::string::npos
                       ? ::posix_spawnp(&pid, helper.c_str(), &actions, nullptr, argv.data(), environ)
                       : ::posix_spawn(&pid, helper.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (rc != 0) {
        ::close(out[0]);
        result.error = "cannot run " + helper +
                       " (the download helper installed beside gpuadvise): " + std::strerror(rc);
        return result;
    }
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::size_t eol = text.find('\n');
    try {
        const auto j = nlohmann::json::parse(text.substr(0, eol));
        result.ok = j.value("ok", false);
        result.status = j.value("status", 0L);
        result.not_modified = j.value("not_modified", false);
        result.etag = usable_validator(unhex(j.value("etag_hex", "")));
        result.last_modified = usable_validator(unhex(j.value("last_modified_hex", "")));
        if (std::any_of(result.last_modified.begin(), result.last_modified.end(),
                        [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
            result.last_modified.clear();  // an HTTP date is ASCII
        result.content_type = unhex(j.value("content_type_hex", ""));
        result.error = j.value("error", "");
        const std::size_t bytes = j.value("body_bytes", std::size_t{0});
        result.body = eol == std::string::npos ? std::string() : text.substr(eol + 1);
        if (result.body.size() != bytes) {
            result.ok = false;
            result.error = helper + " passed on " + std::to_string(result.body.size()) + " of " +
                           std::to_string(bytes) + " bytes";
        }
    } catch (const nlohmann::json::exception&) {
        result.ok = false;
        result.error = helper + " failed (exit status " +
                       std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    }
    return result;
}

}  // namespace gpuadvise::io
