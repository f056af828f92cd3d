// gpuadvise catalog validate|info|import: check a catalog, describe what it holds, convert
// SkyPilot vms.csv tables into a catalog directory.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_loader.hpp"
#include "io/offer_tables.hpp"
#include "io/terminal.hpp"
#include "io/update_cache.hpp"

namespace gpuadvise::cli {

int run_catalog_import(Context& ctx, const std::string& format, const std::vector<std::string>& paths,
                       const std::string& output, bool force,
                       const std::string& as_of);  // cmd_catalog_import.cpp
CLI::App* setup_catalog_update(CLI::App& catalog,
                               std::function<int(Context&)>& runner);  // cmd_catalog_update.cpp

namespace {

struct CatalogOptions {
    std::vector<std::string> files;  // validate FILE…
    std::string import_format;
    std::vector<std::string> import_paths;
    std::string output;
    bool force = false;
    std::string as_of;
};

nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
    nlohmann::ordered_json j;
    j["severity"] = d.severity == Severity::error ? "error" : "warning";
    j["file"] = d.where.file;
    j["line"] = d.where.line;
    j["column"] = d.where.column;
    j["message"] = d.message;
    return j;
}

// Rows of the SkyPilot tables per kind of problem, over all tables.
std::map<io::SkipKind, long> count_by_kind(const Catalog& catalog) {
    std::map<io::SkipKind, long> counts;
    for (const auto& s : catalog.skipped)
        for (const auto& [kind, n] : s.rows_by_kind) counts[kind] += n;
    return counts;
}

io::TextTable skipped_table(const Catalog& catalog) {
    io::TextTable t;
    t.title = "SkyPilot table rows not used as they are (a row can have several reasons):";
    t.columns = {
        {"FILE", io::Align::left, 0, true}, {"REASON", io::Align::left, 0, true}, {"ROWS", io::Align::right}};
    for (const auto& s : catalog.skipped)
        for (const auto& [reason, n] : s.rows_by_reason)
            t.rows.push_back({s.file, reason, std::to_string(n)});
    return t;
}

nlohmann::ordered_json skipped_json(const Catalog& catalog) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& s : catalog.skipped) {
        nlohmann::ordered_json j;
        j["file"] = s.file;
        j["rows_by_reason"] = nlohmann::ordered_json::object();
        for (const auto& [reason, n] : s.rows_by_reason) j["rows_by_reason"][reason] = n;
        arr.push_back(j);
    }
    return arr;
}

// catalog validate's report of a loaded catalog: to_json and to_document (only the one printed is built).
long kind_count(const std::map<io::SkipKind, long>& kinds, io::SkipKind k) {
    return kinds.count(k) ? kinds.at(k) : 0L;
}

nlohmann::ordered_json validate_json(const Catalog& catalog) {
    const auto kinds = count_by_kind(catalog);
    auto kind = [&](io::SkipKind k) { return kind_count(kinds, k); };
    auto json = json_document();
    json["valid"] = true;
    json["files"] = catalog.files;
    json["offers"] = catalog.offers.size();
    json["errors"] = nlohmann::ordered_json::array();
    json["warnings"] = nlohmann::ordered_json::array();
    for (const auto& d : catalog.warnings.all()) json["warnings"].push_back(diagnostic_json(d));
    nlohmann::ordered_json summary;
    summary["warnings"] = catalog.warnings.warning_count();
    summary["spot_not_below_on_demand_rows"] = kind(io::SkipKind::spot_not_below_on_demand);
    summary["empty_price_rows"] = kind(io::SkipKind::empty_price);
    summary["zero_price_rows"] = kind(io::SkipKind::zero_price);
    summary["sentinel_price_rows"] = kind(io::SkipKind::sentinel_price);
    summary["skipped_accelerator_rows"] = kind(io::SkipKind::accelerator);
    summary["merged_zone_duplicate_rows"] = kind(io::SkipKind::merged);
    json["summary"] = summary;
    json["tables"] = skipped_json(catalog);
    return json;
}

// catalog validate --json of a catalog that does not load: the same keys, "valid": false, every located
// problem under "errors" or "warnings", nothing counted (nothing was loaded).
nlohmann::ordered_json failed_validate_json(const DataError& e, const io::CatalogOptions& options) {
    auto json = json_document();
    json["valid"] = false;
    json["files"] = options.files;
    json["offers"] = 0;
    json["errors"] = nlohmann::ordered_json::array();
    json["warnings"] = nlohmann::ordered_json::array();
    for (const auto& d : e.details())
        json[d.severity == Severity::error ? "errors" : "warnings"].push_back(diagnostic_json(d));
    json["summary"] = nullptr;
    json["tables"] = nlohmann::ordered_json::array();
    json["error"] = e.what();
    json["hint"] = e.hint();
    return json;
}

