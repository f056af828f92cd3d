// Option values in gpuadvise's own words (issues #24 and #31): every option of every command, given
// values CLI11 would word itself (not a number, past double's range, a fraction for a count, an
// exponent, a denormal, spaces), gets a message of ours; every bounded number is in docs/usage.md's
// "Value bounds" table, and a value just outside each documented bound is refused with that range.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "run_cli.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace cli_test_value_bounds {

namespace {

struct Run {
    int exit = 0;
    std::string err;
};

Run run(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    Run r;
    r.exit = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
    r.err = err.str();
    return r;
}

// Every named option that takes a value, with the command words that reach it ("catalog update").
std::vector<std::pair<std::vector<std::string>, std::string>> all_value_options() {
    static CLI::App app;  // kept: the options' callbacks refer to state the setup functions own
    static std::vector<std::pair<std::vector<std::string>, std::string>> found;
    if (!found.empty()) return found;
    std::vector<std::pair<CLI::App*, std::vector<std::string>>> todo;
    for (const auto& c : gpuadvise::cli::commands()) {
        gpuadvise::cli::CommandApp* sub = &gpuadvise::cli::add_command(app, c.name, c.summary);
        c.setup(*sub);
        todo.push_back({sub, {c.name}});
    }
    while (!todo.empty()) {
        auto [at, path] = todo.back();
        todo.pop_back();
        for (const CLI::Option* o : at->get_options())
            if (o->nonpositional() && o->get_expected_max() != 0 && !o->get_lnames().empty())
                found.push_back({path, "--" + o->get_lnames().front()});
        for (CLI::App* s : at->get_subcommands({})) {
            auto p = path;
            p.push_back(s->get_name());
            todo.push_back({s, p});
        }
    }
    return found;
}

std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

// docs/usage.md, "Value bounds": "| `--top` | recommend | whole number, 1 to 1000 |".
struct Bound {
    bool whole = false;
    double min = 0, max = 0;
};

std::map<std::pair<std::string, std::string>, Bound> documented_bounds() {
    std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/docs/usage.md");
    std::map<std::pair<std::string, std::string>, Bound> bounds;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("| `--", 0) != 0) continue;
        std::vector<std::string> cells;
        std::stringstream ss(line.substr(1));
        for (std::string cell; std::getline(ss, cell, '|');) cells.push_back(cell);
        if (cells.size() < 3) continue;
        const std::string value = cells[2];
        const auto comma = value.find(", ");
        const auto to = value.find(" to ");
        if (comma == std::string::npos || to == std::string::npos) continue;  // another table
        const std::string kind = value.substr(1, comma - 1);
        if (kind != "whole number" && kind != "number") continue;
        Bound b{kind == "whole number", std::strtod(value.substr(comma + 2, to - comma - 2).c_str(), nullptr),
                std::strtod(value.substr(to + 4).c_str(), nullptr)};
        std::string option = cells[0];
        option = option.substr(option.find('`') + 1);
        option = option.substr(0, option.find('`'));
        std::stringstream commands(cells[1]);
        for (std::string c; std::getline(commands, c, ',');) {
            while (!c.empty() && c.front() == ' ') c.erase(0, 1);
            while (!c.empty() && c.back() == ' ') c.pop_back();
            bounds[{c, option}] = b;
        }
    }
    return bounds;
}

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

}  // namespace

TEST_CASE("no option value gets CLI11's wording, a crash or a conversion error", "[cli]") {
    // What CLI11 says itself; none of it may reach a user.
    const std::vector<std::string> cli11 = {"Could not convert", "not in range", "not in {", " is required",
                                            "At Most",           "At least",     "Expected", "not expected",
                                            "internal error",    "Should be"};
    for (const auto& [path, option] : all_value_options()) {
        for (const std::string value : {"abc", "1e999", "2.5", "1e0", "-1", "1e-320", " 3 ", "0x10"}) {
            auto args = path;
            args.insert(args.end(), {option, value, "--no-such-option"});  // a value taken ends at this
            const Run r = run(args);
            INFO(joined(args) << "\n" << r.err);
            CHECK(r.exit == 2);
            CHECK(r.err.rfind("gpuadvise: error: ", 0) == 0);
            for (const auto& phrase : cli11) CHECK(r.err.find(phrase) == std::string::npos);
        }
    }
}

