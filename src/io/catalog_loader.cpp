#include "io/catalog_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "gpuadvise/catalog_lint.hpp"
#include "gpuadvise/errors.hpp"
#include "gpuadvise/gpu_query.hpp"
#include "gpuadvise/text.hpp"
#include "io/builtin_catalog.hpp"
#include "io/catalog_sections.hpp"
#include "io/embedded_data.hpp"
#include "io/huge_pages.hpp"
#include "io/offer_tables.hpp"

namespace gpuadvise::io {
namespace {

constexpr int kMaxNesting = 64;

// yaml-cpp recurses once per nesting level; refuse documents deep enough to exhaust the stack.
// Counts flow brackets and block indentation; both over-approximate, which is fine for a guard.
bool nesting_too_deep(std::string_view text, SourceLocation& where) {
    int depth = 0, line = 1, col = 0;
    bool at_line_start = true;
    int indent = 0;
    char quote = 0, last = 0;  // last: the previous non-blank character of the line, 0 at its start
    bool escaped = false;
    for (char c : text) {
        ++col;
        if (c == '\n') {
            ++line;
            col = 0;
            at_line_start = true;
            indent = 0;
            last = 0;
            continue;
        }
        const char prev = last;
        if (c != ' ' && c != '\t' && !quote) last = c;
        if (at_line_start) {
            if (c == ' ' || c == '-' || c == '?') {
                ++indent;
                if (indent / 2 > kMaxNesting) {
                    where.line = line;
                    where.column = col;
                    return true;
                }
                continue;
            }
            at_line_start = false;
            if (indent == 0) quote = 0;  // an unindented line cannot continue a quoted scalar
        }
        if (quote) {
            if (quote == '"' && c == '\\') escaped = !escaped;
            else if (c == quote && !escaped) quote = 0;
            else escaped = false;
            continue;
        }
        // A quote opens a quoted scalar only where a scalar starts (YAML); inside a plain scalar
        // ("it's") it is text, and treating it as a quote would hide the brackets that follow.
        if ((c == '"' || c == '\'') && (prev == 0 || std::string_view("[{,:-?").find(prev) != std::string_view::npos)) {
            quote = c;
            escaped = false;
        } else if (c == '#') continue;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxNesting) {
                where.line = line;
                where.column = col;
                return true;
            }
        } else if (c == ']' || c == '}')
            depth = std::max(0, depth - 1);
    }
    return false;
}

template <typename T, typename Key>
void replace_or_append(std::vector<T>& into, T item, Key key) {
    auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return key(x) == key(item); });
    if (it != into.end()) *it = std::move(item);
    else into.push_back(std::move(item));
}

// Later layers override: same GPU id, provider id (with all its offers), currency, model id,
// instance network (provider + instance_type).
void merge_into(Catalog& base, Catalog layer) {
    for (auto& g : layer.gpus) replace_or_append(base.gpus, std::move(g), [](const Gpu& x) { return x.id; });
    for (auto& p : layer.providers) {
        std::string id = p.id;
        base.offers.erase(std::remove_if(base.offers.begin(), base.offers.end(),
                                         [&](const Offer& o) { return o.provider == id; }),
                          base.offers.end());
        replace_or_append(base.providers, std::move(p), [](const Provider& x) { return x.id; });
    }
    for (auto& o : layer.offers) base.offers.push_back(std::move(o));
    for (auto& r : layer.rates)
        replace_or_append(base.rates, std::move(r), [](const ExchangeRate& x) { return to_lower(x.currency); });
    for (const auto& [k, v] : layer.policy.overrides()) base.policy.set(k, v);
    for (auto& m : layer.models) replace_or_append(base.models, std::move(m), [](const ModelPreset& x) { return x.id; });
    for (auto& c : layer.calibration) base.calibration.push_back(std::move(c));
    if (!layer.compat.empty()) base.compat = std::move(layer.compat);
    for (auto& n : layer.networks)
        replace_or_append(base.networks, std::move(n),
                          [](const InstanceNetwork& x) { return to_lower(x.provider) + "\n" + to_lower(x.instance_type); });
    for (auto& f : layer.files) base.files.push_back(std::move(f));
}

