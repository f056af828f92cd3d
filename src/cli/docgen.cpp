#include "cli/docgen.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cli/help_footer.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/builtin_date.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise::cli {
namespace {

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, sep);) parts.push_back(trim(item));
    return parts;
}

// ---------------------------------------------------------------------------------------------
// The command tree.

std::vector<const CLI::Option*> named_options(const CLI::App& app) {
    return app.get_options([](const CLI::Option* o) { return o->nonpositional(); });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
    return app.get_options([](const CLI::Option* o) { return !o->nonpositional(); });
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_max() > 0; }  // flags expect 0 values

std::vector<std::string> option_flags(const CLI::Option& o) {
    std::vector<std::string> names;
    for (const auto& s : o.get_snames()) names.push_back("-" + s);
    for (const auto& l : o.get_lnames()) names.push_back("--" + l);
    return names;
}

// "recommend", "catalog import": the command words below the root.
std::string command_path(const CLI::App& app) {
    std::string path;
    for (const CLI::App* a = &app; a && a->get_parent(); a = a->get_parent())
        path = a->get_name() + (path.empty() ? "" : " " + path);
    return path;
}

// Every command below `app` (depth first, visible only), `app` itself first.
void walk(const CLI::App& app, std::vector<const CLI::App*>& out) {
    out.push_back(&app);
    for (const CLI::App* sub : visible_subcommands(app)) walk(*sub, out);
}

// A command's footer as set with set_footer (cli/help_footer.hpp): its example command lines and
// its paragraphs (lines joined by spaces); the top-level exit summary is left to EXIT STATUS.
struct Footer {
    std::vector<std::string> examples;
    std::vector<std::string> paragraphs;
};

Footer split_footer(const CLI::App& app) {
    Footer f;
    for (const auto& block : footer_blocks(app.get_footer())) {
        if (block.kind == FooterBlock::Kind::examples)
            f.examples.insert(f.examples.end(), block.lines.begin(), block.lines.end());
        else if (block.kind == FooterBlock::Kind::paragraph)
            f.paragraphs.push_back(join(block.lines, " "));
    }
    return f;
}

// ---------------------------------------------------------------------------------------------
// roff.

