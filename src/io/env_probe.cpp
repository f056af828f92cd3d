#include "io/env_probe.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

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
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        path.remove_prefix(colon + 1);
    }
}

std::string shell_quote(const std::string& s) {
    std::string out(1, '\'');
    for (char c : s) {
        if (c == '\'') out.append("'\\''");
        else out.push_back(c);
    }
    out.push_back('\'');
    return out;
}

}  // namespace

ToolRun run_tool(const std::string& program, const std::string& args) {
    ToolRun run;
    run.tool = program;
    auto exe = find_on_path(program);
    if (!exe) return run;
    run.found = true;
    std::string command;
    if (auto timeout = find_on_path("timeout")) command = shell_quote(*timeout) + " 20 ";
    command += shell_quote(*exe) + " " + args + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return run;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        if (run.output.size() < kMaxOutput) run.output.append(buffer, n);
    int status = ::pclose(pipe);
    run.exit_code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    return run;
}

EnvironmentProbe probe_environment() {
    EnvironmentProbe p;
    p.nvidia_smi = run_tool("nvidia-smi", "--query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader");
    // Drivers before compute_cap was a query field reject the whole query; ask again without it.
    if (p.nvidia_smi.found && p.nvidia_smi.exit_code != 0)
        p.nvidia_smi = run_tool("nvidia-smi", "--query-gpu=name,driver_version,memory.total --format=csv,noheader");
    p.nvcc = run_tool("nvcc", "--version");
    p.python = run_tool("python3",
                        "-c 'import torch; print(torch.__version__); print(torch.version.cuda); "
                        "print(torch.cuda.get_arch_list())'");
    return p;
}

}  // namespace gpuadvise::io