io::TextDocument validate_document(const Catalog& catalog) {
    const auto kinds = count_by_kind(catalog);
    auto kind = [&](io::SkipKind k) { return kind_count(kinds, k); };
    io::TextDocument doc;
    for (const auto& d : catalog.warnings.all()) doc.lead.push_back(format_diagnostic(d));
    if (!catalog.skipped.empty()) doc.tables.push_back(skipped_table(catalog));
    doc.notes.push_back("Catalog valid: " + std::to_string(catalog.files.size()) + " files, " +
                        std::to_string(catalog.offers.size()) + " offers, 0 errors, " +
                        std::to_string(catalog.warnings.warning_count()) + " warnings.");
    if (!catalog.skipped.empty())
        doc.notes.push_back("SkyPilot rows: " + std::to_string(kind(io::SkipKind::spot_not_below_on_demand)) +
                            " spot not below on-demand (spot dropped), " +
                            std::to_string(kind(io::SkipKind::empty_price)) + " empty prices, " +
                            std::to_string(kind(io::SkipKind::zero_price)) + " zero prices, " +
                            std::to_string(kind(io::SkipKind::sentinel_price)) + " sentinel prices, " +
                            std::to_string(kind(io::SkipKind::accelerator)) + " skipped accelerators, " +
                            std::to_string(kind(io::SkipKind::merged)) + " zone duplicates merged.");
    return doc;
}

int run_validate(Context& ctx, const CatalogOptions& opt) {
    // The same files every command reads, then the ones named here. Errors: DataError with every
    // located problem -> exit 1.
    const io::CatalogOptions options = ctx.catalog_options(opt.files);
    Catalog catalog;
    try {
        catalog = io::load_catalog(options);
    } catch (const DataError& e) {
        // --json: the errors on stdout too, for CI (docs/json.md); stderr and the exit stay as for
        // every command.
        if (ctx.format() == Format::json)
            ctx.out << io::render_json(failed_validate_json(e, options)) << "\n";
        throw;
    }
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"warnings", "/warnings", "", {}},
        {"tables", "/tables", "", {}},
        {"summary", "/summary", "", {}},
        {"files", "/files", "", {}},
    };
    ctx.emit([&] { return validate_json(catalog); }, [&] { return validate_document(catalog); }, sections);
    return 0;
}

// catalog info's rows, computed once; info_json and info_document render them (only the one printed is built).
struct ProviderInfo {
    const Provider* provider;
    long offers = 0;
    std::map<std::string, long> by_family;
    std::optional<long> age;
};
struct RateInfo {
    const ExchangeRate* rate;
    std::optional<long> age;
    bool stale = false;
};
struct CatalogInfo {
    const Catalog& catalog;
    double max_age = 0;
    std::vector<std::string> cached, local;  // providers from the update cache / SkyPilot's local copy
    std::vector<ProviderInfo> providers;
    std::vector<RateInfo> rates;
};

nlohmann::ordered_json info_json(const CatalogInfo& info) {
    const Catalog& catalog = info.catalog;
    auto json = json_document();
    json["sources"] = catalog.files;
    json["max_price_age_days"] = info.max_age;
    json["providers"] = nlohmann::ordered_json::array();
    json["price_cache"] = {
        {"dir", io::cache_dir()}, {"providers", info.cached}, {"sky_local_copy", info.local}};
    for (const auto& x : info.providers) {
        const Provider& p = *x.provider;
        nlohmann::ordered_json j;
        j["id"] = p.id;
        j["name"] = p.name;
        j["kind"] = kind_name(p);
        j["currency"] = p.currency;
        j["as_of"] = p.as_of;
        j["age_days"] = x.age ? nlohmann::ordered_json(*x.age) : nlohmann::ordered_json(nullptr);
        j["stale"] = x.age && static_cast<double>(*x.age) > info.max_age;
        j["source"] = p.source;
        j["offers"] = x.offers;
        j["offers_by_gpu_family"] = x.by_family;
        json["providers"].push_back(j);
    }
    json["skipped"] = skipped_json(catalog);
    json["variant_assumed_rows"] = io::variant_assumed_rows(catalog);
    json["rates"] = nlohmann::ordered_json::array();
    for (const auto& x : info.rates) {
        const ExchangeRate& r = *x.rate;
        json["rates"].push_back(
            {{"from", r.currency},
             {"to", "USD"},
             {"rate", r.usd_per_unit},
             {"as_of", r.as_of},
             {"age_days", x.age ? nlohmann::ordered_json(*x.age) : nlohmann::ordered_json(nullptr)},
             {"stale", x.stale},
             {"source", r.source}});
    }
    return json;
}