// Text for a roff text line: backslashes escaped, a leading . or ' neutralised, the dashes of
// options (-q, --json) written as minus signs, a few non-ASCII characters as groff glyphs.
std::string roff(std::string_view s, bool code = false) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        const bool token_start = i == 0 || std::isspace(static_cast<unsigned char>(s[i - 1])) ||
                                 s[i - 1] == '(' || s[i - 1] == '[' || s[i - 1] == '\'' || s[i - 1] == '"' ||
                                 s[i - 1] == '/' || s[i - 1] == '|' || s[i - 1] == ',';
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-' &&
                   (code || token_start || (out.size() >= 2 && out.compare(out.size() - 2, 2, "\\-") == 0))) {
            out += "\\-";
        } else if (s.substr(i, 3) == "\xE2\x80\x94") {  // em dash
            out += "\\(em";
            i += 2;
        } else if (s.substr(i, 3) == "\xE2\x80\x93") {  // en dash
            out += "\\(en";
            i += 2;
        } else if (s.substr(i, 3) == "\xE2\x80\xA6") {  // ellipsis
            out += "...";
            i += 2;
        } else if (s.substr(i, 3) == "\xE2\x86\x92") {  // right arrow
            out += "\\(->";
            i += 2;
        } else if (s.substr(i, 2) == "\xC3\x97") {  // multiplication sign
            out += "\\(mu";
            i += 1;
        } else if (s.substr(i, 2) == "\xC3\xB7") {  // division sign
            out += "\\(di";
            i += 1;
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

// Names, options and command lines: every '-' a minus sign, so that what is copied from the page runs.
std::string bold(std::string_view s) { return "\\fB" + roff(s, true) + "\\fR"; }
std::string italic(std::string_view s) { return "\\fI" + roff(s, true) + "\\fR"; }

std::string page_name(const CLI::App* command) {
    return command ? "gpuadvise-" + command->get_name() : std::string("gpuadvise");
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string synopsis_args(const CLI::App& app) {
    std::string s;
    if (!named_options(app).empty()) s += " [" + italic("OPTIONS") + "]";
    if (!visible_subcommands(app).empty()) s += " " + italic("COMMAND");
    for (const CLI::Option* p : positionals(app)) {
        std::string arg = italic(p->get_name()) + (p->get_items_expected_max() > 1 ? "..." : "");
        s += p->get_required() ? " " + arg : " [" + arg + "]";
    }
    return s;
}

void write_option(std::ostream& out, const CLI::Option& o) {
    out << ".TP\n";
    std::string head;
    for (const auto& n : option_flags(o)) head += (head.empty() ? "" : ", ") + bold(n);
    if (!o.nonpositional()) head = italic(o.get_name());
    if (takes_value(o) && o.nonpositional()) head += " " + italic(help_value(o).type);
    std::string description = help_description(o);
    std::string extra;
    if (o.get_items_expected_max() > 1 && o.nonpositional()) extra += " Repeatable.";
    if (!o.get_default_str().empty()) extra += " Default: " + o.get_default_str() + ".";
    if (o.get_required()) extra += " Required.";
    if (!extra.empty() && !description.empty() && description.back() != '.') description += ".";
    out << head << "\n" << roff(description + extra) << "\n";
}

void write_options(std::ostream& out, const CLI::App& app) {
    for (const CLI::Option* p : positionals(app)) write_option(out, *p);
    for (const CLI::Option* o : named_options(app)) write_option(out, *o);
}

constexpr const char* kExitStatus = R"(.TP
.B 0
Success.
.TP
.B 1
A data or runtime error: a broken catalog or configuration file (every problem is listed as
\fIfile\fR:\fIline\fR:\fIcolumn\fR: error: ...), a file that cannot be read or written.
.TP
.B 2
A usage error: an unknown command, option, GPU, model or provider (with "did you mean"), or a value
out of range.
.TP
.B 3
A valid request that nothing satisfies; the output names the binding constraint and the nearest miss.
)";

constexpr const char* kEnvironment = R"(.TP
.B GPUADVISE_CATALOG
Colon-separated catalog files (YAML or SkyPilot CSV) loaded on top of the built-in catalog, before
the files given with \fB\-\-catalog\fR.
.TP
.B GPUADVISE_CONFIG
The configuration file to read instead of the default one (see \fBFILES\fR).
.TP
.B XDG_CONFIG_HOME
Where the configuration file is looked for (default \fI$HOME/.config\fR).
.TP
.B HOME
Used for the default configuration directory when \fBXDG_CONFIG_HOME\fR is unset.
.TP
.B GPUADVISE_TODAY
The date (YYYY-MM-DD) used instead of today's for price-age checks; for reproducible output.
.TP
.B NO_COLOR
When set and not empty, \fB\-\-color auto\fR never colours.
.TP
.B TERM
\fB\-\-color auto\fR does not colour when it is \fIdumb\fR.
.TP
.B PATH
\fBcheck\-env\fR looks for \fBnvidia\-smi\fR, \fBnvcc\fR and \fBpython3\fR here.
)";

constexpr const char* kFiles = R"(.TP
.I $XDG_CONFIG_HOME/gpuadvise/config.yaml
(default \fI~/.config/gpuadvise/config.yaml\fR, or \fBGPUADVISE_CONFIG\fR) Defaults for the
currency, the ranking objective, the number of options shown and the providers to include or
exclude. Command-line options override it; \fBgpuadvise config show\fR prints the effective settings
and where each came from. An unknown key or a bad value is an error with its line and column.
.TP
.I /usr/share/doc/gpuadvise/
The documentation: usage, the JSON contract, the catalog format, the methodology.
)";

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<std::string> option_choices(const CLI::Option& option) {
    const std::string type = option.get_type_name();
    std::vector<std::string> values;
    const auto open = type.rfind('{');
    const auto close = type.rfind('}');
    if (open != std::string::npos && close != std::string::npos && close > open) {
        for (std::string v : split(type.substr(open + 1, close - open - 1), ',')) {
            v = trim(v.substr(0, v.find("->")));  // a Transformer's map: the key is what one types
            if (!v.empty()) values.push_back(v);
        }
        return values;
    }
    if (type.find('|') == std::string::npos) return values;
    for (const std::string& v : split(type, '|')) {
        const bool word = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
            return std::islower(static_cast<unsigned char>(c)) ||
                   std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
        });
        if (!word) return {};  // DIR|FILE: placeholders, not values
        values.push_back(v);
    }
    return values;
}

