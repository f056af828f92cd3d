#include "cli/app.hpp"
#include "cli/help_footer.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iterator>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli/build_info.hpp"
#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/docgen.hpp"
#include "cli/emit.hpp"
#include "cli/option_checks.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/output.hpp"
#include "io/terminal.hpp"
#include "io/text_table.hpp"
#include "io/user_config.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise::cli {
namespace {

constexpr std::size_t kMaxPrintedDiagnostics = 100;  // diagnostics printed with one error

const HelpFooter kFooter{
    {FooterBlock::Kind::examples,
     {"gpuadvise recommend --model bert --runs-per-week 4", "gpuadvise compare A100 V100 T4",
      "gpuadvise offers --gpu A100:80GB:8 --sort price-per-gpu",
      "gpuadvise recommend --model llama-2-7b --task lora --json | jq '.recommendations[0]'"}},
    {FooterBlock::Kind::exit_summary,
     {"Exit codes: 0 success, 1 data or runtime error, 2 usage error, 3 nothing satisfies the request.",
      "Docs: docs/usage.md, docs/json.md, docs/catalog.md, docs/methodology.md"}}};

void add_global_options(CLI::App& app, GlobalOptions& g) {
    app.add_option("--catalog", g.catalogs,
                   "Catalog file (YAML, or a SkyPilot vms.csv) on top of the built-in one; repeatable, later "
                   "files override")
        ->type_name("FILE")
        ->allow_extra_args(false);
    app.add_option("--provider-name", g.provider_name,
                   "Provider id for a SkyPilot CSV given with --catalog (default: the file name, lambda.csv "
                   "-> lambda)")
        ->type_name("ID");
    app.add_flag("--no-default-catalog", g.no_default_catalog, "Do not load the built-in catalog");
    app.add_option("--format", g.format, "Output format")
        ->check(one_of({"table", "json", "csv", "tsv", "markdown", "html"}));
    app.add_option("--section", g.section,
                   "Which table --format csv/tsv prints (docs/json.md lists each command's)")
        ->type_name("NAME");
    app.add_flag("--csv-raw", g.csv_raw,
                 "CSV/TSV: write text cells exactly (default: a ' before a cell that starts with = + - @, "
                 "tab or CR, which a spreadsheet would run as a formula)");
    app.add_flag("--json", g.json, "Shorthand for --format json");
    app.add_option("--color", g.color,
                   "Colour the table output (auto: only on a terminal, NO_COLOR respected)")
        ->check(one_of({"auto", "always", "never"}));
    app.add_option("--currency", g.currency,
                   "Currency of the prices shown (converted with the catalog's dated rates)")
        ->type_name("CODE");
    app.add_flag(
        "-q,--quiet", g.quiet,
        "Hide warnings and notes on stderr (errors are always shown); recommend prints its decision and "
        "table only");
    app.add_flag("--strict-variants", g.strict_variants,
                 "Drop SkyPilot rows whose GPU variant cannot be told (bare A100/H100) instead of assuming "
                 "the most conservative one");
    app.add_option("--as-of", g.as_of,
                   "Date of the prices of SkyPilot tables given with --catalog (default: as-of unknown, "
                   "treated as stale)")
        ->type_name("YYYY-MM-DD")
        ->check(iso_date_value());
    app.add_flag("--wide", g.wide,
                 "Show every table column and line unwrapped (default: fit COLUMNS, else the terminal, else "
                 "100 columns)");
}

// CLI11's help laid out for the terminal: option descriptions that run past the width wrap under
// their own column, other long lines (usage, footer) with a hanging indent; --wide leaves it as is.
class WrappingFormatter : public CLI::Formatter {
public:
    explicit WrappingFormatter(const bool& wide) : wide_(wide) {}
    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
        const std::string text = CLI::Formatter::make_help(app, std::move(name), mode);
        const std::size_t width = wide_ ? 0 : io::terminal_width(1);
        if (width == 0) return text;
        const std::size_t column = get_column_width();
        std::string out;
        std::size_t start = 0;
        while (start < text.size()) {
            std::size_t end = text.find('\n', start);
            const bool newline = end != std::string::npos;
            if (!newline) end = text.size();
            const std::string line = text.substr(start, end - start);
            start = end + 1;
            std::vector<std::string> lines;
            const bool described = line.size() > column && line.rfind("  ", 0) == 0 &&
                                   line[column - 1] == ' ' && line[column] != ' ' && width >= column + 20;
            if (io::display_width(line) <= width) {
                lines = {line};
            } else if (described) {
                lines = io::wrap_text(line.substr(column), width - column, 0);
                for (std::size_t k = 0; k < lines.size(); ++k)
                    lines[k] = (k == 0 ? line.substr(0, column) : std::string(column, ' ')) + lines[k];
            } else {
                lines = io::wrap_line(line, width);
            }
            for (const auto& l : lines) out += l + (newline || &l != &lines.back() ? "\n" : "");
        }
        return out;
    }

