#include "cli/context.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/html_report.hpp"
#include "io/terminal.hpp"

namespace gpuadvise::cli {

Context::~Context() {
    if (leave_to_exit_) (void)catalog_.release();  // freed by the exit, in one go
}

io::CatalogOptions Context::catalog_options(const std::vector<std::string>& extra) const {
    io::CatalogOptions options;
    options.builtin = !global.no_default_catalog;
    if (const char* env = std::getenv("GPUADVISE_CATALOG"); env && *env) {
        std::stringstream ss(env);
        for (std::string item; std::getline(ss, item, ':');)
            if (!item.empty()) options.files.push_back(item);
    }
    options.files.insert(options.files.end(), global.catalogs.begin(), global.catalogs.end());
    options.files.insert(options.files.end(), extra.begin(), extra.end());
    options.provider_name = global.provider_name;
    options.today = io::today_iso();
    options.strict_variants = global.strict_variants;
    options.as_of = global.as_of;
    return options;
}

const Catalog& Context::catalog() {
    if (!catalog_) {
        io::CatalogOptions options = catalog_options();
        options.filter = offer_filter;
        catalog_ = std::make_unique<Catalog>(io::load_catalog(options));
        if (global.catalog_filter)
            global.catalog_filter(*catalog_);  // config.yaml's providers (cli/config.cpp)
        summarize_data_warnings(*catalog_);
    }
    return *catalog_;
}

// Data warnings (a zero price, spot not below on-demand, a duplicate offer, a bad or future date)
// are listed by 'catalog validate'; every other command that reads the catalog says how many there
// are in one line. Old prices are left out: the commands that show prices name them already. So are
// the built-in data's own warnings (the user cannot act on them; 'catalog validate' still lists them).
void Context::summarize_data_warnings(const Catalog& catalog) {
    std::size_t count = 0;
    const Diagnostic* first = nullptr;
    for (const auto& d : catalog.warnings.all())
        if (d.severity == Severity::warning && d.kind != DiagnosticKind::stale_prices &&
            !io::is_builtin_file(d.where.file)) {
            if (!first) first = &d;
            ++count;
        }
    if (!first) return;
    warn("the catalog has " + std::to_string(count) + " data warning" + (count == 1 ? "" : "s") +
         " (first: " + format_diagnostic(*first) + "); 'gpuadvise catalog validate' lists them");
}

Format Context::format() const {
    if (global.json) return Format::json;
    if (global.format == "json") return Format::json;
    if (global.format == "csv") return Format::csv;
    if (global.format == "tsv") return Format::tsv;
    if (global.format == "markdown") return Format::markdown;
    if (global.format == "html") return Format::html;
    return Format::table;
}

bool Context::color() const {
    io::ColorMode mode = global.color == "always"  ? io::ColorMode::always
                         : global.color == "never" ? io::ColorMode::never
                                                   : io::ColorMode::automatic;
    return io::use_color(mode);
}

std::size_t Context::width() const { return global.wide ? 0 : io::terminal_width(1); }

std::string Context::currency() {
    const std::string code = to_lower(global.currency) == "usd" ? "USD" : global.currency;
    if (code == "USD") return code;
    const Catalog& c = catalog();
    if (const ExchangeRate* r = c.rate_for(code)) return r->currency;
    std::vector<std::string> known{"USD"};
    for (const auto& r : c.rates) known.push_back(r.currency);
    std::string hint = "known currencies: " + join(known, ", ");
    if (auto best = closest_match(code, known)) hint = "did you mean '" + *best + "'? " + hint;
    throw UsageError("--currency: no exchange rate for '" + global.currency + "'", hint);
}

// Diagnostics wrap like prose, with a hanging indent, to the width of the terminal on stderr.
void Context::warn(const std::string& message) {
    if (global.quiet) return;
    for (const auto& l : io::wrap_line("gpuadvise: warning: " + escape_control_chars(message),
                                       global.wide ? 0 : io::terminal_width(2)))
        err << l << "\n";
}

void Context::note(const std::string& message) {
    if (global.quiet) return;
    for (const auto& l : io::wrap_line("gpuadvise: note: " + escape_control_chars(message),
                                       global.wide ? 0 : io::terminal_width(2)))
        err << l << "\n";
}

void Context::emit(const nlohmann::ordered_json& json, const io::TextDocument& doc,
                   const std::vector<io::ExportSection>& sections) {
    emit([&] { return json; }, [&] { return doc; }, sections);
}

void Context::emit(const std::function<nlohmann::ordered_json()>& to_json,
                   const std::function<io::TextDocument()>& to_document,
                   const std::vector<io::ExportSection>& sections,
                   const std::function<std::string()>& to_html, const io::JsonItems* items) {
    const Format f = format();
    if (!global.section.empty() && f != Format::csv && f != Format::tsv)
        throw UsageError("--section " + global.section + " picks the table of --format csv or tsv",
                         "add --format csv");
    if (global.csv_raw && f != Format::csv && f != Format::tsv)
        throw UsageError("--csv-raw applies to --format csv or tsv", "add --format csv, or drop --csv-raw");
    switch (f) {
        // Text is validated as UTF-8 when read; `replace` keeps a file name or an environment value that
        // is not from dying in the serializer (U+FFFD instead of an exception).
        case Format::json:
            if (items)
                io::write_json(out, to_json(), *items);
            else
                out << io::render_json(to_json());
            out << "\n";
            break;
        case Format::csv:
        case Format::tsv: {
            const io::ExportSection whole{"document", "", "", {}};
            const io::ExportSection* chosen = sections.empty() ? &whole : &sections.front();
            if (!global.section.empty()) {
                std::vector<std::string> names;
                for (const auto& s : sections.empty() ? std::vector<io::ExportSection>{whole} : sections)
                    names.push_back(s.name);
                const auto it = std::find(names.begin(), names.end(), global.section);
                if (it == names.end()) {
                    std::string hint = "this command's sections: " + join(names, ", ");
                    if (auto best = closest_match(global.section, names))
                        hint = "did you mean '" + *best + "'? " + hint;
                    throw UsageError("--section: no section '" + global.section + "'", hint);
                }
                if (!sections.empty()) chosen = &sections[static_cast<std::size_t>(it - names.begin())];
            }
            const auto kind = f == Format::csv ? io::Delimited::csv : io::Delimited::tsv;
            if (items && chosen->items == "/" + items->key) {  // the long array: a row at a time
                io::write_delimited(out, *items, *chosen, kind, global.csv_raw);
                break;
            }
            const nlohmann::ordered_json json = to_json();
            if (!chosen->items.empty() && !json.contains(nlohmann::ordered_json::json_pointer(chosen->items)))
                throw UsageError("--section " + chosen->name + ": this output has none",
                                 "the JSON (--format json) shows what it has");
            out << io::render_delimited(json, *chosen, kind, global.csv_raw);
            break;
        }
        case Format::markdown: out << io::render_markdown(to_document()); break;
        case Format::html:
            out << (to_html ? to_html() : io::render_html("gpuadvise", {}, to_document()));
            break;  // io/html_report.cpp, docs/report.md
        case Format::table: out << io::render_table(to_document(), color(), width()); break;
    }
}

nlohmann::ordered_json json_document() {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["schema_version"] = kSchemaVersion;
    return j;
}

double round_money(double v) {
    if (v == 0 || !std::isfinite(v)) return v;
    double scale = std::pow(10.0, 6 - static_cast<int>(std::ceil(std::log10(std::fabs(v)))));
    return std::round(v * scale) / scale;
}

nlohmann::ordered_json json_number(const std::optional<double>& v) {
    if (!v) return nullptr;
    return round_money(*v);
}

}  // namespace gpuadvise::cli