namespace {

// "1e+12" -> "1e12", "1e-06" -> "1e-6": bounds as docs/usage.md writes them.
std::string plain_bound(std::string b) {
    const auto e = b.find('e');
    if (e == std::string::npos) return b;
    std::string mantissa = b.substr(0, e), exponent = b.substr(e + 1);
    bool negative = false;
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
        negative = exponent[0] == '-';
        exponent.erase(0, 1);
    }
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    return mantissa + "e" + (negative ? "-" : "") + exponent;
}

}  // namespace

HelpValue help_value(const CLI::Option& option) {
    HelpValue v;
    std::string type = option.get_type_name();
    // The checks' descriptions CLI11 appends, from the end: ":{a,b,c}" (one_of), ":INT in [a - b]",
    // ":FLOAT in [a - b]" (whole_number, decimal_number; option_checks.hpp).
    for (bool stripped = true; stripped;) {
        stripped = false;
        if (!type.empty() && type.back() == '}') {
            const auto open = type.rfind(":{");
            if (open != std::string::npos) {
                type.erase(open);
                stripped = true;
                continue;
            }
        }
        for (const char* kind : {":INT in [", ":FLOAT in ["}) {
            const auto at = type.rfind(kind);
            if (at == std::string::npos || type.back() != ']') continue;
            const std::string bounds =
                type.substr(at + std::string(kind).size(), type.size() - 1 - at - std::string(kind).size());
            const auto dash = bounds.find(" - ");
            if (dash != std::string::npos)
                v.range = plain_bound(bounds.substr(0, dash)) + " to " + plain_bound(bounds.substr(dash + 3));
            type.erase(at);
            stripped = true;
            break;
        }
    }
    const std::vector<std::string> choices = option_choices(option);
    if (!choices.empty() && (type.empty() || type == "TEXT" || type.find('|') == std::string::npos))
        type = join(choices, "|");
    else if (type == "INT")
        type = "N";
    else if (type == "FLOAT")
        type = "NUMBER";
    v.type = type;
    return v;
}

std::string help_description(const CLI::Option& option) {
    std::string d = option.get_description();
    const std::string range = help_value(option).range;
    if (range.empty()) return d;
    if (!d.empty() && d.back() == ')') {
        d.pop_back();
        return d + "; " + range + ")";
    }
    return d + (d.empty() ? "" : " ") + "(" + range + ")";
}

std::string help_names(const CLI::Option& option) {
    std::string names = option.get_name(false, true);
    for (auto open = names.find('{'); open != std::string::npos; open = names.find('{')) {
        const auto close = names.find('}', open);
        if (close == std::string::npos) break;
        names.erase(open, close - open + 1);
    }
    return names;
}

ValueKind value_kind(const CLI::Option& option) {
    if (!takes_value(option)) return ValueKind::none;
    if (!option_choices(option).empty()) return ValueKind::choices;
    const std::string name = option.nonpositional()
                                 ? option.get_lnames().empty() ? "" : option.get_lnames().front()
                                 : option.get_name();
    // Catalog-backed values, by option name: the same name means the same thing in every command.
    if (name == "gpu" || name == "measured-on" || name == "gpus") {
        if (!(name == "gpus" && option.nonpositional()))
            return ValueKind::gpus;  // estimate --gpus N is a count
    }
    if (name == "model") return ValueKind::models;
    if (name == "provider") return ValueKind::providers;
    const std::string type = option.get_type_name();
    if (type.rfind("FILE", 0) == 0 || type.rfind("DIR|FILE", 0) == 0) return ValueKind::files;
    if (type.rfind("DIR", 0) == 0) return ValueKind::directories;
    return ValueKind::none;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); });
}

