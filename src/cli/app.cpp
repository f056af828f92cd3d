#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include <map>

#include "cli/commands.hpp"
#include "gpuadvise/errors.hpp"
#include "gpuadvise/text.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise::cli {
namespace {

constexpr const char* kExamples = R"(Examples:
  gpuadvise recommend --model bert --runs-per-week 4
  gpuadvise compare A100 V100 T4
  gpuadvise offers --gpu A100:80GB:8 --sort price-per-gpu
  gpuadvise recommend --model llama-2-7b --task lora --json | jq '.recommendations[0]'

Exit codes: 0 success, 1 data or runtime error, 2 usage error, 3 nothing satisfies the request.
Docs: docs/usage.md, docs/json.md, docs/catalog.md, docs/methodology.md)";

void add_global_options(CLI::App& app, GlobalOptions& g) {
    app.add_option("--catalog", g.catalogs, "Catalog file (YAML, or a SkyPilot vms.csv) on top of the built-in one; repeatable, later files override")
        ->type_name("FILE")
        ->allow_extra_args(false);
    app.add_option("--provider-name", g.provider_name, "Provider id for a SkyPilot CSV given with --catalog (default: the file name, lambda.csv -> lambda)")
        ->type_name("ID");
    app.add_flag("--no-default-catalog", g.no_default_catalog, "Do not load the built-in catalog");
    app.add_option("--format", g.format, "Output format")
        ->check(CLI::IsMember({"table", "json", "csv", "markdown"}))
        ;
    app.add_flag("--json", g.json, "Shorthand for --format json");
    app.add_option("--color", g.color, "Colour the table output (auto: only on a terminal, NO_COLOR respected)")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ;
    app.add_option("--currency", g.currency, "Currency of the prices shown (converted with the catalog's dated rates)")
        ->type_name("CODE");
    app.add_flag("-q,--quiet", g.quiet, "Hide warnings and notes on stderr (errors are always shown)");
    app.add_flag("--strict-variants", g.strict_variants, "Drop SkyPilot rows whose GPU variant cannot be told (bare A100/H100) instead of assuming the most conservative one");
    app.add_option("--as-of", g.as_of, "Date of the prices of SkyPilot tables given with --catalog (default: as-of unknown, treated as stale)")
        ->type_name("YYYY-MM-DD");
}

int print_error(std::ostream& err, const std::string& message, const std::string& hint) {
    err << "gpuadvise: error: " << message << "\n";
    if (!hint.empty()) err << "hint: " << hint << "\n";
    return 0;
}

std::vector<std::string> option_names(const CLI::App* app) {
    std::vector<std::string> names;
    for (const CLI::App* a = app; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options())
            for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    return names;
}

// CLI11 reports unknown arguments without suggestions; add them.
std::string hint_for_extras(const CLI::App& root, const std::vector<std::string>& extras) {
    const CLI::App* active = nullptr;
    for (const CLI::App* sub : root.get_subcommands()) active = sub;
    if (extras.empty()) return "run 'gpuadvise --help'";
    const std::string& first = extras.front();
    if (!active && first.rfind("-", 0) != 0) {
        std::vector<std::string> names;
        for (const auto& c : commands()) names.emplace_back(c.name);
        if (auto best = closest_match(first, names)) return "did you mean '" + *best + "'? (run 'gpuadvise --help' for the commands)";
        return "run 'gpuadvise --help' for the commands";
    }
    std::string word = first.substr(0, first.find('='));
    std::string help = active ? "run 'gpuadvise " + active->get_name() + " --help'" : "run 'gpuadvise --help'";
    if (word.rfind("--", 0) == 0)
        if (auto best = closest_match(word, option_names(active ? active : &root)))
            return "did you mean '" + *best + "'? (" + help + ")";
    return help;
}

}  // namespace

void exit_after_run() { Context::leave_catalogs_to_exit(); }

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    Context ctx(out, err);
    CLI::App app{"gpuadvise — which GPU cloud offer to rent for a PyTorch job, on which plan, and why"};
    app.name("gpuadvise");
    app.footer(kExamples);
    app.set_version_flag("--version", std::string("gpuadvise ") + GPUADVISE_VERSION);
    app.require_subcommand(0, 1);
    app.fallthrough();
    add_global_options(app, ctx.global);

    std::map<const CLI::App*, Runner> runners;
    for (const auto& c : commands()) {
        CLI::App* sub = app.add_subcommand(c.name, c.summary);
        sub->fallthrough();
        runners[sub] = c.setup(*sub);
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion& e) {
        out << e.what() << "\n";
        return 0;
    } catch (const CLI::ExtrasError& e) {
        std::vector<std::string> extras = app.remaining();
        const CLI::App* active = nullptr;
        for (const CLI::App* sub : app.get_subcommands()) active = sub;
        std::string message = e.what();
        if (!extras.empty() && !active && extras.front().rfind("-", 0) != 0)
            message = "unknown command '" + extras.front() + "'";
        else
            for (const auto& x : extras)
                if (x.rfind("-", 0) == 0) {
                    message = "unknown option '" + x.substr(0, x.find('=')) + "'" +
                              (active ? " for '" + active->get_name() + "'" : "");
                    extras = {x};
                    break;
                }
        print_error(err, message, hint_for_extras(app, extras));
        return 2;
    } catch (const CLI::ParseError& e) {
        std::string help = "run 'gpuadvise --help'";
        for (const CLI::App* sub : app.get_subcommands()) help = "run 'gpuadvise " + sub->get_name() + " --help'";
        print_error(err, e.what(), help);
        return 2;
    }

    const CLI::App* chosen = nullptr;
    for (const CLI::App* sub : app.get_subcommands()) chosen = sub;
    if (!chosen) {
        out << app.help();
        return 0;
    }
    try {
        return runners.at(chosen)(ctx);
    } catch (const UsageError& e) {
        print_error(err, e.what(), e.hint());
        return 2;
    } catch (const DataError& e) {
        for (const auto& d : e.details()) err << format_diagnostic(d) << "\n";
        print_error(err, e.what(), e.hint());
        return 1;
    } catch (const std::exception& e) {
        print_error(err, std::string("internal error: ") + e.what(),
                    "this is a bug in gpuadvise; please report it with the command line that caused it");
        return 1;
    }
}

}  // namespace gpuadvise::cli
