// Runs the environment tools (nvidia-smi, nvcc, python3 with torch) for `check-env`. Only the
// process running lives here; parsing is in the core (gpuadvise/env_parse.hpp).
#pragma once

#include <optional>
#include <string>

namespace gpuadvise::io {

struct ToolRun {
    std::string tool;     // "nvidia-smi"
    bool found = false;   // on PATH and executable
    int exit_code = -1;   // of the command; -1 when it did not run
    std::string output;   // standard output (capped at 1 MiB); standard error is discarded
};

// Looks `program` up on PATH and runs it with `args` (a fixed, already quoted shell fragment),
// under `timeout 20` when that is on PATH. A missing tool is not an error: found = false.
ToolRun run_tool(const std::string& program, const std::string& args);

struct EnvironmentProbe {
    ToolRun nvidia_smi;  // --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader
    ToolRun nvcc;        // --version
    ToolRun python;      // python3 -c 'import torch; ...'
};
EnvironmentProbe probe_environment();

}  // namespace gpuadvise::io