std::string man_page(const CLI::App& root, const CLI::App* command) {
    const CLI::App& app = command ? *command : root;
    std::ostringstream out;
    const std::string name = page_name(command);
    out << ".\\\" Generated by 'gpuadvise man" << (command ? " " + command->get_name() : "")
        << "' from the command table and option definitions that print --help. Do not edit.\n";
    out << ".TH " << roff(upper(name), true) << " 1 \"" << io::builtin_catalog_date()
        << "\" \"gpuadvise " GPUADVISE_VERSION << "\" \"User Commands\"\n"
        << ".nh\n";  // no hyphenation: option and page names stay whole
    out << ".SH NAME\n" << roff(name, true) << " \\- ";
    if (command) {
        out << roff(command->get_description()) << "\n";
    } else {
        out << roff(kProductSummary) << "\n";
    }

    out << ".SH SYNOPSIS\n";
    if (command) {
        std::vector<const CLI::App*> all;
        walk(app, all);
        for (const CLI::App* a : all) {
            if (!visible_subcommands(*a).empty()) continue;  // a command with subcommands: one line each
            out << ".br\n" << bold("gpuadvise") << " [" << italic("GLOBAL OPTIONS") << "] ";
            std::string path;
            for (const std::string& w : split(command_path(*a), ' '))
                path += (path.empty() ? "" : " ") + bold(w);
            out << path << synopsis_args(*a) << "\n";
        }
    } else {
        out << bold("gpuadvise") << " [" << italic("GLOBAL OPTIONS") << "] " << italic("COMMAND") << " ["
            << italic("OPTIONS") << "]\n.br\n"
            << bold("gpuadvise") << " " << bold("--help") << " | " << bold("--version") << "\n";
    }

    const Footer footer = split_footer(app);
    out << ".SH DESCRIPTION\n";
    if (command) {
        out << roff(command->get_description()) << ".\n";
        for (const auto& p : footer.paragraphs) out << ".PP\n" << roff(p) << "\n";
        out << ".PP\nThe global options of " << bold("gpuadvise") << "(1) (" << bold("--catalog") << ", "
            << bold("--format") << ", " << bold("--json") << ", " << bold("--currency") << ", "
            << bold("--quiet")
            << " ...) are accepted in any position. Results go to standard output; errors, warnings and "
               "notes to "
               "standard error.\n";
    } else {
        out << bold("gpuadvise") << " tells " << roff(kProductSummary) << ".\n.PP\n"
            << "It reads a catalog of datasheet GPU specs and provider prices (each with its source and "
               "as-of date; "
               "the built-in one is compiled in, see "
            << bold("gpuadvise catalog info")
            << "), analyses the job in four steps (model size, training "
               "frequency, dataset, scaling) and prices it on-demand, reserved and on spot. All times and "
               "costs "
               "are estimates. Results go to standard output (a table, or JSON, CSV or Markdown); errors, "
               "warnings and notes to standard error.\n";
        for (const auto& p : footer.paragraphs) out << ".PP\n" << roff(p) << "\n";
        out << ".SH COMMANDS\n";
        for (const CLI::App* sub : visible_subcommands(root))
            out << ".TP\n"
                << bold(sub->get_name()) << "\n"
                << roff(sub->get_description()) << ". See " << bold("gpuadvise-" + sub->get_name())
                << "(1).\n";
    }

    out << ".SH " << (command ? "OPTIONS" : "GLOBAL OPTIONS") << "\n";
    write_options(out, app);
    if (command) {
        std::vector<const CLI::App*> all;
        walk(app, all);
        if (all.size() > 1) out << ".SH COMMANDS\n";
        for (const CLI::App* a : all) {
            if (a == &app) continue;
            out << ".SS " << roff(command_path(*a)) << "\n" << roff(a->get_description()) << ".\n";
            if (a->get_footer() != a->get_parent()->get_footer() && a->get_footer() != root.get_footer())
                for (const auto& p : split_footer(*a).paragraphs) out << ".PP\n" << roff(p) << "\n";
            write_options(out, *a);
        }
    }

    out << ".SH EXIT STATUS\n" << kExitStatus;
    out << ".SH ENVIRONMENT\n" << kEnvironment;
    out << ".SH FILES\n" << kFiles;
    std::vector<std::string> examples = footer.examples;
    if (command)
        for (const CLI::App* a : visible_subcommands(app))
            if (a->get_footer() != app.get_footer() && a->get_footer() != root.get_footer())
                for (const auto& e : split_footer(*a).examples)
                    if (std::find(examples.begin(), examples.end(), e) == examples.end())
                        examples.push_back(e);
    if (!examples.empty()) {
        out << ".SH EXAMPLES\n";
        for (const auto& e : examples) out << ".PP\n.nf\n.RS 4\n" << roff(e, true) << "\n.RE\n.fi\n";
    }
    out << ".SH SEE ALSO\n";
    std::string see;
    if (command) see = bold("gpuadvise") + "(1)";
    for (const CLI::App* sub : visible_subcommands(root))
        if (sub != command) see += (see.empty() ? "" : ",\n") + bold("gpuadvise-" + sub->get_name()) + "(1)";
    out << see << "\n.PP\nThe documentation in " << italic("/usr/share/doc/gpuadvise/")
        << " (usage.md, json.md, catalog.md, methodology.md).\n";
    out << ".PP\nVersion " << GPUADVISE_VERSION << "; built-in catalog as of " << io::builtin_catalog_date()
        << ".\n";
    return out.str();
}