io::TextDocument info_document(const CatalogInfo& info) {
    const Catalog& catalog = info.catalog;
    const double max_age = info.max_age;
    io::TextDocument doc;
    doc.lead.push_back("Sources: " + join(catalog.files, ", "));
    if (!info.cached.empty())
        doc.lead.push_back("From the catalog update cache (" + io::cache_dir() +
                           "): " + join(info.cached, ", "));
    if (!info.local.empty())
        doc.lead.push_back("From SkyPilot's local copy (~/.sky/catalogs): " + join(info.local, ", "));
    io::TextTable t;
    t.title = "Providers:";
    t.columns = {{"PROVIDER"},
                 {"KIND"},
                 {"CURRENCY", io::Align::left, 1},
                 {"AS OF"},
                 {"AGE DAYS", io::Align::right},
                 {"OFFERS", io::Align::right},
                 {"OFFERS PER GPU FAMILY", io::Align::left, 0, true}};
    for (const auto& x : info.providers) {
        const Provider& p = *x.provider;
        const auto& age = x.age;
        std::vector<std::string> families;
        for (const auto& [f, n] : x.by_family) families.push_back(f + " " + std::to_string(n));
        t.rows.push_back({p.id, kind_name(p), p.currency, p.as_of.empty() ? "unknown" : p.as_of,
                          age ? std::to_string(*age) + (static_cast<double>(*age) > max_age ? " (stale)" : "")
                              : (p.as_of.empty() && x.offers > 0 ? "- (stale)" : "-"),
                          std::to_string(x.offers), join(families, ", ")});
    }
    io::TextTable rates;
    rates.title = "Exchange rates (to USD):";
    rates.columns = {{"CURRENCY"},
                     {"USD PER UNIT", io::Align::right},
                     {"AS OF"},
                     {"AGE DAYS", io::Align::right},
                     {"SOURCE", io::Align::left, 0, true}};
    for (const auto& x : info.rates) {
        const ExchangeRate& r = *x.rate;
        rates.rows.push_back({r.currency, io::fmt_number(r.usd_per_unit, 4), r.as_of,
                              x.age ? std::to_string(*x.age) + (x.stale ? " (stale)" : "") : "-",
                              r.source});
    }
    doc.tables.push_back(t);
    if (!catalog.rates.empty()) doc.tables.push_back(rates);
    if (!catalog.skipped.empty()) doc.tables.push_back(skipped_table(catalog));
    doc.notes.push_back(std::to_string(catalog.gpus.size()) + " GPUs, " +
                        std::to_string(catalog.providers.size()) + " providers, " +
                        std::to_string(catalog.offers.size()) + " offers. Prices older than " +
                        io::fmt_number(max_age, 0) +
                        " days (policy max_price_age_days) are stale. Sources per provider: --format json.");
    if (const long assumed = io::variant_assumed_rows(catalog); assumed > 0)
        doc.notes.push_back(std::to_string(assumed) +
                            " table rows name no GPU variant (a bare A100/H100): kept as the "
                            "family's most conservative variant, marked \"variant assumed\" in their notes; "
                            "--strict-variants drops them.");
    return doc;
}

