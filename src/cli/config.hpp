// The configuration file applied to a parsed command line (io/user_config.hpp reads it): each
// setting becomes the value of the options it defaults where the command line left them unset,
// through the options' own checks (so `objective: fast` fails like `--objective fast`, but located).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "io/user_config.hpp"

namespace gpuadvise::cli {

// The option a key defaults ("--currency"), or "" for exclude_providers (a catalog filter).
std::string option_for_key(std::string_view key);

// Reads the configuration file and applies it for the command `chosen` (a subcommand of `root`).
// Records where each setting came from in ctx.global.setting_origins; sets the catalog filter for
// exclude_providers (every command but `catalog`, which shows the catalog as it is) and the check
// of provider ids. Throws DataError (path:line:col) on a bad file or value.
void apply_user_config(CLI::App& root, const CLI::App& chosen, Context& ctx);

}  // namespace gpuadvise::cli