// ---------------------------------------------------------------------------------------------
// Completions. Each shell script holds the command tree as case tables keyed by "PATH|WORD"
// (PATH: the command words typed so far, "" at the top, "catalog import" below): which words are
// commands, which options take a value, each command's options and what their values are.

namespace {

struct CompletionTree {
    struct Node {
        const CLI::App* app;
        std::string path;
    };
    std::vector<Node> nodes;  // the root first
    const CLI::App* root;
};

CompletionTree completion_tree(const CLI::App& root) {
    CompletionTree t{{}, &root};
    std::vector<const CLI::App*> all;
    walk(root, all);
    for (const CLI::App* a : all) t.nodes.push_back({a, a == &root ? "" : command_path(*a)});
    return t;
}

std::string kind_word(ValueKind k) {
    switch (k) {
        case ValueKind::gpus: return "gpus";
        case ValueKind::models: return "models";
        case ValueKind::providers: return "providers";
        default: return "";
    }
}

// '...' for sh-like shells.
std::string sh_quote(std::string_view s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string join_words(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

// The case label for PATH|WORD; global options (of the root) match under every path.
std::string label(const CompletionTree::Node& n, const std::string& word) {
    if (n.app->get_parent() == nullptr) return "*\"|" + word + "\"";
    return "\"" + n.path + "|" + word + "\"";
}

std::vector<std::string> all_option_words(const CLI::App& app) {
    std::vector<std::string> words;
    for (const CLI::Option* o : named_options(app))
        for (const auto& f : option_flags(*o)) words.push_back(f);
    return words;
}

// Shared by bash and zsh (same case syntax): _gpuadvise_is_command and _gpuadvise_takes_value.
void write_sh_tables(std::ostream& out, const CompletionTree& t) {
    out << "_gpuadvise_is_command() {  # PATH WORD: is WORD a command below PATH?\n    case \"$1|$2\" in\n";
    for (const auto& n : t.nodes)
        for (const CLI::App* sub : visible_subcommands(*n.app))
            out << "        \"" << n.path << "|" << sub->get_name() << "\") return 0 ;;\n";
    out << "    esac\n    return 1\n}\n\n";
    out << "_gpuadvise_takes_value() {  # PATH OPTION: does OPTION take a value there?\n    case \"$1|$2\" "
           "in\n";
    for (std::size_t pass = 0; pass < 2; ++pass)  // the commands' own options first, the global ones last
        for (const auto& n : t.nodes) {
            if ((n.app == t.root) != (pass == 1)) continue;
            for (const CLI::Option* o : named_options(*n.app))
                if (takes_value(*o))
                    for (const auto& f : option_flags(*o))
                        out << "        " << label(n, f) << ") return 0 ;;\n";
        }
    out << "    esac\n    return 1\n}\n\n";
}

// PATH|OPTION -> action, in the order the case must test them (global options last).
struct ValueRule {
    std::string label;
    ValueKind kind;
    std::vector<std::string> choices;
};

std::vector<ValueRule> value_rules(const CompletionTree& t) {
    std::vector<ValueRule> rules;
    for (std::size_t pass = 0; pass < 2; ++pass)
        for (const auto& n : t.nodes) {
            if ((n.app == t.root) != (pass == 1)) continue;
            for (const CLI::Option* o : named_options(*n.app)) {
                const ValueKind k = value_kind(*o);
                if (k == ValueKind::none) continue;
                for (const auto& f : option_flags(*o)) rules.push_back({label(n, f), k, option_choices(*o)});
            }
        }
    return rules;
}

// PATH|INDEX -> action for positional arguments ("*" once a list argument takes the rest).
std::vector<ValueRule> positional_rules(const CompletionTree& t) {
    std::vector<ValueRule> rules;
    for (const auto& n : t.nodes) {
        int index = 0;
        for (const CLI::Option* p : positionals(*n.app)) {
            const bool rest = p->get_items_expected_max() > 1;
            const ValueKind k = value_kind(*p);
            const std::string at =
                rest ? "\"" + n.path + "|\"*" : "\"" + n.path + "|" + std::to_string(index) + "\"";
            if (k != ValueKind::none) rules.push_back({at, k, option_choices(*p)});
            if (rest) break;
            ++index;
        }
    }
    return rules;
}

std::string bash_action(const ValueRule& r) {
    switch (r.kind) {
        case ValueKind::choices:
            return "COMPREPLY=($(compgen -W " + sh_quote(join_words(r.choices)) + " -- \"$cur\"))";
        case ValueKind::files: return "_gpuadvise_files";
        case ValueKind::directories: return "_gpuadvise_files -d";
        default:
            return "COMPREPLY=($(compgen -W \"$(_gpuadvise_values " + kind_word(r.kind) + ")\" -- \"$cur\"))";
    }
}

std::string zsh_action(const ValueRule& r) {
    switch (r.kind) {
        case ValueKind::choices: return "compadd -- " + join_words(r.choices);
        case ValueKind::files: return "_files";
        case ValueKind::directories: return "_files -/";
        default: return "_gpuadvise_values " + kind_word(r.kind);
    }
}

std::string bash_script(const CompletionTree& t) {
    std::ostringstream out;
    out << "# bash completion for gpuadvise                            -*- shell-script -*-\n"
           "# Generated by 'gpuadvise completion bash' from its command table; do not edit.\n"
           "# GPUs, models and providers come from the catalog at Tab time ('gpuadvise __complete "
           "KIND').\n\n";
    out << "_gpuadvise_values() {  # KIND: gpus, models or providers\n"
           "    local bin=${COMP_WORDS[0]}\n"
           "    [[ $bin == */* && -x $bin ]] || bin=gpuadvise\n"
           "    command \"$bin\" __complete \"$1\" 2>/dev/null\n}\n\n";
    out << "_gpuadvise_files() {\n"
           "    if declare -F _filedir >/dev/null; then _filedir \"$@\"\n"
           "    elif [[ ${1-} == -d ]]; then COMPREPLY=($(compgen -d -- \"$cur\"))\n"
           "    else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n}\n\n";
    write_sh_tables(out, t);
    out << "_gpuadvise_value() {  # PATH OPTION: the values of OPTION\n    case \"$1|$2\" in\n";
    for (const auto& r : value_rules(t)) out << "        " << r.label << ") " << bash_action(r) << " ;;\n";
    out << "    esac\n}\n\n";
    out << "_gpuadvise_positional() {  # PATH INDEX: the values of the INDEXth argument\n    case \"$1|$2\" "
           "in\n";
    for (const auto& r : positional_rules(t))
        out << "        " << r.label << ") " << bash_action(r) << " ;;\n";
    out << "    esac\n}\n\n";
    out << "_gpuadvise_words() {  # PATH: its commands (kind commands) or its options with the global ones\n"
           "    case \"$2|$1\" in\n";
    for (const auto& n : t.nodes) {
        std::vector<std::string> cmds;
        for (const CLI::App* sub : visible_subcommands(*n.app)) cmds.push_back(sub->get_name());
        if (!cmds.empty())
            out << "        \"commands|" << n.path << "\") echo " << sh_quote(join_words(cmds)) << " ;;\n";
        std::vector<std::string> opts = all_option_words(*n.app);
        if (n.app != t.root)
            for (const auto& g : all_option_words(*t.root))
                if (std::find(opts.begin(), opts.end(), g) == opts.end() && g != "--version")
                    opts.push_back(g);
        out << "        \"options|" << n.path << "\") echo " << sh_quote(join_words(opts)) << " ;;\n";
    }
    out << "    esac\n}\n\n";
    out << R"SH(_gpuadvise() {
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s -n : || return
    else
        COMPREPLY=()
        cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
    fi
    # The command words typed so far; options and their values skipped, arguments counted.
    local cmdpath="" npos=0 i w
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if [[ $w == -* ]]; then
            if [[ $w != *=* ]] && _gpuadvise_takes_value "$cmdpath" "$w"; then ((i++)); fi
            continue
        fi
        if _gpuadvise_is_command "$cmdpath" "$w"; then
            cmdpath=${cmdpath:+$cmdpath }$w npos=0
        else
            ((npos++))
        fi
    done
    if [[ $split == true ]] || { ((cword > 1)) && [[ $prev == -* ]] && _gpuadvise_takes_value "$cmdpath" "$prev"; }; then
        _gpuadvise_value "$cmdpath" "$prev"
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gpuadvise_words "$cmdpath" options)" -- "$cur"))
        return
    fi
    _gpuadvise_positional "$cmdpath" "$npos"
    COMPREPLY+=($(compgen -W "$(_gpuadvise_words "$cmdpath" commands)" -- "$cur"))
    if declare -F __ltrim_colon_completions >/dev/null; then __ltrim_colon_completions "$cur"; fi
}
complete -F _gpuadvise gpuadvise
)SH";
    return out.str();
}