// Offers may name a GPU by alias or family; store the canonical id or report the ambiguity.
void resolve_offer_gpus(Catalog& catalog, Diagnostics& diags) {
    const auto known = gpus_by_id(catalog);
    for (auto& o : catalog.offers) {
        if (known.count(o.gpu)) continue;
        try {
            GpuMatch m = resolve_gpu_name(catalog, o.gpu);
            if (m.gpus.size() == 1) {
                o.gpu = m.gpus.front()->id;
                continue;
            }
            std::vector<std::string> ids;
            for (const Gpu* g : m.gpus) ids.push_back(g->id);
            diags.error(o.where, "gpu: '" + o.gpu + "' is ambiguous (" + join(ids, ", ") + "); name the variant");
        } catch (const UsageError& e) {
            diags.error(o.where, "gpu: " + std::string(e.what()) + (e.hint().empty() ? "" : "; " + e.hint()));
        }
    }
}

std::string parent_dir(const std::string& path) {
    std::filesystem::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

void read_builtin_table(const TableRef& ref, Catalog& catalog, Diagnostics& diags) {
    auto data = find_embedded(ref.resolved_path);
    if (!data) {
        diags.error(ref.where, "tables: built-in table '" + ref.path + "' does not exist");
        return;
    }
    load_offer_table(ref, *data, catalog, diags);
}

// The rows a built-in table added when the snapshot was made, if reading it now would add the same:
// same GPU list and same as_of and source of its provider (the provider the reader would pick).
BuiltinTable* reusable_table(const TableRef& ref, std::vector<BuiltinTable>& prepared, const Catalog& catalog,
                             bool gpus_unchanged) {
    if (!gpus_unchanged) return nullptr;
    auto it = std::find_if(prepared.begin(), prepared.end(), [&](const BuiltinTable& t) { return t.ref == ref; });
    if (it == prepared.end()) return nullptr;
    const Provider* provider = nullptr;
    for (const auto& p : catalog.providers)
        if (p.id == ref.provider) provider = &p;
    if (!provider || provider->as_of != it->provider_as_of || provider->source != it->provider_source) return nullptr;
    return &*it;
}

// `already_read`: texts of tables given directly with --catalog, by path (read once to recognise them).
// `prepared`: the built-in tables as read from the snapshot; `gpus_unchanged`: the GPU list is still the
// built-in one. A prepared table whose inputs changed is read again from the embedded CSV.
void load_tables(const std::vector<TableRef>& tables, std::map<std::string, std::string>& already_read,
                 std::vector<BuiltinTable>& prepared, bool gpus_unchanged, Catalog& catalog, Diagnostics& diags) {
    for (const auto& ref : tables) {
        std::string bytes;
        if (auto it = already_read.find(ref.resolved_path); !ref.builtin && it != already_read.end()) {
            bytes = std::move(it->second);
            already_read.erase(it);
        } else if (ref.builtin) {
            if (BuiltinTable* t = reusable_table(ref, prepared, catalog, gpus_unchanged)) {
                std::move(t->offers.begin(), t->offers.end(), std::back_inserter(catalog.offers));
                std::move(t->skipped.begin(), t->skipped.end(), std::back_inserter(catalog.skipped));
                for (auto& d : t->diagnostics) diags.add(std::move(d));
            } else {
                read_builtin_table(ref, catalog, diags);
            }
            continue;
        } else {
            try {
                bytes = read_file(ref.resolved_path);
            } catch (const DataError& e) {
                diags.error(ref.where, std::string("tables: ") + e.what());
                continue;
            }
        }
        load_offer_table(ref, bytes, catalog, diags);
    }
}

// The four built-in YAML documents, merged in this order.
void parse_builtin_yaml(Catalog& catalog, std::vector<TableRef>& tables, Diagnostics& diags) {
    for (std::string_view name : {"providers.yaml", "market.yaml", "models.yaml", "compat.yaml"}) {
        auto text = find_embedded(name);
        if (!text) continue;
        Catalog layer;
        parse_catalog_yaml(*text, "<built-in>/" + std::string(name), true, "", layer, tables, diags);
        merge_into(catalog, std::move(layer));
    }
}

}  // namespace

