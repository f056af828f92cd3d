// recommend --emit skypilot|dstack (issue #30): the chosen option as a launcher's task file.
#pragma once

#include <optional>
#include <string>

#include "cli/command_app.hpp"
#include "cli/context.hpp"
#include "gpuadvise/advice/recommendation.hpp"

namespace CLI {
class App;
}

namespace gpuadvise::cli {

struct LaunchOptions {
    std::string emit;         // "skypilot" or "dstack"; empty: no launcher file
    std::optional<int> pick;  // --pick N: the N-th option (default the first)
    std::string output;       // -o FILE; empty: stdout
    bool force = false;       // --force: replace FILE
};

// The command line after the program name, as run_command saw it (quoted into --emit headers).
void record_command_line(int argc, const char* const* argv);

void add_launch_options(CommandApp& sub, LaunchOptions& opt);
// UsageError for --pick, -o or --force without --emit.
void check_launch_options(const LaunchOptions& opt);

// Writes the launcher file for the picked option of `rec` (to stdout, or atomically to -o FILE).
// Returns the exit code: 0, or 3 when the launcher cannot run that option (the message says why).
// Throws UsageError for a bad --pick, -o over an existing file without --force, or options given
// without --emit; DataError when FILE cannot be written.
int emit_launcher(Context& ctx, const LaunchOptions& opt, const RecommendRequest& request,
                  const Recommendation& rec);

}  // namespace gpuadvise::cli