    // Option names and values in gpuadvise's words (docgen.hpp): "--top N  How many options to list
    // (default 5; 1 to 1000)", "--sort price|price-per-gpu|usd-per-tflops", no "{false}" after a flag.
    std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
        return is_positional ? CLI::Formatter::make_option_name(opt, true) : help_names(*opt);
    }
    std::string make_option_opts(const CLI::Option* opt) const override {
        if (opt->get_type_size() == 0) return CLI::Formatter::make_option_opts(opt);
        const std::string type = help_value(*opt).type;
        std::string out = type.empty() ? "" : " " + type;
        if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
        if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
        if (opt->get_required()) out += " REQUIRED";
        return out;
    }
    std::string make_option_desc(const CLI::Option* opt) const override { return help_description(*opt); }

private:
    const bool& wide_;
};

int print_error(std::ostream& err, const std::string& message, const std::string& hint) {
    err << "gpuadvise: error: " << escape_control_chars(message) << "\n";
    if (!hint.empty()) err << "hint: " << escape_control_chars(hint) << "\n";
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
        for (const auto& c : commands())
            if (*c.summary) names.emplace_back(c.name);  // hidden commands (no summary) are not suggested
        if (auto best = closest_match(first, names))
            return "did you mean '" + *best + "'? (run 'gpuadvise --help' for the commands)";
        return "run 'gpuadvise --help' for the commands";
    }
    std::string word = first.substr(0, first.find('='));
    std::string help =
        active ? "run 'gpuadvise " + active->get_name() + " --help'" : "run 'gpuadvise --help'";
    if (word.rfind("--", 0) == 0)
        if (auto best = closest_match(word, option_names(active ? active : &root)))
            return "did you mean '" + *best + "'? (" + help + ")";
    return help;
}

int run_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// Every option refuses an empty value (--zero "" read as 0, --pytorch "" as no filter) and a number
// in another base (0x10 read as 16); a flag's value (--wide=maybe) must read as true or false.
void add_value_checks(CLI::App& app) {
    for (CLI::Option* o : app.get_options()) {
        if (o->get_name() == "--help" || o->get_name() == "--version") continue;
        if (o->get_expected_max() == 0)  // a flag
            o->check(flag_value());
        else
            o->check(CLI::Validator(plain_value_problem, "", ""));
    }
    for (CLI::App* sub : app.get_subcommands({})) add_value_checks(*sub);
}

// The command the arguments chose, the deepest one ("catalog import"); nullptr for none.
const CLI::App* chosen_command(const CLI::App& root) {
    const CLI::App* chosen = nullptr;
    for (const CLI::App* at = &root; at;) {
        const auto subs = at->get_subcommands();
        at = subs.empty() ? nullptr : subs.back();
        if (at) chosen = at;
    }
    return chosen;
}

// "catalog import" for that command.
std::string command_path(const CLI::App* command) {
    std::string path;
    for (const CLI::App* a = command; a && a->get_parent(); a = a->get_parent())
        path = a->get_name() + (path.empty() ? "" : " " + path);
    return path;
}

// The options a command line may give at `command`: its own and those of the commands above it.
std::vector<const CLI::Option*> options_in_reach(const CLI::App& root, const CLI::App* command) {
    std::vector<const CLI::Option*> options;
    for (const CLI::App* a = command ? command : &root; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options()) options.push_back(o);
    return options;
}

