// Runs the environment tools (nvidia-smi, nvcc, python3 with torch) for `check-env`. Only the
// process running lives here; parsing is in the core (gpuadvise/env_parse.hpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpuadvise::io {

struct ToolRun {
    std::string tool;    // "nvidia-smi"
    bool found = false;  // on PATH and executable
    int exit_code = -1;  // of the command; -1 when it did not run or timed out; 128+N when killed by signal N
    bool timed_out = false;  // stopped (with everything it started) at the deadline
    std::string output;      // standard output (capped at 1 MiB); standard error is discarded
};

// Looks `program` up on PATH and runs it with `args` (no shell) in its own process group, standard
// input and error on /dev/null. The output is read until the tool exits, not until end of file (a
// background child it started may hold the pipe); then, or at `deadline`, the whole group is
// killed. No `timeout` program is needed. A missing tool is not an error: found = false.
ToolRun run_tool(const std::string& program, const std::vector<std::string>& args,
                 std::chrono::milliseconds deadline);

// The deadline of the probes: GPUADVISE_PROBE_TIMEOUT seconds (0 < s <= 3600), default 20 (also when
// empty). Any other value is a UsageError naming the variable and the range.
std::chrono::milliseconds probe_deadline();

struct EnvironmentProbe {
    ToolRun nvidia_smi;  // --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
    ToolRun nvcc;        // --version
    ToolRun python;      // python3 -c 'import torch; ...'
};
// Runs the three tools at once under one deadline (probe_deadline(), read before any tool starts):
// three hung tools are stopped together at the deadline, not one after another.
EnvironmentProbe probe_environment();

}  // namespace gpuadvise::io
