#include "io/env_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string_view>

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
    if (const char* env = std::getenv("GPUADVISE_PROBE_TIMEOUT"); env && *env) {
        char* end = nullptr;
        const double seconds = std::strtod(env, &end);
        if (end && *end == '\0' && seconds > 0 && seconds <= 3600)
            return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    }
    return std::chrono::seconds(20);
}

ToolRun run_tool(const std::string& program, const std::vector<std::string>& args,
                 std::chrono::milliseconds deadline) {
    ToolRun run;
    run.tool = program;
    auto exe = find_on_path(program);
    if (!exe) return run;
    run.found = true;

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return run;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // Its own process group, so that on the deadline the tool and everything it started are killed whole.
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    std::vector<std::string> argv_strings{*exe};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
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
        return run;
    }
    (void)::fcntl(fds[0], F_SETFL, O_NONBLOCK);

    // Read until the tool has exited (not until end of file: a background child it left may hold
    // the pipe open for ever) or the deadline passes.
    const auto end = Clock::now() + deadline;
    bool open = true;
    int status = 0;
    bool exited = false;
    while (true) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            exited = true;
            if (open) (void)read_available(fds[0], run.output);  // what it wrote before exiting
            break;
        }
        const auto now = Clock::now();
        if (now >= end) break;
        // Short polls: the exit of the tool is noticed within 20 ms even while the pipe stays open.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - now).count();
        struct pollfd p {
            fds[0], POLLIN, 0
        };
        const int timeout_ms = static_cast<int>(std::min<long>(left, 20));
        if (open && ::poll(&p, 1, timeout_ms) > 0)
            open = read_available(fds[0], run.output);
        else if (!open)
            ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
    }
    // The group is killed in both cases: on the deadline the tool itself, after its exit what it left behind.
    ::kill(-pid, SIGKILL);
    if (!exited) {
        run.timed_out = true;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        run.exit_code = -1;
    } else {
        run.exit_code =
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    ::close(fds[0]);
    return run;
}

EnvironmentProbe probe_environment() {
    EnvironmentProbe p;
    const auto deadline = probe_deadline();
    p.nvidia_smi = run_tool(
        "nvidia-smi", {"--query-gpu=name,driver_version,memory.total,compute_cap", "--format=csv,noheader"},
        deadline);
    // Drivers before compute_cap was a query field reject the whole query; ask again without it
    // (only after a quick failure: a tool that timed out is never run again).
    if (p.nvidia_smi.found && !p.nvidia_smi.timed_out && p.nvidia_smi.exit_code != 0)
        p.nvidia_smi =
            run_tool("nvidia-smi", {"--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"},
                     deadline);
    p.nvcc = run_tool("nvcc", {"--version"}, deadline);
    p.python = run_tool("python3",
                        {"-c",
                         "import torch; print(torch.__version__); print(torch.version.cuda); "
                         "print(torch.cuda.get_arch_list())"},
                        deadline);
    return p;
}

}  // namespace gpuadvise::io