void parse_catalog_yaml(std::string_view text, const std::string& origin, bool builtin, const std::string& base_dir,
                        Catalog& out, std::vector<TableRef>& tables, Diagnostics& diags) {
    out.files.push_back(origin);
    if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF") {
        diags.error({origin, 0, 0}, "the file is UTF-16 encoded; save it as UTF-8 (catalogs are UTF-8 YAML or CSV)");
        return;
    }
    if (text.find('\0') != std::string_view::npos) {
        diags.error({origin, 0, 0}, "the file contains NUL bytes; expected a YAML text file");
        return;
    }
    if (SourceLocation where{origin, 0, 0}; nesting_too_deep(text, where)) {
        diags.error(where, "nesting deeper than " + std::to_string(kMaxNesting) + " levels; a catalog needs at most 4");
        return;
    }
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        diags.error({origin, e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + e.msg + " (check the indentation and the ':' after each key)");
        return;
    }
    YamlContext ctx(origin, diags);
    if (root.IsNull() || !root.IsDefined()) {
        diags.error({origin, 0, 0}, "the catalog is empty; expected keys such as 'gpus:' and 'providers:'");
        return;
    }
    if (!ctx.expect_map(root, "")) return;
    ctx.check_keys(root, "",
                   {"schema_version", "rates", "policy", "gpus", "providers", "models", "calibration", "compat",
                    "instance_networks"});
    if (auto v = ctx.integer(root, "", "schema_version", false, 0, 1000); v && *v != 1)
        ctx.error(root["schema_version"], "schema_version",
                  "unsupported schema_version " + std::to_string(*v) + "; this gpuadvise reads version 1");
    std::vector<TableRef> found;
    if (root["rates"]) read_rates_section(root["rates"], ctx, out);
    if (root["policy"]) read_policy_section(root["policy"], ctx, out);
    if (root["gpus"]) read_gpus_section(root["gpus"], ctx, out);
    if (root["providers"]) read_providers_section(root["providers"], ctx, out, found);
    if (root["models"]) read_models_section(root["models"], ctx, out);
    if (root["calibration"]) read_calibration_section(root["calibration"], ctx, out);
    if (root["compat"]) read_compat_section(root["compat"], ctx, out);
    if (root["instance_networks"]) read_instance_networks_section(root["instance_networks"], ctx, out);
    for (auto& t : found) {
        t.builtin = builtin;
        t.resolved_path = builtin ? t.path : (std::filesystem::path(base_dir) / t.path).string();
        tables.push_back(std::move(t));
    }
}

BuiltinCatalog read_builtin_catalog() {
    BuiltinCatalog builtin;
    Diagnostics diags;
    std::vector<TableRef> tables;
    parse_builtin_yaml(builtin.base, tables, diags);
    builtin.diagnostics = diags.all();
    Catalog& base = builtin.base;
    for (const auto& ref : tables) {
        BuiltinTable& t = builtin.tables.emplace_back();
        t.ref = ref;
        for (const auto& p : base.providers)
            if (p.id == ref.provider) {
                t.provider_as_of = p.as_of;
                t.provider_source = p.source;
            }
        const std::size_t offers = base.offers.size(), skipped = base.skipped.size();
        Diagnostics table_diags;
        read_builtin_table(ref, base, table_diags);
        t.offers.assign(std::make_move_iterator(base.offers.begin() + static_cast<long>(offers)),
                        std::make_move_iterator(base.offers.end()));
        base.offers.resize(offers);
        t.skipped.assign(std::make_move_iterator(base.skipped.begin() + static_cast<long>(skipped)),
                         std::make_move_iterator(base.skipped.end()));
        base.skipped.resize(skipped);
        t.diagnostics = table_diags.all();
    }
    return builtin;
}

