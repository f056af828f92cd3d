// CommandApp (cli/command_app.hpp): a command's parser that checks its options' names in hash sets
// instead of CLI11's pairwise comparison (issue #32). It must refuse exactly what CLI11 refuses, with
// the same error, leave the command's options as they were when it refuses, and parse as CLI11 does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/command_app.hpp"
#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_command_app {

namespace {

using gpuadvise::cli::add_command;
using gpuadvise::cli::CommandApp;

// What adding an option named `spec` does: nullopt when added, else the error's message.
template <typename App>
std::optional<std::string> add(App& app, const std::string& spec) {
    try {
        app.add_option(spec, "an option");
        return std::nullopt;
    } catch (const CLI::ConstructionError& e) {
        return std::string(e.what());
    }
}

std::vector<std::string> long_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* o : app.get_options())
        for (const std::string& l : o->get_lnames()) names.push_back(l);
    return names;
}

}  // namespace

TEST_CASE("CommandApp refuses the names CLI11 refuses, with CLI11's error", "[cli]") {
    // The same adds, in the same order, into a plain CLI11 subcommand and a CommandApp.
    const std::vector<std::string> specs = {
        // a long name twice
        "--runs",
        "-r,--runs-per-week",
        "--runs",
        // a short name twice; -r and --r differ
        "-r",
        "--r",
        // the second name of another option
        "-x,--other,--runs-per-week",
        // the help flag, inherited
        "-h",
        "--help",
        // case counts (no ignore_case), and so do underscores
        "--gpu",
        "--GPU",
        "--gpu_count",
        "--gpu-count",
        // the last of several names
        "--a,--b,--c",
        "--c,--d",
    };
    CLI::App plain_root, command_root;
    CLI::App* plain = plain_root.add_subcommand("recommend", "");
    CommandApp& command = add_command(command_root, "recommend", "");
    for (const std::string& spec : specs) {
        INFO(spec);
        const auto expected = add(*plain, spec);
        CHECK(add(command, spec) == expected);
    }
    // The refusals above happened; and what each kept is the same.
    CHECK(add(command, "--runs") == "added option matched existing option name: runs is already added");
    CHECK(add(command, "-h") == "added option matched existing option name: h is already added");
    CHECK(long_names(command) == long_names(*plain));
}

TEST_CASE("CommandApp keeps its options as they were when it refuses one", "[cli]") {
    CLI::App root;
    CommandApp& command = add_command(root, "recommend", "");
    int runs = 0;
    bool fast = false;
    command.add_option("--runs", runs, "runs");
    command.add_flag("--fast", fast, "fast");
    const std::size_t before = command.get_options().size();

    CHECK_THROWS_AS(command.add_flag("--fast", fast, "again"), CLI::OptionAlreadyAdded);
    CHECK_THROWS_AS(command.add_flag("positional", fast, "a flag needs a dash"), CLI::IncorrectConstruction);
    CHECK(command.get_options().size() == before);

    // A removed option's names are free again; the others' are not.
    CHECK(command.remove_option(command.get_option("--fast")));
    CHECK_NOTHROW(command.add_flag("--fast", fast, "back"));
    CHECK_THROWS_AS(command.add_option("--runs", runs, "again"), CLI::OptionAlreadyAdded);

    // Options added through every call parse as CLI11's own.
    std::string text;
    int width = 0;
    command.add_option_function<std::string>(
        "--text", [&](const std::string& v) { text = v; }, "text");
    command.add_option_function<int>(
        "--width", [&](const int& v) { width = v; }, "width");
    int verbose = 0;
    command.add_flag_function(
        "-v", [&](std::int64_t n) { verbose = static_cast<int>(n); }, "verbose");
    const char* argv[] = {"gpuadvise", "recommend", "--runs",  "4", "--fast",
                          "--text",    "hi",        "--width", "7", "-vv"};
    root.parse(static_cast<int>(std::size(argv)), argv);
    CHECK(runs == 4);
    CHECK(fast);
    CHECK(text == "hi");
    CHECK(width == 7);
    CHECK(verbose == 2);
}

