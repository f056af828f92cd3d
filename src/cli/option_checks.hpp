// The values of options, checked in gpuadvise's words before CLI11 converts them: the message names
// the value and what is allowed, CLI11 puts the option in front ("--top: 0 is out of range; expected
// 1 to 1000"). No CLI11 message is reworded afterwards (issue #24); every bound is listed in
// docs/usage.md, "Value bounds" (issue #31).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gpuadvise::cli {

// What no option takes: an empty value, or a number written in another base (0x10, 0b1, 0o7; YAML
// catalogs refuse them too). "" when the value is neither. Every option gets this check (app.cpp).
std::string plain_value_problem(const std::string& value);

// A whole number from min to max. "1e3" and "2.0" are whole; the option receives the number in
// plain decimal ("1000"), so CLI11's own conversion (which would read "010" as octal) never sees
// what was typed. `in_help`: the check's description is "INT in [min - max]", which --help and the
// manual pages show as "(min to max)" after the option's description (docgen.hpp, help_value).
CLI::Validator whole_number(long long min, long long max, bool in_help = true);

// A finite number from min to max that is not a denormal (as jobs files, base/numbers.hpp).
// `in_help`: the description is "FLOAT in [min - max]", shown as "(min to max)" by --help.
CLI::Validator decimal_number(double min, double max, bool in_help = true);

// A count with an optional k/M/B/T suffix (7B, 1.28M), checked here for denormals only; the model
// room checks the rest (a positive number of at most 1e18).
CLI::Validator quantity_value();

// Exactly one of `names`; its description "{a,b,c}" is what the completion scripts read (option_choices)
// and --help shows as "a|b|c" (docgen.hpp, help_value).
CLI::Validator one_of(std::vector<std::string> names);
// A quantity with an optional k/M/B/T suffix ("10k", "500M") within [min, max].
CLI::Validator quantity_number(double min, double max);

// A real YYYY-MM-DD date.
CLI::Validator iso_date_value();

// A flag's value (--wide=false): what CLI11 reads as true or false.
CLI::Validator flag_value();

// The first complaint of `option`'s checks about `value`, without CLI11's "--name: " in front ("" if
// none): for a value that comes from elsewhere than the command line (the configuration file).
std::string option_value_problem(CLI::Option& option, std::string value);

}  // namespace gpuadvise::cli
