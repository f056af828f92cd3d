// The command table: one entry per command, in help order. It drives registration, help, the
// command listing and "did you mean" for mistyped commands.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "cli/option_checks.hpp"

namespace gpuadvise::cli {

using Runner = std::function<int(Context&)>;

struct Command {
    const char* name;
    const char* summary;
    // Adds the command's options to `sub` and returns what runs it once parsing succeeded.
    Runner (*setup)(CLI::App& sub);
    bool reads_config = true;  // the configuration file applies (not to completion, man, __complete)
};

const std::vector<Command>& commands();

// One per cmd_*.cpp.
Runner setup_recommend(CLI::App& sub);
Runner setup_plan(CLI::App& sub);
Runner setup_gpus(CLI::App& sub);
Runner setup_offers(CLI::App& sub);
Runner setup_compare(CLI::App& sub);
Runner setup_check_env(CLI::App& sub);
Runner setup_estimate(CLI::App& sub);
Runner setup_models(CLI::App& sub);
Runner setup_catalog(CLI::App& sub);
Runner setup_completion(CLI::App& sub);
Runner setup_config(CLI::App& sub);
Runner setup_man(CLI::App& sub);              // hidden
Runner setup_complete_values(CLI::App& sub);  // hidden

}  // namespace gpuadvise::cli
