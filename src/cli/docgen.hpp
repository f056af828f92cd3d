// Man pages and shell completions, generated from the command tree that the command table builds
// (the CLI::App with every command's options, the same objects that print --help), so that neither
// can drift from the options the parser accepts. `gpuadvise man` and `gpuadvise completion` print
// them; the build writes them for `cmake --install` (CMakeLists.txt, cmake/GenerateDocs.cmake).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise::cli {

// What a value of an option (or a positional argument) completes to.
enum class ValueKind {
    none,       // free text or a number: nothing to offer
    choices,    // a fixed set, from the option's one_of check (option_checks.hpp) or its a|b|c type name
    gpus,       // GPU ids, aliases and families of the catalog
    models,     // model preset ids and aliases
    providers,  // provider ids
    files,
    directories,
};

// The accepted values of an option: the set of its one_of check ("{a,b,c}" in its
// type name), else a type name written as lowercase alternatives ("train|lora"). Empty when free.
std::vector<std::string> option_choices(const CLI::Option& option);
ValueKind value_kind(const CLI::Option& option);

// What --help and the manual pages show for an option's value, in gpuadvise's words, not CLI11's
// "TYPE:VALIDATOR" joins ("price|price-per-gpu:{price,price-per-gpu}", "N:INT in [1 - 1000]"):
// `type` is the value's name or its choices ("N", "cost|time|balanced|carbon"); `range` is a checked
// number's bounds ("1 to 1000", "0 to 1e12"), "" when it has none.
struct HelpValue {
    std::string type;
    std::string range;
};
HelpValue help_value(const CLI::Option& option);
// The option's description with its range: "How many options to list (default 5; 1 to 1000)".
std::string help_description(const CLI::Option& option);
// "--grad-checkpointing,--no-grad-checkpointing": an option's names as --help lists them, without
// CLI11's "{false}" after a negating flag.
std::string help_names(const CLI::Option& option);

// The commands shown in help (hidden ones, group "", are left out), in table order.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);

// roff for gpuadvise(1) (`command` null) or gpuadvise-COMMAND(1).
std::string man_page(const CLI::App& root, const CLI::App* command);
// "bash", "zsh" or "fish"; the dynamic values come from `gpuadvise __complete KIND` at Tab time.
std::string completion_script(const CLI::App& root, std::string_view shell);

}  // namespace gpuadvise::cli