int run_info(Context& ctx) {
    const Catalog& catalog = ctx.catalog();
    const auto today = parse_iso_date(io::today_iso());
    CatalogInfo info{catalog, catalog.policy.get("max_price_age_days"), {}, {}, {}, {}};
    // which tables came from the `catalog update` cache or SkyPilot's local copy (the rest: built-in, your files)
    for (const auto& p : catalog.providers) {
        if (p.origin == PriceOrigin::update_cache) info.cached.push_back(p.id);
        if (p.origin == PriceOrigin::sky_local_copy) info.local.push_back(p.id);
    }
    for (const auto& p : catalog.providers) {
        ProviderInfo x{&p, 0, {}, std::nullopt};
        for (const auto& o : catalog.offers)
            if (o.provider == p.id) {
                ++x.offers;
                const Gpu* g = catalog.find_gpu(o.gpu);
                ++x.by_family[g ? g->family : o.gpu];
            }
        if (auto d = parse_iso_date(p.as_of); d && today) x.age = *today - *d;
        info.providers.push_back(std::move(x));
    }
    for (const auto& r : catalog.rates) {
        RateInfo x{&r, std::nullopt, false};
        if (auto d = parse_iso_date(r.as_of); d && today) x.age = *today - *d;
        x.stale = !x.age || static_cast<double>(*x.age) > info.max_age;
        info.rates.push_back(x);
    }
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"providers", "/providers", "", {}}, {"rates", "/rates", "", {}},
        {"skipped", "/skipped", "", {}},     {"price_cache", "/price_cache", "", {}},
        {"sources", "/sources", "", {}},
    };
    ctx.emit([&] { return info_json(info); }, [&] { return info_document(info); }, sections);
    return 0;
}

}  // namespace

Runner setup_catalog(CommandApp& sub) {
    auto opt = std::make_shared<CatalogOptions>();
    sub.require_subcommand(1);
    CLI::App* validate = sub.add_subcommand(
        "validate", "Check a catalog: all errors and lint warnings with file:line; exit 1 on errors");
    validate->fallthrough();
    validate
        ->add_option("files", opt->files, "Catalog files (YAML or SkyPilot CSV) on top of the built-in one")
        ->type_name("FILE");
    CLI::App* info = sub.add_subcommand(
        "info", "Sources, as-of dates, offers per provider and GPU family, what was skipped");
    info->fallthrough();
    CLI::App* import =
        sub.add_subcommand("import", "Convert SkyPilot vms.csv tables into a catalog directory (atomic)");
    import->fallthrough();
    import->add_option("format", opt->import_format, "Input format")
        ->required()
        ->check(one_of({"skypilot"}))
        ->type_name("skypilot");
    import->add_option("paths", opt->import_paths, "SkyPilot vms.csv files or directories of them")
        ->required()
        ->type_name("DIR|FILE");
    import->add_option("--output", opt->output, "Directory to write (catalog.yaml + skypilot/*.csv)")
        ->required()
        ->type_name("DIR");
    import->add_flag("--force", opt->force, "Replace --output if it exists");
    import->add_option("--as-of", opt->as_of, "Date of the prices (default: unknown, treated as stale)")
        ->type_name("YYYY-MM-DD")
        ->check(iso_date_value());
    auto update_runner = std::make_shared<std::function<int(Context&)>>();
    CLI::App* update = setup_catalog_update(sub, *update_runner);
    // Each subcommand its own examples (a subcommand starts with its parent's footer: the top-level one).
    set_footer(*validate,
               {{FooterBlock::Kind::examples,
                 {"gpuadvise catalog validate lab.yaml", "gpuadvise catalog validate lab.yaml --json"}},
                {FooterBlock::Kind::paragraph,
                 {"Exit code 1 when the catalog has errors: each as FILE:LINE:COL on stderr, and with "
                  "--json also on stdout (docs/json.md)."}}});
    set_footer(*info, {{FooterBlock::Kind::examples,
                        {"gpuadvise catalog info", "gpuadvise --catalog lab.yaml catalog info --json"}}});
    set_footer(*import,
               {{FooterBlock::Kind::examples,
                 {"gpuadvise catalog import skypilot ~/skypilot-catalog/catalogs/v9/aws/vms.csv --output "
                  "aws-catalog --as-of 2026-11-01"}},
                {FooterBlock::Kind::paragraph,
                 {"Without --as-of the prices are as-of unknown (treated as stale), as the same table given "
                  "with --catalog."}}});
    set_footer(sub, {{FooterBlock::Kind::examples,
                      {"gpuadvise catalog validate lab.yaml", "gpuadvise catalog info --json",
                       "gpuadvise catalog import skypilot ~/skypilot-catalog/catalogs/v9/aws/vms.csv "
                       "--output aws-catalog"}},
                     {FooterBlock::Kind::paragraph, {"validate exits 1 when the catalog has errors."}}});
    return [opt, validate, info, update, update_runner](Context& ctx) {
        if (update->parsed()) return (*update_runner)(ctx);
        if (validate->parsed()) return run_validate(ctx, *opt);
        if (info->parsed()) return run_info(ctx);
        return run_catalog_import(ctx, opt->import_format, opt->import_paths, opt->output, opt->force,
                                  opt->as_of);
    };
}

}  // namespace gpuadvise::cli