// "--model:Model preset ..." for _describe (colons in the name escaped).
std::string zsh_describe_entry(const std::string& word, const std::string& description) {
    std::string entry;
    for (char c : word) entry += c == ':' ? std::string("\\:") : std::string(1, c);
    return sh_quote(entry + ":" + description);  // only the first unescaped ':' separates
}

std::string zsh_script(const CompletionTree& t) {
    std::ostringstream out;
    out << "#compdef gpuadvise\n"
           "# zsh completion for gpuadvise. Generated by 'gpuadvise completion zsh' from its command table;\n"
           "# do not edit. GPUs, models and providers come from the catalog ('gpuadvise __complete "
           "KIND').\n\n";
    out << "_gpuadvise_values() {  # KIND: gpus, models or providers\n"
           "    local -a values\n"
           "    values=(${(f)\"$(_call_program values gpuadvise __complete $1 2>/dev/null)\"})\n"
           "    compadd -a values\n}\n\n";
    write_sh_tables(out, t);
    out << "_gpuadvise_value() {  # PATH OPTION\n    case \"$1|$2\" in\n";
    for (const auto& r : value_rules(t)) out << "        " << r.label << ") " << zsh_action(r) << " ;;\n";
    out << "    esac\n}\n\n";
    out << "_gpuadvise_positional() {  # PATH INDEX\n    case \"$1|$2\" in\n";
    for (const auto& r : positional_rules(t))
        out << "        " << r.label << ") " << zsh_action(r) << " ;;\n";
    out << "    esac\n}\n\n";
    out << "_gpuadvise_describe() {  # PATH KIND: _describe its commands or options (with the global ones)\n"
           "    local -a entries\n    case \"$2|$1\" in\n";
    for (const auto& n : t.nodes) {
        std::vector<std::string> cmds;
        for (const CLI::App* sub : visible_subcommands(*n.app))
            cmds.push_back(zsh_describe_entry(sub->get_name(), sub->get_description()));
        if (!cmds.empty())
            out << "        \"commands|" << n.path << "\") entries=(" << join_words(cmds) << ") ;;\n";
        std::vector<std::string> opts;
        std::vector<const CLI::App*> sources{n.app};
        if (n.app != t.root) sources.push_back(t.root);
        std::vector<std::string> seen;
        for (const CLI::App* a : sources)
            for (const CLI::Option* o : named_options(*a))
                for (const auto& f : option_flags(*o)) {
                    if (std::find(seen.begin(), seen.end(), f) != seen.end() ||
                        (a != n.app && f == "--version"))
                        continue;
                    seen.push_back(f);
                    opts.push_back(zsh_describe_entry(f, o->get_description()));
                }
        out << "        \"options|" << n.path << "\") entries=(" << join_words(opts) << ") ;;\n";
    }
    out << "    esac\n    (( ${#entries} )) && _describe -t \"$2\" \"$2\" entries\n}\n\n";
    out << R"(_gpuadvise() {
    local cmdpath="" npos=0 i w cur=${words[CURRENT]} prev=${words[CURRENT-1]}
    for ((i = 2; i < CURRENT; i++)); do
        w=${words[i]}
        if [[ $w == -* ]]; then
            if [[ $w != *=* ]] && _gpuadvise_takes_value "$cmdpath" "$w"; then ((i++)); fi
            continue
        fi
        if _gpuadvise_is_command "$cmdpath" "$w"; then
            cmdpath=${cmdpath:+$cmdpath }$w
            npos=0
        else
            ((npos++))
        fi
    done
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        compset -P '*='
        _gpuadvise_value "$cmdpath" "$prev"
        return
    fi
    if ((CURRENT > 2)) && [[ $prev == -* ]] && _gpuadvise_takes_value "$cmdpath" "$prev"; then
        _gpuadvise_value "$cmdpath" "$prev"
        return
    fi
    if [[ $cur == -* ]]; then
        _gpuadvise_describe "$cmdpath" options
        return
    fi
    _gpuadvise_describe "$cmdpath" commands
    _gpuadvise_positional "$cmdpath" "$npos"
}