TEST_CASE("every bounded option is in docs/usage.md's Value bounds, and each bound is the checked one",
          "[cli]") {
    const auto bounds = documented_bounds();
    REQUIRE(bounds.size() > 40);
    std::set<std::pair<std::string, std::string>> bounded;
    for (const auto& [path, option] : all_value_options()) {
        auto args = path;
        args.insert(args.end(), {option, "1e999", "--no-such-option"});
        if (run(args).err.find(" is out of range; expected ") == std::string::npos) continue;
        bounded.insert({joined(path), option});
        INFO(joined(path) << " " << option << " has a range; give it a row in docs/usage.md, Value bounds");
        CHECK(bounds.count({joined(path), option}) == 1);
    }
    for (const auto& [key, b] : bounds) {
        const auto& [command, option] = key;
        INFO(command << " " << option);
        CHECK(bounded.count(key) == 1);  // a documented bound the command does not check
        std::vector<std::string> words;
        std::stringstream ss(command);
        for (std::string w; ss >> w;) words.push_back(w);
        for (const double v :
             {b.max + (b.whole ? 1 : b.max), b.min - (b.whole ? 1 : (b.min > 0 ? b.min / 2 : 1))}) {
            auto args = words;
            args.insert(args.end(), {option, number_text(v)});
            const Run r = run(args);
            INFO(joined(args) << "\n" << r.err);
            CHECK(r.exit == 2);
            CHECK(r.err.find(option + ": " + number_text(v) + " is out of range; expected ") !=
                  std::string::npos);
            const auto at = r.err.find("; expected ");
            REQUIRE(at != std::string::npos);
            const std::string range = r.err.substr(at + 11, r.err.find('\n', at) - at - 11);
            const auto to = range.find(" to ");
            REQUIRE(to != std::string::npos);
            CHECK(std::strtod(range.substr(0, to).c_str(), nullptr) == Approx(b.min));
            CHECK(std::strtod(range.substr(to + 4).c_str(), nullptr) == Approx(b.max));
        }
        for (const double inside : {b.min, b.max}) {  // the bounds themselves are allowed
            auto args = words;
            args.insert(args.end(), {option, number_text(inside), "--no-such-option"});
            const Run r = run(args);
            INFO(joined(args) << "\n" << r.err);
            CHECK(r.err.find(option + ":") == std::string::npos);  // the error is about something else
        }
    }
}

TEST_CASE("whole numbers reach the option in decimal: 1e1 is 10 and 010 is ten, not octal eight", "[cli]") {
    REQUIRE(gpuadvise::testing::run_cli({"offers"}).json["offers"].size() > 10);
    for (const std::string limit : {"010", "1e1", "10.0", "+10"}) {
        const auto r = gpuadvise::testing::run_cli({"offers", "--limit", limit});
        INFO(limit << "\n" << r.err);
        CHECK(r.exit == 0);
        CHECK(r.json["offers"].size() == 10);
    }
}

TEST_CASE("denormals are refused on the command line as in jobs files", "[cli]") {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"estimate", "--model", "bert", "--epochs", "1e-320"},
          {"estimate", "--model", "bert", "--hours-per-run", "1e-320", "--measured-on", "A100"},
          {"estimate", "--params", "1e-320"},
          {"recommend", "--model", "bert", "--runs-per-week", "1e-320"},
          {"recommend", "--model", "bert", "--runs-per-week", "1e-400"}}) {
        const Run r = run(args);
        INFO(joined(args) << "\n" << r.err);
        CHECK(r.exit == 2);
        const bool refused =
            r.err.find("is too small to be represented exactly (a denormal)") != std::string::npos ||
            r.err.find("1e-320 is out of range; expected 1e-06 to 1000000") != std::string::npos;
        CHECK(refused);
    }
}

}  // namespace cli_test_value_bounds
