#include "io/env_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"

extern char** environ;

namespace gpuadvise::io {
namespace {

constexpr std::size_t kMaxOutput = 1 << 20;

std::optional<std::string> find_on_path(const std::string& program) {
    const char* env = std::getenv("PATH");
    if (!env) return std::nullopt;
    std::string_view path(env);
    while (true) {
        const std::size_t colon = path.find(':');
        std::string_view dir = path.substr(0, colon);
        std::string candidate;
        candidate.reserve(dir.size() + program.size() + 3);
        candidate.append(dir.empty() ? std::string_view(".") : dir);
        candidate.push_back('/');
        candidate.append(program);
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        path.remove_prefix(colon + 1);
    }
}

using Clock = std::chrono::steady_clock;

// Reads what is available on `fd` (non-blocking) into `out`, up to the cap; false at end of file.
bool read_available(int fd, std::string& out) {
    char buffer[4096];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            if (out.size() < kMaxOutput) out.append(buffer, static_cast<std::size_t>(n));
            continue;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
}

}  // namespace

std::chrono::milliseconds probe_deadline() {
    // Empty is unset (as for every GPUADVISE_ variable); anything else must be a number of seconds in range,
    // or check-env stops before running a tool (a typo would otherwise wait 20 s silently, or not at all).
    const char* env = std::getenv("GPUADVISE_PROBE_TIMEOUT");
    if (!env || !*env) return std::chrono::seconds(20);
    char* end = nullptr;
    errno = 0;
    const double seconds = std::strtod(env, &end);
    if (end == env || *end != '\0' || errno == ERANGE || !(seconds > 0) || seconds > 3600)
        throw UsageError("GPUADVISE_PROBE_TIMEOUT='" + escape_control_chars(shorten(env)) +
                             "': expected seconds, more than 0 and at most 3600 (the deadline of check-env's "
                             "tool probes; default 20)",
                         "give e.g. GPUADVISE_PROBE_TIMEOUT=60, or unset it");
    return std::chrono::milliseconds(std::max<long>(1, static_cast<long>(seconds * 1000)));
}

namespace {

// One tool being run: its result so far, its process group and the read end of its output pipe.
struct ProbeChild {
    ToolRun run;
    std::vector<std::string> args;
    std::vector<std::string> fallback_args;  // run once more with these after a failure (not a timeout)
    pid_t pid = -1;
    int fd = -1;
    bool open = false;  // the pipe has not reached end of file
    bool done = true;   // exited (or never started)
};

// Looks the tool up and starts it: its own process group (on the deadline the tool and everything it
// started are killed whole), standard input and error on /dev/null, SIGPIPE at its default.
void spawn_probe(ProbeChild& c) {
    c.run.found = false;
    c.run.exit_code = -1;
    c.run.output.clear();
    c.done = true;
    auto exe = find_on_path(c.run.tool);
    if (!exe) return;
    c.run.found = true;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    std::vector<std::string> argv_strings{*exe};
    argv_strings.insert(argv_strings.end(), c.args.begin(), c.args.end());
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, exe->c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (spawned != 0) {
        ::close(fds[0]);
        return;
    }
    (void)::fcntl(fds[0], F_SETFL, O_NONBLOCK);
    c.pid = pid;
    c.fd = fds[0];
    c.open = true;
    c.done = false;
}

// After the tool's exit (or at the deadline): its group is killed (what it left behind, or the tool
// itself), it is reaped and its pipe closed.
void finish_probe(ProbeChild& c, bool exited, int status) {
    ::kill(-c.pid, SIGKILL);
    if (!exited) {
        c.run.timed_out = true;
        while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
        }
        c.run.exit_code = -1;
    } else {
        c.run.exit_code =
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    ::close(c.fd);
    c.fd = -1;
    c.pid = -1;
    c.done = true;
}

// Runs every child at once until each has exited or `end` passes: one deadline for all. Each output is
// read until its tool exits, not until end of file (a background child it left may hold the pipe open
// for ever). A child with fallback arguments that fails is started again with them, within the same end.
void run_probes(const std::vector<ProbeChild*>& children, Clock::time_point end) {
    for (ProbeChild* c : children) spawn_probe(*c);
    while (true) {
        bool running = false;
        for (ProbeChild* c : children) {
            if (c->done) continue;
            int status = 0;
            if (::waitpid(c->pid, &status, WNOHANG) == c->pid) {
                if (c->open) (void)read_available(c->fd, c->run.output);  // what it wrote before exiting
                finish_probe(*c, true, status);
                if (c->run.exit_code != 0 && !c->fallback_args.empty()) {
                    c->args = std::move(c->fallback_args);
                    c->fallback_args.clear();
                    spawn_probe(*c);
                }
            }
            running = running || !c->done;
        }
        if (!running) break;
        const auto now = Clock::now();
        if (now >= end) break;
        // Short polls: an exit is noticed within 20 ms even while a pipe stays open.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - now).count();
        const int timeout_ms = static_cast<int>(std::min<long>(left, 20));
        std::vector<pollfd> fds;
        std::vector<ProbeChild*> polled;
        for (ProbeChild* c : children)
            if (!c->done && c->open) {
                fds.push_back({c->fd, POLLIN, 0});
                polled.push_back(c);
            }
        if (fds.empty()) {
            ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
            continue;
        }
        if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) continue;
        for (std::size_t i = 0; i < fds.size(); ++i)
            if (fds[i].revents != 0) polled[i]->open = read_available(polled[i]->fd, polled[i]->run.output);
    }
    for (ProbeChild* c : children)
        if (!c->done) finish_probe(*c, false, 0);
}

ProbeChild probe_child(const std::string& tool, std::vector<std::string> args) {
    ProbeChild c;
    c.run.tool = tool;
    c.args = std::move(args);
    return c;
}

}  // namespace

ToolRun run_tool(const std::string& program, const std::vector<std::string>& args,
                 std::chrono::milliseconds deadline) {
    ProbeChild c = probe_child(program, args);
    run_probes({&c}, Clock::now() + deadline);
    return c.run;
}

EnvironmentProbe probe_environment() {
    const auto deadline = probe_deadline();  // before any tool runs: a bad GPUADVISE_PROBE_TIMEOUT stops here
    ProbeChild smi = probe_child(
        "nvidia-smi", {"--query-gpu=name,driver_version,memory.total,compute_cap", "--format=csv,noheader"});
    // Drivers before compute_cap was a query field reject the whole query; ask again without it
    // (only after a quick failure: a tool that timed out is never run again).
    smi.fallback_args = {"--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"};
    ProbeChild nvcc = probe_child("nvcc", {"--version"});
    ProbeChild python =
        probe_child("python3", {"-c",
                                "import torch; print(torch.__version__); print(torch.version.cuda); "
                                "print(torch.cuda.get_arch_list())"});
    // All at once, under one deadline: three hung tools cost one deadline, not three.
    run_probes({&smi, &nvcc, &python}, Clock::now() + deadline);
    return {std::move(smi.run), std::move(nvcc.run), std::move(python.run)};
}

}  // namespace gpuadvise::io
