// --help in gpuadvise's words (issue #29, item 12): no CLI11 joins ("TYPE:{a,b}", "N:INT in [1 - 1000]",
// "{false}" after a flag), each subcommand its own examples (not the top-level ones a subcommand starts
// with), the same option offering the same values to completion in every command, and a command group
// without its subcommand behaving as bare gpuadvise.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/docgen.hpp"
#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_help_text {

namespace {

using Run = gpuadvise::testing::CliResult;

Run run(const std::vector<std::string>& args) { return gpuadvise::testing::run_args(args); }

// The command tree as the command table builds it, with each command's words ("catalog update").
std::vector<std::pair<std::vector<std::string>, CLI::App*>> command_tree() {
    static CLI::App app;  // kept: the options' callbacks refer to state the setup functions own
    static std::vector<std::pair<std::vector<std::string>, CLI::App*>> found;
    if (!found.empty()) return found;
    std::vector<std::pair<std::vector<std::string>, CLI::App*>> todo;
    for (const auto& c : gpuadvise::cli::commands()) {
        gpuadvise::cli::CommandApp* sub = &gpuadvise::cli::add_command(app, c.name, c.summary);
        c.setup(*sub);
        todo.push_back({{c.name}, sub});
    }
    while (!todo.empty()) {
        auto [path, at] = todo.back();
        todo.pop_back();
        found.push_back({path, at});
        for (CLI::App* s : at->get_subcommands({})) {
            auto p = path;
            p.push_back(s->get_name());
            todo.push_back({p, s});
        }
    }
    return found;
}

// The lines under "Examples:" of a help text.
std::string examples_of(const std::string& help) {
    const auto at = help.find("\nExamples:\n");
    if (at == std::string::npos) return "";
    const auto end = help.find("\n\n", at + 1);
    return help.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("no --help shows CLI11's joins of type and check, or a negated flag's {false}", "[cli]") {
    const std::vector<std::string> leftovers = {":{",         ":INT in [", ":FLOAT in [", "INT in [",
                                                "FLOAT in [", "{false}",   "{true}",      " is required"};
    std::vector<std::vector<std::string>> paths{{}};
    for (const auto& [path, app] : command_tree()) paths.push_back(path);
    for (auto path : paths) {
        path.push_back("--help");
        const Run r = run(path);
        INFO(r.out);
        REQUIRE(r.exit == 0);
        for (const auto& l : leftovers) CHECK(r.out.find(l) == std::string::npos);
    }
    // What is shown instead: the choices once, the range in the description.
    const Run offers = run({"offers", "--help", "--wide"});
    CHECK(offers.out.find("--sort price|price-per-gpu|usd-per-tflops\n") != std::string::npos);
    CHECK(offers.out.find("--limit N ") != std::string::npos);
    CHECK(offers.out.find("(1 to 1000000000)") != std::string::npos);
    const Run rec = run({"recommend", "--help", "--wide"});
    CHECK(rec.out.find("--objective cost|time|balanced|carbon\n") != std::string::npos);
    CHECK(rec.out.find("How many options to list (default 5; 1 to 1000)") != std::string::npos);
    CHECK(rec.out.find("--budget-monthly NUMBER ") != std::string::npos);
    CHECK(rec.out.find("(output currency; 0 to 1e12)") != std::string::npos);
    const Run est = run({"estimate", "--help", "--wide"});
    CHECK(est.out.find("  --grad-checkpointing,--no-grad-checkpointing\n") != std::string::npos);
    CHECK(run({"completion", "--help"}).out.find("shell bash|zsh|fish REQUIRED") != std::string::npos);
}

TEST_CASE("each subcommand's --help has its own examples, not the top-level ones", "[cli]") {
    const std::string top = examples_of(run({"--help"}).out);
    REQUIRE(!top.empty());
    for (const auto& [path, app] : command_tree()) {
        if (app->get_group().empty()) continue;  // a hidden command (man, __complete) has no help page
        auto args = path;
        args.push_back("--help");
        const std::string mine = examples_of(run(args).out);
        INFO("gpuadvise " << path.front() << (path.size() > 1 ? " " + path.back() : "") << " --help\n"
                          << mine);
        CHECK(mine != top);
    }
    const std::string update = examples_of(run({"catalog", "update", "--help"}).out);
    CHECK(update.find("gpuadvise catalog update --offline") != std::string::npos);
}

TEST_CASE("an option of the same name completes to the same values in every command", "[cli]") {
    std::map<std::string, std::vector<std::string>> choices;  // --name -> values, from the first command
    std::map<std::string, std::string> first;
    bool plan_seen = false;
    for (const auto& [path, app] : command_tree())
        for (const CLI::Option* o : app->get_options()) {
            if (!o->nonpositional() || o->get_lnames().empty() || o->get_expected_max() == 0) continue;
            const std::string name = "--" + o->get_lnames().front();
            const auto values = gpuadvise::cli::option_choices(*o);
            if (name == "--plan" && path == std::vector<std::string>{"recommend"}) {
                plan_seen = true;
                CHECK(gpuadvise::cli::value_kind(*o) == gpuadvise::cli::ValueKind::choices);
            }
            if (values.empty() && !choices.count(name)) continue;
            INFO(name << " in " << path.front() << " against " << first[name]);
            if (!choices.count(name)) {
                choices[name] = values;
                first[name] = path.front();
            } else {
                CHECK(values == choices[name]);
            }
        }
    CHECK(plan_seen);
    REQUIRE(choices.count("--plan"));
    CHECK(choices["--plan"] == std::vector<std::string>{"on-demand", "reserved", "reserved-1m", "reserved-1y",
                                                        "reserved-3y", "spot"});
}

TEST_CASE("bare gpuadvise and a command group without its subcommand agree: the help, exit 0", "[cli]") {
    const Run bare = run({});
    CHECK(bare.exit == 0);
    CHECK(bare.out.find("Usage: gpuadvise") != std::string::npos);
    for (const std::string group : {"catalog", "config"}) {
        const Run r = run({group});
        INFO(group << "\n" << r.err);
        CHECK(r.exit == bare.exit);
        CHECK(r.out.find("Usage: gpuadvise " + group) != std::string::npos);
        CHECK(r.err.empty());
    }
    const Run typo = run({"catalog", "valdate"});  // a wrong word stays a usage error
    CHECK(typo.exit == 2);
    CHECK(typo.err.find("did you mean 'validate'?") != std::string::npos);
}

}  // namespace cli_test_help_text