// An option without its value, or one given more times than it takes: read from the parser's state
// (which option was last on the line, how many values each one holds), not from CLI11's message.
std::string argument_mismatch_message(const CLI::App& root, const CLI::App* command,
                                      const std::vector<std::string>& args) {
    const auto options = options_in_reach(root, command);
    if (!args.empty() && args.back().rfind("-", 0) == 0)
        for (const CLI::Option* o : options)
            if (o->check_name(args.back()) && o->get_items_expected_min() > 0 &&
                o->count() < static_cast<std::size_t>(o->get_items_expected_min()))
                return o->get_name() + " needs a value";
    for (const CLI::Option* o : options) {
        const int most = o->get_items_expected_max();
        if (most > 0 && o->count() > static_cast<std::size_t>(most))
            return most == 1
                       ? o->get_name() + " is given " + std::to_string(o->count()) + " times; give it once"
                       : o->get_name() + " takes at most " + std::to_string(most) + " values, got " +
                             std::to_string(o->count());
    }
    return {};
}

// The required arguments a command line left out ("'gpuadvise plan' needs its jobs argument").
std::string required_message(const CLI::App& root, const CLI::App* command) {
    std::vector<std::string> missing;
    for (const CLI::Option* o : (command ? command : &root)->get_options())
        if (o->get_required() && o->count() == 0) missing.push_back(o->get_name());
    if (missing.empty()) return {};
    const std::size_t n = missing.size();
    std::string list = missing.back();
    if (n > 1) {
        missing.pop_back();
        list = join(missing, ", ") + " and " + list;
    }
    return "'gpuadvise" + (command ? " " + command_path(command) : "") + "' needs its " + list +
           (n > 1 ? " arguments" : " argument");
}

// Arguments no option or command took: an unknown command or option, or values too many.
std::string extras_message(const CLI::App* command, std::vector<std::string>& extras) {
    if (extras.empty()) return {};
    if (!command && extras.front().rfind("-", 0) != 0) return "unknown command '" + extras.front() + "'";
    const std::string where = command ? " for '" + command_path(command) + "'" : "";
    for (const auto& x : extras)
        if (x.rfind("-", 0) == 0) {
            const std::string option = x.substr(0, x.find('='));
            extras = {x};
            return "unknown option '" + option + "'" + where;
        }
    std::vector<std::string> quoted;
    for (const auto& x : extras) quoted.push_back("'" + x + "'");
    return std::string(extras.size() == 1 ? "unexpected argument " : "unexpected arguments ") +
           join(quoted, ", ") + where;
}

}  // namespace

void exit_after_run() { Context::leave_to_exit(); }

// Every write and the final flush of the output are checked: a result that did not reach its
// file is an error (exit 1), never a success. A reader that closed the pipe early (`| head`) is
// not: with SIGPIPE at its default the write kills the process (status 128+13 in a shell); with
// SIGPIPE ignored the run ends quietly with the same status, 141.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    int code = run_command(argc, argv, out, err);
    out.flush();
    if (!out) {
        const int error = io::output_error(out);
        if (error == EPIPE) return kBrokenPipeExit;
        print_error(
            err, std::string("writing the output: ") + (error ? std::strerror(error) : "the stream failed"),
            error == ENOSPC ? "free some space, or write the output elsewhere" : "");
        return 1;
    }
    return code;
}

int run_main(int argc, const char* const* argv) {
    io::reserve_standard_descriptors();
    io::FdOutputBuffer buffer(1);
    std::ostream out(&buffer);
    return run(argc, argv, out, std::cerr);
}

