// The command table: one entry per command, in help order. It drives registration, help, the
// command listing and "did you mean" for mistyped commands.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli/command_app.hpp"
#include "cli/context.hpp"
#include "cli/option_checks.hpp"

namespace gpuadvise::cli {

using Runner = std::function<int(Context&)>;

struct Command {
    const char* name;
    const char* summary;
    // Adds the command's options to `sub` and returns what runs it once parsing succeeded.
    Runner (*setup)(CommandApp& sub);
    bool reads_config = true;  // the configuration file applies (not to completion, man, __complete)
};

const std::vector<Command>& commands();

// One per cmd_*.cpp.
Runner setup_recommend(CommandApp& sub);
Runner setup_plan(CommandApp& sub);
Runner setup_gpus(CommandApp& sub);
Runner setup_offers(CommandApp& sub);
Runner setup_compare(CommandApp& sub);
Runner setup_check_env(CommandApp& sub);
Runner setup_estimate(CommandApp& sub);
Runner setup_models(CommandApp& sub);
Runner setup_catalog(CommandApp& sub);
Runner setup_completion(CommandApp& sub);
Runner setup_config(CommandApp& sub);
Runner setup_man(CommandApp& sub);              // hidden
Runner setup_complete_values(CommandApp& sub);  // hidden

}  // namespace gpuadvise::cli
