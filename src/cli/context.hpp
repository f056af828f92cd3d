// What every command gets: the global options, the output streams and the catalog (loaded on
// first use, so `--help` and `--version` never read it).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"
#include "io/catalog_loader.hpp"
#include "io/output.hpp"
#include "io/text_table.hpp"

namespace gpuadvise::cli {

enum class Format { table, json, csv, tsv, markdown, html };

// Where a configuration setting came from: the command line, or the config file at `where` ("file:line").
enum class SettingSource { command_line, config_file };
struct SettingOrigin {
    SettingSource source = SettingSource::command_line;
    std::string where;
};

struct GlobalOptions {
    std::vector<std::string> catalogs;  // --catalog, repeatable
    bool no_default_catalog = false;
    std::string provider_name;  // --provider-name for a SkyPilot CSV given with --catalog
    std::string format = "table";
    bool json = false;
    std::string color = "auto";
    std::string currency = "USD";
    bool quiet = false;
    std::map<std::string, SettingOrigin> setting_origins;  // where config settings came from (cli/config.cpp)
    std::function<void(Catalog&)> catalog_filter;  // the configuration's provider filters (cli/config.cpp)
    bool strict_variants = false;                  // --strict-variants
    std::string as_of;                             // --as-of for SkyPilot tables given with --catalog
    std::string section;   // --section: which table --format csv/tsv prints (the command's first by default)
    bool wide = false;     // --wide: tables and prose unwrapped, no column hidden
    bool csv_raw = false;  // --csv-raw: CSV/TSV text cells exactly, no ' before a formula-like one
};

class Context {
public:
    Context(std::ostream& out_stream, std::ostream& err_stream) : out(out_stream), err(err_stream) {}
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    GlobalOptions global;
    std::ostream& out;
    std::ostream& err;

    const Catalog& catalog();
    // Filters the command applies to offers anyway, set before the first catalog(): tables given
    // directly then keep only the offers that can match (io::OfferFilter, the push-down). Output is
    // the same as without it.
    std::optional<io::OfferFilter> offer_filter;
    // What every command loads (the one builder): the built-in data unless --no-default-catalog,
    // then GPUADVISE_CATALOG's files, then each --catalog, then `extra` (catalog validate FILE…).
    io::CatalogOptions catalog_options(const std::vector<std::string>& extra = {}) const;
    Format format() const;
    bool color() const;
    // The width tables and prose are laid out for (io::terminal_width), 0 with --wide.
    std::size_t width() const;
    // The output currency, checked against the catalog's rates (UsageError otherwise).
    std::string currency();

    // Diagnostics on stderr ("gpuadvise: warning: ..."), silenced by --quiet.
    void warn(const std::string& message);
    void note(const std::string& message);

    // Prints a result: JSON (with schema_version first) or the text document in the chosen format.
    void emit(const nlohmann::ordered_json& json, const io::TextDocument& doc,
              const std::vector<io::ExportSection>& sections = {});
    // The same, building only what the format prints: JSON, CSV and TSV call to_json (CSV and TSV
    // are the `sections` of that document, the first unless --section names another), table and
    // markdown call to_document. Without sections CSV/TSV print the document as one row. HTML is
    // to_html's page when given (the recommend report, from its typed result), else the document's
    // tables and notes as a page titled "gpuadvise". With `items`, to_json's document lacks its one
    // long array, made an item at a time as JSON, CSV or TSV is written (io::JsonItems).
    void emit(const std::function<nlohmann::ordered_json()>& to_json,
              const std::function<io::TextDocument()>& to_document,
              const std::vector<io::ExportSection>& sections,
              const std::function<std::string()>& to_html = {}, const io::JsonItems* items = nullptr);

    // For exit_after_run(): from now on, contexts leave their catalog to the process exit (and
    // run_with its parser: leaves_to_exit).
    static void leave_to_exit() { leave_to_exit_ = true; }
    static bool leaves_to_exit() { return leave_to_exit_; }

private:
    void summarize_data_warnings(const Catalog& catalog);
    static inline bool leave_to_exit_ = false;
    std::unique_ptr<Catalog> catalog_;
};

inline constexpr int kSchemaVersion = 1;

// A JSON object that starts with "schema_version": 1.
nlohmann::ordered_json json_document();
// null for nullopt; numbers rounded to 6 significant decimals so float noise never leaks.
nlohmann::ordered_json json_number(const std::optional<double>& v);
double round_money(double v);

}  // namespace gpuadvise::cli