namespace {

// The global options (add_global_options) that a line may give before its command: those that take
// no value, and those that take exactly one ("--currency EUR" or "--currency=EUR"; --catalog takes one
// per use). A guess only: a name wrongly here makes run_with's one-command parse fail or choose no
// command, and the line runs again with every command set up (a test checks both lists against the
// options); a name missing here only costs that set-up.
constexpr std::string_view kGlobalFlags[] = {
    "-q", "--quiet", "--json", "--wide", "--strict-variants", "--no-default-catalog", "--csv-raw"};
constexpr std::string_view kGlobalValueOptions[] = {"--catalog", "--provider-name", "--format", "--section",
                                                    "--color",   "--currency",      "--as-of"};

template <std::size_t N>
bool listed(const std::string_view (&names)[N], std::string_view word) {
    return std::find(std::begin(names), std::end(names), word) != std::end(names);
}

// How many words the global option at argv[i] takes (with its value), or 0 when it is not one.
int global_option_words(int argc, const char* const* argv, int i) {
    const std::string_view word = argv[i];
    if (listed(kGlobalFlags, word)) return 1;
    if (const auto eq = word.find('='); eq != std::string_view::npos)
        return listed(kGlobalValueOptions, word.substr(0, eq)) ? 1 : 0;
    return listed(kGlobalValueOptions, word) && i + 1 < argc && argv[i + 1] != nullptr ? 2 : 0;
}

}  // namespace

std::span<const std::string_view> global_flags() { return kGlobalFlags; }
std::span<const std::string_view> global_value_options() { return kGlobalValueOptions; }

namespace {

// The command a command line names when it can be told without parsing it: its first word after
// global options (kGlobalFlags, kGlobalValueOptions and their values), when that is a command's name,
// no configuration file exists (apply_user_config checks a setting against every command's options)
// and the command does not read the others' options (completion, man, __complete, config). nullptr:
// set up every command.
const Command* named_command(int argc, const char* const* argv) {
    int first = 1;
    while (first < argc && argv[first] != nullptr)
        if (const int words = global_option_words(argc, argv, first); words > 0)
            first += words;
        else
            break;
    if (first >= argc || argv[first] == nullptr || argv[first][0] == '-') return nullptr;
    const std::string_view word = argv[first];
    for (const auto& c : commands())
        if (word == c.name) {
            if (!c.reads_config || word == "config") return nullptr;
            std::error_code ec;
            if (const auto location = io::user_config_location();
                location && std::filesystem::exists(location->path, ec))
                return nullptr;
            return ec ? nullptr : &c;
        }
    return nullptr;
}

// `only`: set up that command alone (the others are not added): a command line that parses cleanly
// into it runs as with every command set up (setting up all thirteen was most of a `recommend`'s
// parsing, 7 of its 50 million instructions). Anything else (a parse error, --help, --version)
// returns nullopt having written nothing, and the caller runs it again with every command set up,
// for the same messages.
std::optional<int> run_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const Command* only);

int run_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    record_command_line(argc, argv);  // for the header of an --emit file
    if (const Command* only = named_command(argc, argv))
        if (auto code = run_with(argc, argv, out, err, only)) return *code;
    return *run_with(argc, argv, out, err, nullptr);
}

}  // namespace

const char* told_command(int argc, const char* const* argv) {
    const Command* c = named_command(argc, argv);
    return c ? c->name : nullptr;
}

int run_every_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    record_command_line(argc, argv);
    return *run_with(argc, argv, out, err, nullptr);
}