Catalog load_catalog(const CatalogOptions& options, std::optional<BuiltinCatalog> builtin) {
    Catalog catalog;
    Diagnostics diags;
    std::vector<TableRef> tables;
    std::map<std::string, std::string> csv_texts;
    std::vector<BuiltinTable> prepared;
    std::vector<Gpu> builtin_gpus;
    if (options.builtin && builtin) {
        catalog = std::move(builtin->base);
        for (auto& d : builtin->diagnostics) diags.add(std::move(d));
        for (const auto& t : builtin->tables) tables.push_back(t.ref);
        prepared = std::move(builtin->tables);
        if (!options.files.empty()) builtin_gpus = catalog.gpus;  // a layer may change them
    } else if (options.builtin) {
        parse_builtin_yaml(catalog, tables, diags);
    }
    for (const auto& file : options.files) {
        // A file that cannot be read stops the load at once: "gpuadvise: error: PATH: cannot open the file: REASON".
        std::string text = read_file(file);
        if (looks_like_skypilot_csv(text)) {
            std::string stem = std::filesystem::path(file).stem().string();
            TableRef ref{options.provider_name.empty() ? stem : options.provider_name, "skypilot", file, file, false,
                         {file, 0, 0}};
            if (!catalog.find_provider(ref.provider)) {
                Provider p;
                p.id = ref.provider;
                p.name = ref.provider;
                p.currency = "USD";
                p.source = "SkyPilot catalog table " + file;
                p.where = {file, 0, 0};
                catalog.providers.push_back(p);
            }
            // The table replaces the provider's offers: those loaded so far and its tables not yet read
            // (the built-in aws table, say, when `--catalog vms.csv --provider-name aws`).
            catalog.offers.erase(std::remove_if(catalog.offers.begin(), catalog.offers.end(),
                                                [&](const Offer& o) { return o.provider == ref.provider; }),
                                 catalog.offers.end());
            std::erase_if(tables, [&](const TableRef& t) { return t.provider == ref.provider; });
            catalog.files.push_back(file);
            tables.push_back(ref);
            csv_texts[file] = std::move(text);
            continue;
        }
        Catalog layer;
        const std::size_t earlier_tables = tables.size();
        parse_catalog_yaml(text, file, false, parent_dir(file), layer, tables, diags);
        // A provider redefined here replaces the earlier definition, its tables included.
        for (const auto& p : layer.providers)
            for (std::size_t i = earlier_tables; i-- > 0;)
                if (tables[i].provider == p.id) tables.erase(tables.begin() + static_cast<long>(i));
        merge_into(catalog, std::move(layer));
    }
    // Everything is checked even after an error, so that one run reports every problem.
    load_tables(tables, csv_texts, prepared, options.files.empty() || catalog.gpus == builtin_gpus, catalog, diags);
    resolve_offer_gpus(catalog, diags);
    diags.append(lint_catalog(catalog, options.today));
    if (diags.has_errors()) {
        std::vector<Diagnostic> all;
        for (const auto& d : diags.all())
            if (d.severity == Severity::error) all.push_back(d);
        std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) {
            return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
        });
        const std::string message = "the catalog has " + std::to_string(all.size()) + " error" +
                                    (all.size() == 1 ? "" : "s") + "; nothing was loaded";
        throw DataError(message, std::move(all), "fix the lines above; 'gpuadvise catalog validate FILE' re-checks a file");
    }
    catalog.warnings = std::move(diags);
    return catalog;
}

}  // namespace gpuadvise::io