_gpuadvise "$@"
)";
    return out.str();
}

// 'text' for fish (backslash and quote escaped).
std::string fish_quote(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\\' || c == '\'') out += '\\';
        out += c;
    }
    return out + "'";
}

std::string fish_args(ValueKind k, const std::vector<std::string>& choices) {
    switch (k) {
        case ValueKind::choices: return " -x -a " + fish_quote(join_words(choices));
        case ValueKind::files: return " -r -F";
        case ValueKind::directories: return " -r -a '(__fish_complete_directories)'";
        case ValueKind::none: return " -x";
        default: return " -x -a '(__gpuadvise_values " + kind_word(k) + ")'";
    }
}

std::string fish_script(const CompletionTree& t) {
    std::ostringstream out;
    out << "# fish completion for gpuadvise. Generated by 'gpuadvise completion fish' from its command "
           "table;\n"
           "# do not edit. GPUs, models and providers come from the catalog ('gpuadvise __complete "
           "KIND').\n\n";
    out << "function __gpuadvise_values --argument-names kind\n"
           "    command gpuadvise __complete $kind 2>/dev/null\nend\n\n";
    out << "function __gpuadvise_is_command --argument-names cmdpath word\n    switch \"$cmdpath|$word\"\n";
    for (const auto& n : t.nodes)
        for (const CLI::App* sub : visible_subcommands(*n.app))
            out << "        case " << fish_quote(n.path + "|" + sub->get_name())
                << "\n            return 0\n";
    out << "    end\n    return 1\nend\n\n";
    out << "function __gpuadvise_takes_value --argument-names cmdpath word\n    switch \"$cmdpath|$word\"\n";
    for (const auto& n : t.nodes)
        for (const CLI::Option* o : named_options(*n.app))
            if (takes_value(*o))
                for (const auto& f : option_flags(*o))
                    out << "        case " << fish_quote((n.app == t.root ? "*" : n.path) + "|" + f)
                        << "\n            return 0\n";
    out << "    end\n    return 1\nend\n\n";
    out << R"SH(# The command words typed so far ("" at the top, "catalog import" below).
function __gpuadvise_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmdpath ""
    set -l skip 0
    for w in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            if not string match -q -- '*=*' $w; and __gpuadvise_takes_value "$cmdpath" $w
                set skip 1
            end
            continue
        end
        if __gpuadvise_is_command "$cmdpath" $w
            set cmdpath (string trim -- "$cmdpath $w")
        end
    end
    echo $cmdpath
end

function __gpuadvise_at --argument-names want
    test (__gpuadvise_path) = "$want"
end

complete -c gpuadvise -f
)SH";
    for (const auto& n : t.nodes) {
        const std::string cond =
            n.app == t.root ? "" : " -n " + fish_quote("__gpuadvise_at " + fish_quote(n.path));
        const std::string here = " -n " + fish_quote("__gpuadvise_at " + fish_quote(n.path));
        for (const CLI::App* sub : visible_subcommands(*n.app))
            out << "complete -c gpuadvise" << here << " -a " << fish_quote(sub->get_name()) << " -d "
                << fish_quote(sub->get_description()) << "\n";
        for (const CLI::Option* o : named_options(*n.app)) {
            std::string line = "complete -c gpuadvise" + cond;
            for (const auto& s : o->get_snames()) line += " -s " + s;
            for (const auto& l : o->get_lnames()) line += " -l " + l;
            if (takes_value(*o)) line += fish_args(value_kind(*o), option_choices(*o));
            out << line << " -d " << fish_quote(o->get_description()) << "\n";
        }
        for (const CLI::Option* p : positionals(*n.app)) {
            const ValueKind k = value_kind(*p);
            if (k == ValueKind::none) continue;
            std::string args = fish_args(k, option_choices(*p));
            if (k == ValueKind::files) args = " -F";
            out << "complete -c gpuadvise" << here << args << " -d " << fish_quote(p->get_description())
                << "\n";
        }
    }
    return out.str();
}

}  // namespace

std::string completion_script(const CLI::App& root, std::string_view shell) {
    const CompletionTree t = completion_tree(root);
    if (shell == "bash") return bash_script(t);
    if (shell == "zsh") return zsh_script(t);
    if (shell == "fish") return fish_script(t);
    throw UsageError("completion: no script for the shell '" + std::string(shell) + "'",
                     "choose bash, zsh or fish");
}

}  // namespace gpuadvise::cli