namespace {

// Deletes the parser, unless contexts leave what they hold to the process exit (exit_after_run):
// freeing its commands and options was 0.3 of the 22 million instructions of `recommend --model bert
// --runs-per-week 4`.
struct DeleteBeforeExit {
    void operator()(CLI::App* app) const {
        if (!Context::leaves_to_exit()) delete app;
    }
};

std::optional<int> run_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const Command* only) {
    Context ctx(out, err);
    const std::unique_ptr<CLI::App, DeleteBeforeExit> parser(
        new CLI::App(std::string("gpuadvise — ") + kProductSummary));
    CLI::App& app = *parser;
    app.name("gpuadvise");
    set_footer(app, kFooter);
    app.set_version_flag("--version", version_text());  // version, catalog date, commit
    app.require_subcommand(0, 1);
    app.fallthrough();
    app.formatter(std::make_shared<WrappingFormatter>(ctx.global.wide));  // inherited by the subcommands
    add_global_options(app, ctx.global);

    std::map<const CLI::App*, Runner> runners;
    std::map<const CLI::App*, bool> reads_config;
    const auto add = [&](const Command& c) {
        CommandApp& command = add_command(app, c.name, c.summary);
        command.fallthrough();
        runners[&command] = c.setup(command);
        reads_config[&command] = c.reads_config;
    };
    if (!only) {
        for (const auto& c : commands()) add(c);
    } else {
        // The other commands are not even named (that was 0.2 of the 21 million instructions of
        // `recommend --model bert ...`): with one command already chosen (require_subcommand's most is
        // 1), CLI11 reads a later word naming another command as an argument, not as that command.
        add(*only);
    }
    add_value_checks(app);

    if (only) {
        try {
            app.parse(argc, argv);
        } catch (const CLI::Error&) {
            return std::nullopt;  // help, version or an error: with every command set up
        }
        const CLI::App* chosen = nullptr;
        for (const CLI::App* sub : app.get_subcommands()) chosen = sub;
        if (!chosen || chosen->get_name() != only->name) return std::nullopt;
    }
    try {
        if (!only) app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion& e) {
        out << e.what() << "\n";
        return 0;
    } catch (const CLI::ParseError& e) {
        const CLI::App* command = chosen_command(app);
        const std::string help = "run 'gpuadvise " + (command ? command_path(command) + " " : "") + "--help'";
        // "catalog valdate": a command whose subcommand is missing or misspelt.
        if (command && !command->get_subcommands({}).empty()) {
            std::vector<std::string> names;
            for (const CLI::App* s : command->get_subcommands({})) names.push_back(s->get_name());
            std::string word;
            for (const auto& x : app.remaining())
                if (x.rfind("-", 0) != 0) {
                    word = x;
                    break;
                }
            if (word.empty()) {
                // `gpuadvise catalog` as bare `gpuadvise`: the command's help on stdout, exit 0 (a
                // command group without a subcommand asks what it holds; a wrong word is exit 2 below).
                out << app.help();
                return 0;
            } else {
                std::string hint = help;
                if (auto best = closest_match(word, names))
                    hint = "did you mean '" + *best + "'? (" + help + ")";
                print_error(err, "unknown command '" + command_path(command) + " " + word + "'", hint);
            }
            return 2;
        }
        // Each kind of error in gpuadvise's words, from what the parser holds; a ValidationError's
        // message is already ours (option_checks.hpp), with the option in front.
        std::string message;
        std::string hint = help;
        if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
            std::vector<std::string> extras = app.remaining();
            message = extras_message(command, extras);
            hint = hint_for_extras(app, extras);
        } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
            message =
                argument_mismatch_message(app, command, std::vector<std::string>(argv + 1, argv + argc));
        } else if (dynamic_cast<const CLI::RequiredError*>(&e)) {
            message = required_message(app, command);
        }
        print_error(err, message.empty() ? e.what() : message, hint);
        return 2;
    }
    if (ctx.global.json && app.count("--format") > 0 && ctx.global.format != "json") {
        print_error(err, "--json and --format " + ctx.global.format + " conflict", "give one of them");
        return 2;
    }

    const CLI::App* chosen = nullptr;
    for (const CLI::App* sub : app.get_subcommands()) chosen = sub;  // the command (catalog, not import)
    if (!chosen) {
        out << app.help();
        return 0;
    }
    try {
        if (reads_config.at(chosen))
            apply_user_config(app, *chosen, ctx);  // config.yaml under the command line
        return runners.at(chosen)(ctx);
    } catch (const UsageError& e) {
        print_error(err, e.what(), e.hint());
        return 2;
    } catch (const DataError& e) {
        // At most kMaxPrintedDiagnostics lines, then how many more: a file with an error on each of
        // 100,000 lines says so in a screenful (the count is in the message below).
        const auto& details = e.details();
        for (std::size_t i = 0; i < details.size() && i < kMaxPrintedDiagnostics; ++i)
            err << escape_control_chars(format_diagnostic(details[i])) << "\n";
        if (details.size() > kMaxPrintedDiagnostics)
            err << "... and " << details.size() - kMaxPrintedDiagnostics << " more\n";
        print_error(err, e.what(), e.hint());
        return 1;
    } catch (const std::exception& e) {
        print_error(err, std::string("internal error: ") + e.what(),
                    "this is a bug in gpuadvise; please report it with the command line that caused it");
        return 1;
    }
}

}  // namespace

}  // namespace gpuadvise::cli
