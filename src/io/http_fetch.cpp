// http_fetch: runs the gpuadvise-fetch helper (tools/gpuadvise_fetch.cpp, libcurl), which writes its
// status as one JSON line and then the body to a pipe, so gpuadvise itself links no libcurl.
#include "io/http_fetch.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

extern char** environ;

namespace gpuadvise::io {
namespace {

namespace fs = std::filesystem;

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
                                  std::to_string(request.max_bytes)};
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
        result.etag = j.value("etag", "");
        result.last_modified = j.value("last_modified", "");
        result.content_type = j.value("content_type", "");
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