// `args` run with every command set up (gpuadvise::cli::run_every_command), as run() does for a line
// whose command it cannot tell without parsing.
gpuadvise::testing::CliResult run_every_command(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"gpuadvise"};
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    gpuadvise::testing::CliResult r;
    r.exit = gpuadvise::cli::run_every_command(static_cast<int>(argv.size()), argv.data(), out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// The command the one-command set-up chooses for `args` ("" for none), with no configuration file.
std::string told(const std::vector<std::string>& args) {
    std::vector<const char*> argv{"gpuadvise"};
    for (const auto& a : args) argv.push_back(a.c_str());
    ::setenv("GPUADVISE_CONFIG", "/nonexistent/gpuadvise-test/config.yaml", 1);
    const char* name = gpuadvise::cli::told_command(static_cast<int>(argv.size()), argv.data());
    ::unsetenv("GPUADVISE_CONFIG");
    return name ? name : "";
}

// A line whose first word is a command sets up that command alone, without even naming the others
// (app.cpp, run_with); a later word naming another command must still read as with every command set
// up: an argument (a GPU, a file) where one is taken, else an error.
TEST_CASE("A line set up for its command alone parses as with every command set up", "[cli]") {
    const std::vector<std::vector<std::string>> lines = {
        {"recommend", "--model", "bert", "compare"},
        {"recommend", "gpus", "--model", "bert"},
        {"compare", "A100", "recommend"},
        {"catalog", "info", "recommend"},  // a subcommand's positional
        {"plan", "recommend"},
        {"recommend", "--model", "bert", "--bogus"},
        // global flags first: the command is still told without parsing (global_flags)
        {"-q", "recommend", "--model", "bert", "--bogus"},
        {"--json", "--wide", "compare", "A100", "recommend"},
        {"--strict-variants", "-q", "catalog", "info", "recommend"},
        {"--csv-raw", "--no-default-catalog", "--quiet", "plan", "recommend"},
        // global options with their value first (global_value_options), in both forms
        {"--currency", "EUR", "recommend", "--model", "bert", "--bogus"},
        {"--format=json", "compare", "A100", "recommend"},
        {"--color", "never", "--as-of", "2026-01-01", "-q", "plan", "recommend"},
        {"--section", "offers", "--format", "csv", "compare", "A100", "T4"},
        {"--provider-name", "recommend", "--currency=USD", "compare", "A100", "recommend"},
        {"--catalog", "/nonexistent/recommend.yaml", "compare", "A100"},
        {"--catalog", "recommend", "--model", "bert"},  // the command's name as the option's value
        {"--as-of", "yesterday", "compare", "A100"},
        {"--currency"},
    };
    for (const auto& line : lines) {
        INFO(line.front() << " " << line.back());
        const auto alone = gpuadvise::testing::run_args(line), all = run_every_command(line);
        CHECK(alone.exit == all.exit);
        CHECK(alone.out == all.out);
        CHECK(alone.err == all.err);
    }
}

TEST_CASE("Global options before the command, with or without a value, leave it told without parsing",
          "[cli]") {
    CHECK(told({"recommend", "--model", "bert"}) == "recommend");
    CHECK(told({"-q", "--json", "recommend"}) == "recommend");
    CHECK(told({"--currency", "EUR", "recommend", "--model", "bert"}) == "recommend");
    CHECK(told({"--currency=EUR", "--wide", "compare", "A100"}) == "compare");
    CHECK(told({"--catalog", "a.csv", "--catalog", "b.yaml", "--provider-name", "x", "offers"}) == "offers");
    CHECK(told({"--catalog", "offers", "recommend"}) == "recommend");  // a value, though a command's name
    CHECK(told({"--format", "json", "--section", "s", "--color", "never", "--as-of", "2026-01-01", "plan"}) ==
          "plan");
    CHECK(told({"--currency"}).empty());  // no value: left to the whole parse
    CHECK(told({"--currency", "EUR"}).empty());
    CHECK(told({"--bogus", "recommend"}).empty());
    CHECK(told({"--model", "bert", "recommend"}).empty());       // a command's option: not a global one
    CHECK(told({"--catalog=a.csv", "config", "show"}).empty());  // config reads every command's options
}

TEST_CASE(
    "The options a line may give before its one-command set-up are the global ones, each with or "
    "without a value as it takes",
    "[cli]") {
    // Read off the global options' help: a name alone is a flag, a name and a value ("--currency CODE",
    // "--format table|json|...") takes one. -h/--help and --version are left to the full set-up.
    const auto help = gpuadvise::testing::run_args({"--wide", "--help"});
    REQUIRE(help.exit == 0);
    std::istringstream lines(help.out);
    std::vector<std::string> flags, valued;
    bool options = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "Options:") options = true;
        if (line.empty()) options = false;
        if (!options || line.rfind("  -", 0) != 0) continue;
        const std::string field = line.substr(2, line.find("  ", 2) - 2);
        const bool takes_value = field.find(' ') != std::string::npos;
        std::istringstream names(field.substr(0, field.find(' ')));
        for (std::string name; std::getline(names, name, ',');)
            if (name != "-h" && name != "--help" && name != "--version")
                (takes_value ? valued : flags).push_back(name);
    }
    REQUIRE(flags.size() >= 5);
    REQUIRE(valued.size() >= 5);
    const auto listed = gpuadvise::cli::global_flags();
    std::vector<std::string> named(listed.begin(), listed.end());
    std::sort(flags.begin(), flags.end());
    std::sort(named.begin(), named.end());
    CHECK(named == flags);
    const auto listed_valued = gpuadvise::cli::global_value_options();
    std::vector<std::string> named_valued(listed_valued.begin(), listed_valued.end());
    std::sort(valued.begin(), valued.end());
    std::sort(named_valued.begin(), named_valued.end());
    CHECK(named_valued == valued);
}

}  // namespace cli_test_command_app
