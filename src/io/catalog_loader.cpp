#include "io/catalog_loader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "gpuadvise/market/catalog_lint.hpp"
#include "io/builtin_catalog.hpp"
#include "io/catalog_sections.hpp"
#include "io/commitment_tables.hpp"
#include "io/embedded_data.hpp"
#include "io/huge_pages.hpp"
#include "io/offer_tables.hpp"
#include "io/skypilot_gpu_names.hpp"
#include "io/update_cache.hpp"
#include "io/yaml_context.hpp"

namespace gpuadvise::io {
namespace {

// A table with a header and no data line gives no offers; say so instead of silently listing none.
void warn_if_no_rows(const std::string& file, std::string_view text, Diagnostics& diags) {
    const std::size_t eol = text.find('\n');
    if (eol != std::string_view::npos && text.find_first_not_of(" \t\r\n", eol) != std::string_view::npos)
        return;
    diags.warning({file, 1, 1}, "the table has a header but no rows; no offers come from it");
}

template <typename T, typename Key>
void replace_or_append(std::vector<T>& into, T item, Key key) {
    auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return key(x) == key(item); });
    if (it != into.end())
        *it = std::move(item);
    else
        into.push_back(std::move(item));
}

// Later layers override: same GPU id, provider id (with all its offers), currency, model id,
// instance network (provider + instance_type).
void merge_into(Catalog& base, Catalog layer) {
    // GPU ids match ignoring case (docs/catalog.md): "A100-80GB-SXM" replaces the built-in a100-80gb-sxm.
    for (auto& g : layer.gpus)
        replace_or_append(base.gpus, std::move(g), [](const Gpu& x) { return to_lower(x.id); });
    for (auto& p : layer.providers) {
        std::string id = p.id;
        base.offers.erase(std::remove_if(base.offers.begin(), base.offers.end(),
                                         [&](const Offer& o) { return o.provider == id; }),
                          base.offers.end());
        replace_or_append(base.providers, std::move(p), [](const Provider& x) { return x.id; });
    }
    for (auto& o : layer.offers) base.offers.push_back(std::move(o));
    for (auto& r : layer.rates)
        replace_or_append(base.rates, std::move(r),
                          [](const ExchangeRate& x) { return to_lower(x.currency); });
    for (const auto& [k, v] : layer.policy.overrides()) base.policy.set(k, v);
    for (auto& m : layer.models)
        replace_or_append(base.models, std::move(m), [](const ModelPreset& x) { return x.id; });
    for (auto& c : layer.calibration) base.calibration.push_back(std::move(c));
    if (!layer.compat.empty()) base.compat = std::move(layer.compat);
    for (auto& n : layer.networks)
        replace_or_append(base.networks, std::move(n), [](const InstanceNetwork& x) {
            return to_lower(x.provider) + "\n" + to_lower(x.instance_type);
        });
    for (auto& f : layer.files) base.files.push_back(std::move(f));
    for (auto& g : layer.grid_carbon)
        replace_or_append(base.grid_carbon, std::move(g), [](const GridIntensity& x) {
            return to_lower(x.provider) + "\n" + to_lower(x.region);
        });
}

// An offer lists packages (cards, OAM modules); a GPU with several devices per package counts
// them as PyTorch sees them (MI250X: 4 modules = 8 devices). Done once per load, here (#13).
void count_devices(const Gpu& gpu, Offer& o) {
    if (gpu.devices_per_package <= 1) return;
    o.notes.push_back(
        std::to_string(o.gpu_count) + " x " + gpu.family + " package" + (o.gpu_count == 1 ? "" : "s") +
        " = " + std::to_string(o.gpu_count * gpu.devices_per_package) + " devices as PyTorch sees them (" +
        std::to_string(gpu.devices_per_package) + " per package)");
    o.gpu_count *= gpu.devices_per_package;
}

// Offers may name a GPU by alias or family; store the canonical id or report the ambiguity.
void resolve_offer_gpus(Catalog& catalog, Diagnostics& diags) {
    const auto known = gpus_by_id(catalog);
    const Gpu* last = nullptr;  // the previous offer's, by id: offers of one GPU model come in runs
    for (auto& o : catalog.offers) {
        if (last && o.gpu == last->id) {
            count_devices(*last, o);
            continue;
        }
        if (auto it = known.find(o.gpu); it != known.end()) {
            last = it->second;
            count_devices(*it->second, o);
            continue;
        }
        try {
            GpuMatch m = resolve_gpu_name(catalog, o.gpu);
            if (m.gpus.size() == 1) {
                o.gpu = m.gpus.front()->id;
                count_devices(*m.gpus.front(), o);
                continue;
            }
            std::vector<std::string> ids;
            for (const Gpu* g : m.gpus) ids.push_back(g->id);
            diags.error(o.where,
                        "gpu: '" + o.gpu + "' is ambiguous (" + join(ids, ", ") + "); name the variant");
        } catch (const UsageError& e) {
            diags.error(o.where, "gpu: " + std::string(e.what()) + (e.hint().empty() ? "" : "; " + e.hint()));
        }
    }
}

std::string parent_dir(const std::string& path) {
    std::filesystem::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// An offer table, or a commitment table (its rows are attached to offers once every table is read).
void load_any_table(const TableRef& ref, std::string_view bytes, Catalog& catalog, Diagnostics& diags) {
    if (is_commitment_table_format(ref.format))
        load_commitment_table(ref, bytes, catalog, diags);
    else
        load_offer_table(ref, bytes, catalog, diags);
}

void read_builtin_table(const TableRef& ref, Catalog& catalog, Diagnostics& diags) {
    auto data = find_embedded(ref.resolved_path);
    if (!data) {
        diags.error(ref.where, "tables: built-in table '" + ref.path + "' does not exist");
        return;
    }
    load_any_table(ref, *data, catalog, diags);
}

// The rows a built-in table added when the snapshot was made, if reading it now would add the same:
// same GPU list and same as_of and source of its provider (the provider the reader would pick).
// The table's provider (the one the reader would pick: the last of that id) still has the as_of and
// source the table was read with.
bool provider_stamp_holds(const BuiltinTable& t, const Catalog& catalog) {
    const Provider* provider = nullptr;
    for (const auto& p : catalog.providers)
        if (p.id == t.ref.provider) provider = &p;
    return provider && provider->as_of == t.provider_as_of && provider->source == t.provider_source;
}

// The built-in tables as the snapshot holds them: decoded already (read_builtin_catalog), or indexed by
// ref and each decoded only when a load reads it (a cache of every cloud leaves only the commitment
// tables to read: decoding all cost a sixth of such a `recommend`).
class PreparedTables {
public:
    PreparedTables() = default;
    explicit PreparedTables(std::vector<BuiltinTable> tables) {
        for (auto& t : tables) {
            parts_.push_back({t.ref, {}});
            tables_.emplace_back(std::move(t));
        }
    }
    explicit PreparedTables(std::vector<SnapshotTablePart> parts)
        : parts_(std::move(parts)), tables_(parts_.size()) {}

    BuiltinTable* find(const TableRef& ref) {
        for (std::size_t i = 0; i < parts_.size(); ++i)
            if (parts_[i].ref == ref) {
                if (!tables_[i]) tables_[i] = read_snapshot_table(parts_[i]);
                return &*tables_[i];
            }
        return nullptr;
    }

private:
    std::vector<SnapshotTablePart> parts_;
    std::vector<std::optional<BuiltinTable>> tables_;
};

BuiltinTable* reusable_table(const TableRef& ref, PreparedTables& prepared, const Catalog& catalog,
                             bool gpus_unchanged) {
    if (!gpus_unchanged) return nullptr;
    BuiltinTable* t = prepared.find(ref);
    // A commitment table's rows carry their own dates and sources (commitments_tables.cpp): its
    // provider's stamp does not change them (a cached offer table restamps the provider).
    if (!t || (!is_commitment_table_format(ref.format) && !provider_stamp_holds(*t, catalog))) return nullptr;
    return t;
}

// Tables given directly (--catalog, ~/.sky/catalogs, the cache): their texts, or streams for the large
// ones, by path (read once to recognise them), and the command's filter to apply while reading them.
struct DirectTables {
    std::map<std::string, std::string> texts;
    std::map<std::string, std::unique_ptr<LineChunks>> streams;
    const OfferFilter* filter = nullptr;
    StreamKeying keying = StreamKeying::balance;  // CatalogOptions::stream_keying
    std::vector<PrunedOffers> pruned;             // what the filter left out, per table (for lint_catalog)
    // The cache tables' compact stores, by the table's path: the table read back from its vms.store
    // (io/builtin_catalog.hpp), or whether to write one when the CSV is read.
    struct Store {
        std::optional<BuiltinTable> table;
        std::string path, cache;  // the vms.store; the cache directory (for its lock)
        TableStoreKey key;
        bool write = false;
        bool locked = false;  // the caller holds the cache lock (CatalogOptions::write_cache_stores)
    };
    std::map<std::string, Store> stores;
};

// A cache table read from its CSV whose store is to be written: the rows it added (from `first_offer`
// and `first_skipped` on) and its diagnostics, as the next load will take them from the store. Nothing
// is written for a table with errors, nor when the provider's stamp is not the one it was read with, nor
// while another process holds the cache lock; a failed write is a warning (the CSV stays the truth).
void write_store(const DirectTables::Store& st, const TableRef& ref, const Catalog& catalog,
                 std::size_t first_offer, std::size_t first_skipped, const Diagnostics& table_diags,
                 Diagnostics& diags) {
    if (table_diags.has_errors()) return;
    BuiltinTable t;
    t.ref = ref;
    for (const auto& p : catalog.providers)
        if (p.id == ref.provider) {  // the last of the id, as provider_stamp_holds finds it
            t.provider_as_of = p.as_of;
            t.provider_source = p.source;
        }
    t.offers.assign(catalog.offers.begin() + static_cast<long>(first_offer), catalog.offers.end());
    t.skipped.assign(catalog.skipped.begin() + static_cast<long>(first_skipped), catalog.skipped.end());
    t.diagnostics = table_diags.all();
    std::optional<CacheLock> lock;
    if (!st.locked) {
        lock.emplace(st.cache);
        if (!lock->held()) return;  // an update is writing the cache: it writes the stores itself
    }
    if (std::string err = write_file_atomically(st.path, write_table_store(t, st.key)); !err.empty())
        diags.warning({st.path, 0, 0},
                      "price cache store not written (the table is read from its CSV): " + err);
}

void load_one_table(const TableRef& ref, DirectTables& direct, PreparedTables& prepared, bool gpus_unchanged,
                    Catalog& catalog, Diagnostics& diags, const Provider* provider);

// `already_read`: tables given directly with --catalog, by path (read once to recognise them).
// `prepared`: the built-in tables as read from the snapshot; `gpus_unchanged`: the GPU list is still the
// built-in one. A prepared table whose inputs changed is read again from the embedded CSV.
void load_tables(const std::vector<TableRef>& tables, DirectTables& already_read, PreparedTables& prepared,
                 bool gpus_unchanged, Catalog& catalog, Diagnostics& diags) {
    // A commitment table follows its provider's offer tables: its rows land at the end of the offers
    // read so far and are attached at once (before a large table after it is read, so that nothing big moves).
    const ProviderIndex providers(catalog);  // reading tables adds offers, not providers
    for (const auto& ref : tables) {
        const std::size_t first = catalog.offers.size();
        load_one_table(ref, already_read, prepared, gpus_unchanged, catalog, diags,
                       providers.find(ref.provider));
        if (is_commitment_table_format(ref.format))
            attach_commitments(catalog,
                               {{ref.format, table_display_name(ref), first, catalog.offers.size()}});
    }
}

void load_one_table(const TableRef& ref, DirectTables& direct, PreparedTables& prepared, bool gpus_unchanged,
                    Catalog& catalog, Diagnostics& diags, const Provider* provider) {
    {
        std::string bytes;
        if (auto it = direct.streams.find(ref.resolved_path); !ref.builtin && it != direct.streams.end()) {
            const std::unique_ptr<LineChunks> stream = std::move(it->second);
            direct.streams.erase(it);
            load_offer_tables({TableSource{ref, {}, stream.get(), provider, direct.keying}}, catalog, diags,
                              direct.filter, &direct.pruned);
            return;
        }
        if (auto it = direct.texts.find(ref.resolved_path); !ref.builtin && it != direct.texts.end()) {
            bytes = std::move(it->second);
            direct.texts.erase(it);
            const auto store = direct.stores.find(ref.resolved_path);
            if (store != direct.stores.end() && gpus_unchanged) {
                // A cache table: its store when it holds what reading the CSV now would add.
                if (BuiltinTable* t = store->second.table ? &*store->second.table : nullptr;
                    t && provider_stamp_holds(*t, catalog)) {
                    std::move(t->offers.begin(), t->offers.end(), std::back_inserter(catalog.offers));
                    std::move(t->skipped.begin(), t->skipped.end(), std::back_inserter(catalog.skipped));
                    for (auto& d : t->diagnostics) diags.add(std::move(d));
                    return;
                }
                if (store->second.write) {  // read whole (without the filter), as the store keeps it
                    const std::size_t first_offer = catalog.offers.size(),
                                      first_skipped = catalog.skipped.size();
                    Diagnostics table_diags;
                    load_offer_tables({TableSource{ref, bytes, nullptr, provider}}, catalog, table_diags);
                    write_store(store->second, ref, catalog, first_offer, first_skipped, table_diags, diags);
                    diags.append(table_diags);
                    return;
                }
            }
            load_offer_tables({TableSource{ref, bytes, nullptr, provider}}, catalog, diags, direct.filter,
                              &direct.pruned);
            return;
        } else if (ref.builtin) {
            if (BuiltinTable* t = reusable_table(ref, prepared, catalog, gpus_unchanged)) {
                std::move(t->offers.begin(), t->offers.end(), std::back_inserter(catalog.offers));
                std::move(t->skipped.begin(), t->skipped.end(), std::back_inserter(catalog.skipped));
                for (auto& d : t->diagnostics) diags.add(std::move(d));
            } else {
                read_builtin_table(ref, catalog, diags);
            }
            return;
        } else {
            try {
                bytes = read_file(ref.resolved_path);
            } catch (const DataError& e) {
                diags.error(ref.where, std::string("tables: ") + e.what());
                return;
            }
        }
        load_any_table(ref, bytes, catalog, diags);
    }
}

// --strict-variants: offers whose GPU variant was assumed go; their rows are counted as dropped.
void drop_assumed_variants(Catalog& catalog) {
    std::erase_if(catalog.offers, [](const Offer& o) { return o.variant_assumed; });
    for (auto& s : catalog.skipped) {
        std::map<std::string, long> kept;
        std::map<std::string, SkipKind> kept_kinds;
        for (auto& [reason, n] : s.rows_by_reason) {
            const auto kind = s.reason_kinds.find(reason);
            if (kind == s.reason_kinds.end() || kind->second != SkipKind::variant_assumed) {
                kept[reason] += n;
                if (kind != s.reason_kinds.end()) kept_kinds[reason] = kind->second;
                continue;
            }
            const auto strict = s.strict_reasons.find(reason);
            const std::string dropped = strict != s.strict_reasons.end()
                                            ? strict->second
                                            : reason + " (dropped by --strict-variants)";
            kept[dropped] += n;
            kept_kinds[dropped] = SkipKind::accelerator;
        }
        s.rows_by_reason = std::move(kept);
        s.reason_kinds = std::move(kept_kinds);
        s.strict_reasons.clear();
        if (auto it = s.rows_by_kind.find(SkipKind::variant_assumed); it != s.rows_by_kind.end()) {
            s.rows_by_kind[SkipKind::accelerator] += it->second;  // now dropped, as an unknown accelerator is
            s.rows_by_kind.erase(it);
        }
    }
}

// ---- SkyPilot trees (`<cloud>/vms.csv`, `catalogs/v<N>/<cloud>/vms.csv`) and local copies

namespace fs = std::filesystem;

std::string file_mtime_date(const std::string& path) {
    std::error_code ec;
    auto t = fs::last_write_time(path, ec);
    if (ec) return "";
    auto sys = std::chrono::file_clock::to_sys(t);
    std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(sys)};
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
    return buf;
}

// `<dir>/<cloud>/vms.csv` for every cloud directory that has one, sorted by cloud.
std::vector<TreeTable> cloud_tables(const fs::path& dir) {
    std::vector<TreeTable> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        // Hidden entries are not clouds (the cache's .aws.v-… versions behind the link aws).
        if (!e.is_directory(ec2) || e.path().filename().string().starts_with(".")) continue;
        const fs::path vms = e.path() / "vms.csv";
        // Anything there but a directory is a table to read: a FIFO, a device or a dangling link is then
        // reported by read_file with its reason instead of being skipped silently.
        const fs::file_status st = fs::symlink_status(vms, ec2);
        if (fs::exists(st) && !fs::is_directory(fs::status(vms, ec2)))
            out.push_back({to_lower(e.path().filename().string()), vms.string()});
    }
    std::sort(out.begin(), out.end(),
              [](const TreeTable& a, const TreeTable& b) { return a.provider < b.provider; });
    return out;
}

// The version directories `v<N>` under `dir` that this gpuadvise reads, newest first.
std::vector<fs::path> schema_dirs(const fs::path& dir) {
    std::vector<std::pair<int, fs::path>> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() < 2 || name[0] != 'v') continue;
        const auto n = parse_decimal(std::string_view(name).substr(1));
        if (!n || *n != static_cast<double>(static_cast<int>(*n))) continue;
        const int v = static_cast<int>(*n);
        std::error_code ec2;
        if (v >= kOldestSkypilotSchema && v <= kNewestSkypilotSchema && e.is_directory(ec2))
            found.emplace_back(v, e.path());
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<fs::path> out;
    for (auto& [v, p] : found) out.push_back(std::move(p));
    return out;
}

// The newest-schema-version tables of a `catalogs/` directory (or of a directory holding one).
std::vector<TreeTable> newest_version_tables(const fs::path& dir) {
    for (const fs::path& root : {dir, dir / "catalogs"})
        for (const fs::path& version : schema_dirs(root))
            if (auto t = cloud_tables(version); !t.empty()) return t;
    return {};
}

// The built-in YAML documents, merged in this order.
void parse_builtin_yaml(Catalog& catalog, std::vector<TableRef>& tables, Diagnostics& diags) {
    for (std::string_view name :
         {"providers.yaml", "market.yaml", "models.yaml", "compat.yaml", "carbon.yaml"}) {
        auto text = find_embedded(name);
        if (!text) continue;
        Catalog layer;
        parse_catalog_yaml(*text, builtin_file_name(name), true, "", layer, tables, diags);
        merge_into(catalog, std::move(layer));
    }
}

}  // namespace

std::vector<TreeTable> skypilot_tree_tables(const std::string& dir) {
    if (auto direct = cloud_tables(dir); !direct.empty()) return direct;
    return newest_version_tables(dir);
}

std::string skypilot_home_catalogs() {
    if (const char* env = std::getenv("GPUADVISE_SKY_DIR")) return env;  // tests; "" = none
    const char* home = std::getenv("HOME");
    if (!home || !*home) return "";
    return (fs::path(home) / ".sky" / "catalogs").string();
}

long variant_assumed_rows(const Catalog& catalog) {
    long n = 0;
    for (const auto& s : catalog.skipped)
        if (auto it = s.rows_by_kind.find(SkipKind::variant_assumed); it != s.rows_by_kind.end())
            n += it->second;
    return n;
}

void parse_catalog_yaml(std::string_view text, const std::string& origin, bool builtin,
                        const std::string& base_dir, Catalog& out, std::vector<TableRef>& tables,
                        Diagnostics& diags) {
    out.files.push_back(origin);
    const YamlRead read = read_yaml_text(
        text, origin,
        {"a catalog needs at most 4", " (check the indentation and the ':' after each key)", {}}, diags);
    if (!read.root) return;
    YAML::Node root = *read.root;  // not const: a missing key of a const node is an invalid node
    YamlContext ctx(origin, diags);
    if (root.IsNull() || !root.IsDefined()) {
        diags.error({origin, 0, 0}, "the catalog is empty; expected keys such as 'gpus:' and 'providers:'");
        return;
    }
    if (!ctx.expect_map(root, "")) return;
    ctx.check_keys(root, "",
                   {"schema_version", "rates", "policy", "gpus", "providers", "models", "calibration",
                    "compat", "instance_networks", "grid_carbon"});
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
    if (root["grid_carbon"]) read_grid_carbon_section(root["grid_carbon"], ctx, out);
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
    // The tables joined as load_catalog joins them when nothing changes them (load_catalog: take_joined).
    JoinedTables joined;
    for (const auto& t : builtin.tables)
        joined.stamps.push_back({t.ref, t.provider_as_of, t.provider_source, {}, {}, {}});
    Catalog scratch = builtin.base;
    PreparedTables prepared(builtin.tables);
    DirectTables no_texts;
    Diagnostics joined_diags;
    load_tables(tables, no_texts, prepared, true, scratch, joined_diags);
    // Stored resolved, as load_catalog resolves the offers it reads (resolve_offer_gpus: canonical GPU ids, a
    // multi-device package's devices counted into gpu_count), and its findings after the tables' own, in
    // the order load_catalog reported them: it does not resolve joined offers again (that would count the
    // devices twice), and resolving 2,500 offers was 0.25 of the common question's 21 million instructions.
    resolve_offer_gpus(scratch, joined_diags);
    // The undated lint of the catalog load_catalog makes from them (take_joined).
    joined.undated_lint = lint_catalog(scratch, {}, {}, LintChecks::undated).all();
    joined.offers = std::move(scratch.offers);
    joined.skipped = std::move(scratch.skipped);
    joined.diagnostics = joined_diags.all();
    builtin.joined = std::move(joined);
    return builtin;
}

namespace {

// ---- load_catalog, step by step

// One load in progress: the catalog so far, its problems, and the tables still to read.
struct CatalogLoad {
    const CatalogOptions& options;
    Catalog catalog;
    Diagnostics diags;
    std::vector<TableRef> tables;
    DirectTables direct;  // tables given directly, by path (see load_tables)
    PreparedTables prepared;
    std::vector<Gpu> builtin_gpus;
    std::optional<JoinedTables> joined;  // the built-in tables joined (BuiltinCatalog::joined)
    std::string_view prepared_bytes;     // `prepared` not decoded yet (BuiltinCatalog::tables_bytes)
    std::uint64_t store_key = 0;         // BuiltinCatalog::store_key: 0 = no cache table stores
    // catalog.providers by id, for the tables read directly (a tree of 10,000 clouds scanned the
    // providers and every offer once per table: 10,000 clouds took 17 s). Indexes the first
    // `indexed` providers; rebuilt when providers were added elsewhere.
    std::unordered_map<std::string, std::size_t> provider_index;
    std::size_t indexed = 0;
    std::vector<Diagnostic> undated_lint;  // JoinedTables::undated_lint, when take_joined took the tables

    Provider* find_provider(const std::string& id) {
        if (indexed != catalog.providers.size()) {
            provider_index.clear();
            for (std::size_t i = 0; i < catalog.providers.size(); ++i)
                provider_index[catalog.providers[i].id] = i;  // the last of a repeated id, as a scan finds
            indexed = catalog.providers.size();
        }
        const auto it = provider_index.find(id);
        return it == provider_index.end() ? nullptr : &catalog.providers[it->second];
    }
};

// The built-in catalog: the snapshot read at build time when there is one, else the embedded YAML.
void start_from_builtin(CatalogLoad& s, std::optional<BuiltinCatalog>& builtin) {
    if (s.options.builtin && builtin) {
        s.catalog = std::move(builtin->base);
        for (auto& d : builtin->diagnostics) s.diags.add(std::move(d));
        if (builtin->joined)
            for (const auto& t : builtin->joined->stamps) s.tables.push_back(t.ref);
        else
            for (const auto& t : builtin->tables) s.tables.push_back(t.ref);
        s.prepared = PreparedTables(std::move(builtin->tables));
        s.joined = std::move(builtin->joined);
        s.prepared_bytes = builtin->tables_bytes;
        s.store_key = builtin->store_key;
        if (!s.options.files.empty()) s.builtin_gpus = s.catalog.gpus;  // a layer may change them
    } else if (s.options.builtin) {
        parse_builtin_yaml(s.catalog, s.tables, s.diags);
    }
}

// A SkyPilot table read directly: it replaces the provider's offers and tables so far, and dates it.
// `as_of` empty = unknown (only a file time is known): shown as "as-of unknown", treated as stale.
void add_direct_table(CatalogLoad& s, const std::string& file, const std::string& provider, std::string text,
                      const std::string& as_of, const std::string& source,
                      PriceOrigin origin = PriceOrigin::catalog,
                      std::unique_ptr<LineChunks> stream = nullptr) {
    Catalog& catalog = s.catalog;
    TableRef ref{provider, "skypilot", file, file, false, {file, 0, 0}};
    Provider* existing = s.find_provider(ref.provider);
    const bool known = existing != nullptr;
    if (!existing) {
        Provider p;
        p.id = ref.provider;
        p.name = ref.provider;
        p.currency = "USD";
        p.kind = ProviderKind::public_prices;
        p.where = {file, 0, 0};
        catalog.providers.push_back(p);
        existing = &catalog.providers.back();
        s.provider_index[p.id] = catalog.providers.size() - 1;
        if (s.indexed + 1 == catalog.providers.size()) s.indexed = catalog.providers.size();
    }
    existing->as_of = as_of;
    existing->source = source;
    existing->origin = origin;
    // The table replaces the provider's offers: those loaded so far and its tables not yet read
    // (the built-in aws table, say, when `--catalog vms.csv --provider-name aws`).
    // A provider new to the catalog has neither (offers and tables name a defined provider; the
    // catalog's lint reports any other).
    // A newer copy of the provider's own price list (the cache, a local SkyPilot copy) keeps the
    // provider's commitment tables (its published reserved prices), read after it so that they attach to
    // its offers; a table of the user's own (--catalog) replaces those too.
    std::vector<TableRef> commitments;
    if (known) {
        catalog.offers.erase(std::remove_if(catalog.offers.begin(), catalog.offers.end(),
                                            [&](const Offer& o) { return o.provider == ref.provider; }),
                             catalog.offers.end());
        std::erase_if(s.tables, [&](const TableRef& t) {
            if (t.provider != ref.provider) return false;
            if (origin != PriceOrigin::catalog && is_commitment_table_format(t.format))
                commitments.push_back(t);
            return true;
        });
    }
    catalog.files.push_back(file);
    s.tables.push_back(ref);
    s.tables.insert(s.tables.end(), commitments.begin(), commitments.end());
    if (stream)
        s.direct.streams[file] = std::move(stream);
    else
        s.direct.texts[file] = std::move(text);
}

std::string user_table_source(const CatalogOptions& options, const std::string& file) {
    if (!options.as_of.empty()) return "SkyPilot catalog table " + file + "; as_of from --as-of";
    return "SkyPilot catalog table " + file +
           "; as-of unknown (only the file's modification time is known; "
           "give --as-of DATE)";
}

// ~/.sky/catalogs (SkyPilot's own downloads), under the user's files: a table replaces a
// provider's built-in one only when it is newer. Dated by its file time, marked "local copy".
void add_sky_local_copies(CatalogLoad& s) {
    const std::string sky = skypilot_home_catalogs();
    std::error_code ec;
    if (sky.empty() || !fs::is_directory(sky, ec)) return;
    for (const auto& t : newest_version_tables(sky)) {
        const std::string date = file_mtime_date(t.path);
        const Provider* p = s.catalog.find_provider(t.provider);
        if (date.empty() || (p && !p->as_of.empty() && p->as_of >= date)) continue;
        std::string text;
        try {
            text = read_file(t.path);
        } catch (const DataError& e) {
            s.diags.warning({t.path, 0, 0}, std::string("local copy skipped: ") + e.what());
            continue;
        }
        if (!looks_like_skypilot_csv(text)) {
            s.diags.warning({t.path, 0, 0},
                            "local copy skipped: not a SkyPilot vms.csv (no "
                            "InstanceType/AcceleratorName header)");
            continue;
        }
        add_direct_table(s, t.path, t.provider, std::move(text), date,
                         "local copy of the SkyPilot catalog, " + t.path + " (as_of = its file date)",
                         PriceOrigin::sky_local_copy);
    }
}

// A cache table's compact store (vms.store beside its vms.csv), kept when it holds this table as it is
// now (the CSV's bytes, this build, the path and the provider's stamp); a stale or corrupt one is said and
// written again from the CSV (load_one_table).
void read_store(CatalogLoad& s, const std::string& dir, const TreeTable& t, std::string_view text,
                const std::string& as_of, const std::string& source) {
    DirectTables::Store st;
    st.path = (fs::path(t.path).parent_path() / "vms.store").string();
    st.cache = dir;
    st.key = {s.store_key, hash_text(text), text.size()};
    st.locked = s.options.write_cache_stores;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(st.path, ec))) {
        // None yet: written by `catalog update`, or by the first command after one that did not (an
        // older gpuadvise, a killed update), when the folder is an update's (a link to its version);
        // a folder someone made by hand is only read.
        st.write = s.options.write_cache_stores || fs::is_symlink(fs::path(t.path).parent_path(), ec);
        s.direct.stores[t.path] = std::move(st);
        return;
    }
    std::string why;
    try {
        if (auto table = read_table_store(read_file(st.path), st.key, why)) {
            if (!(table->ref == TableRef{t.provider, "skypilot", t.path, t.path, false, {t.path, 0, 0}}))
                why = "stale: written for another path or provider";
            else if (table->provider_as_of != as_of || table->provider_source != source)
                why = "stale: written for another date or source (meta.json)";
            else
                st.table = std::move(table);
        }
    } catch (const DataError& e) {
        why = std::string("corrupt: ") + e.what();
    }
    if (!st.table) {
        s.diags.warning({st.path, 0, 0}, "price cache store " + why + "; the table is read from " + t.path +
                                             " and the store "
                                             "written again");
        st.write = true;
    }
    s.direct.stores[t.path] = std::move(st);
}

// The tables of `gpuadvise catalog update`'s cache replace a provider's when they are at least as new.
void add_cached_tables(CatalogLoad& s, const std::string& dir) {
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(fs::path(dir) / "skypilot", ec)) return;
    for (const auto& t : cloud_tables(fs::path(dir) / "skypilot")) {
        const auto meta = read_cache_meta((fs::path(t.path).parent_path() / "meta.json").string());
        if (!meta || meta->as_of.empty()) continue;
        const Provider* p = s.catalog.find_provider(t.provider);
        if (p && !p->as_of.empty() && p->as_of > meta->as_of) continue;
        std::string text;
        try {
            text = read_file(t.path);
        } catch (const DataError& e) {
            s.diags.warning({t.path, 0, 0}, std::string("cached table skipped: ") + e.what());
            continue;
        }
        const std::string source =
            "gpuadvise cache (catalog update): " + meta->url + ", fetched " + meta->fetched_at +
            (meta->last_modified.empty() ? "" : ", upstream Last-Modified " + meta->last_modified);
        if (s.store_key) read_store(s, dir, t, text, meta->as_of, source);
        add_direct_table(s, t.path, t.provider, std::move(text), meta->as_of, source,
                         PriceOrigin::update_cache);
    }
}

// The cache's exchange rates replace older ones.
void add_cached_rates(CatalogLoad& s, const std::string& dir) {
    const fs::path rates = fs::path(dir) / "rates" / "rates.yaml";
    std::error_code ec;
    if (dir.empty() || !fs::is_regular_file(rates, ec)) return;
    try {
        const std::string text = read_file(rates.string());
        Catalog layer;
        std::vector<TableRef> none;
        parse_catalog_yaml(text, rates.string(), false, rates.parent_path().string(), layer, none, s.diags);
        std::erase_if(layer.rates, [&](const ExchangeRate& r) {
            const ExchangeRate* old = s.catalog.rate_for(r.currency);
            return old && old->as_of > r.as_of;
        });
        merge_into(s.catalog, std::move(layer));
    } catch (const DataError& e) {
        s.diags.warning({rates.string(), 0, 0}, std::string("cached rates skipped: ") + e.what());
    }
}

// A file given with --catalog: its text (read_file), or for a SkyPilot table larger than `chunk_bytes`
// with rows in its first piece, "" and `stream` set to read it piece by piece (same checks at the open).
std::string read_table_file(const std::string& path, std::size_t chunk_bytes,
                            std::unique_ptr<LineChunks>& stream) {
    struct stat st {};
    if (chunk_bytes == 0 || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<unsigned long long>(st.st_size) <= chunk_bytes)
        return read_file(path);  // small, or not readable: read_file says why
    auto chunks = std::make_unique<LineChunks>(path, chunk_bytes);
    const std::string_view head = chunks->peek();
    const std::size_t eol = head.find('\n');
    if (looks_like_skypilot_csv(head) && eol != std::string_view::npos &&
        head.find_first_not_of(" \t\r\n", eol) != std::string_view::npos) {
        stream = std::move(chunks);
        return {};
    }
    return chunks->read_all();
}

// --catalog DIR: a SkyPilot tree, every cloud's vms.csv, named after its directory.
void add_user_directory(CatalogLoad& s, const std::string& file) {
    const auto found = skypilot_tree_tables(file);
    if (found.empty()) {
        s.diags.error({file, 0, 0},
                      "is a directory with no SkyPilot tables; expected DIR/<cloud>/vms.csv or "
                      "DIR/v<N>/<cloud>/vms.csv (schema v" +
                          std::to_string(kOldestSkypilotSchema) + "..v" +
                          std::to_string(kNewestSkypilotSchema) + ")");
        return;
    }
    for (const auto& t : found) {
        // A file that cannot be read stops the load at once: "gpuadvise: error: PATH: …: REASON".
        std::unique_ptr<LineChunks> stream;
        std::string text = read_table_file(t.path, s.options.stream_chunk_bytes, stream);
        warn_if_no_rows(t.path, stream ? stream->peek() : std::string_view(text), s.diags);
        add_direct_table(s, t.path, t.provider, std::move(text), s.options.as_of,
                         user_table_source(s.options, t.path), PriceOrigin::catalog, std::move(stream));
    }
}

// --catalog FILE.csv: one SkyPilot table; `csv_files` counts them (--provider-name names only one).
void add_user_csv(CatalogLoad& s, const std::string& file, std::string text, int& csv_files,
                  std::unique_ptr<LineChunks> stream = nullptr) {
    const CatalogOptions& options = s.options;
    warn_if_no_rows(file, stream ? stream->peek() : std::string_view(text), s.diags);
    ++csv_files;
    if (!options.provider_name.empty() && csv_files > 1)
        throw UsageError(
            "--provider-name " + options.provider_name +
                " names the provider of one SkyPilot table, but several were given (" + file + ")",
            "load one table per --provider-name, or drop it to name each provider after its file "
            "(lambda.csv -> lambda)");
    const fs::path path(file);
    // `<cloud>/vms.csv` (SkyPilot's layout) is named after its directory, other files after their name.
    std::string name = path.stem().string();
    if (path.filename() == "vms.csv" && path.has_parent_path() && !path.parent_path().filename().empty() &&
        path.parent_path().filename() != "." && path.parent_path().filename() != "..")
        name = to_lower(path.parent_path().filename().string());
    add_direct_table(s, file, options.provider_name.empty() ? name : options.provider_name, std::move(text),
                     options.as_of, user_table_source(options, file), PriceOrigin::catalog,
                     std::move(stream));
}

// --catalog FILE.yaml: a layer over what is loaded so far.
void add_user_yaml(CatalogLoad& s, const std::string& file, std::string_view text) {
    Catalog layer;
    const std::size_t earlier_tables = s.tables.size();
    parse_catalog_yaml(text, file, false, parent_dir(file), layer, s.tables, s.diags);
    // A provider id is matched ignoring case (--provider aws finds 'AWS'), but replaced by its exact
    // spelling: 'AWS' beside the built-in 'aws' would be a second provider that nothing can select.
    for (const auto& p : layer.providers)
        for (const auto& earlier : s.catalog.providers)
            if (earlier.id != p.id && iequals(earlier.id, p.id)) {
                const std::string& from = earlier.where.file.str();
                s.diags.error(p.where, "provider id '" + p.id + "' differs from the earlier provider '" +
                                           earlier.id + "'" + (from.empty() ? "" : " (" + from + ")") +
                                           " only in case; write '" + earlier.id +
                                           "' to replace that provider, or choose another id");
                break;
            }
    // A provider redefined here replaces the earlier definition, its tables included.
    for (const auto& p : layer.providers)
        for (std::size_t i = earlier_tables; i-- > 0;)
            if (s.tables[i].provider == p.id) s.tables.erase(s.tables.begin() + static_cast<long>(i));
    merge_into(s.catalog, std::move(layer));
}

// The files of --catalog, in order.
void add_user_files(CatalogLoad& s) {
    const CatalogOptions& options = s.options;
    int csv_files = 0;
    for (const auto& file : options.files) {
        std::error_code dir_ec;
        if (fs::is_directory(file, dir_ec)) {
            add_user_directory(s, file);
            continue;
        }
        // A file that cannot be read stops the load at once: "gpuadvise: error: PATH: cannot open the file: REASON".
        std::unique_ptr<LineChunks> stream;
        std::string text = read_table_file(file, options.stream_chunk_bytes, stream);
        if (stream)
            add_user_csv(s, file, {}, csv_files, std::move(stream));
        else if (looks_like_skypilot_csv(text))
            add_user_csv(s, file, std::move(text), csv_files);
        else
            add_user_yaml(s, file, text);
    }
    if (!options.provider_name.empty() && csv_files == 0)
        throw UsageError("--provider-name " + options.provider_name +
                             ": no SkyPilot table (vms.csv) was given with --catalog",
                         "it names the provider of a CSV table given with --catalog; a YAML catalog names "
                         "its providers itself");
}

// Every error of the load, sorted by place, in one DataError: nothing is half-loaded.
[[noreturn]] void throw_catalog_errors(const Diagnostics& diags) {
    std::vector<Diagnostic> all;
    for (const auto& d : diags.all())
        if (d.severity == Severity::error) all.push_back(d);
    std::stable_sort(all.begin(), all.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::tie(a.where.file, a.where.line, a.where.column) <
               std::tie(b.where.file, b.where.line, b.where.column);
    });
    const std::string message = "the catalog has " + std::to_string(all.size()) + " error" +
                                (all.size() == 1 ? "" : "s") + "; nothing was loaded";
    throw DataError(message, std::move(all),
                    "fix the lines above; 'gpuadvise catalog validate FILE' re-checks a file");
}

// The built-in tables as the snapshot joined them, when the tables to read are still exactly those (no
// layer, cache or local copy replaced one) and each provider still has the as_of and source its table was
// read with: the same catalog load_tables would make, without reading and attaching the rows again.
bool take_joined(CatalogLoad& s) {
    if (!s.joined || !s.options.files.empty() || s.tables.size() != s.joined->stamps.size()) return false;
    for (std::size_t i = 0; i < s.tables.size(); ++i) {
        const BuiltinTable& stamp = s.joined->stamps[i];
        if (!(s.tables[i] == stamp.ref) || !provider_stamp_holds(stamp, s.catalog)) return false;
    }
    s.catalog.offers = std::move(s.joined->offers);
    s.undated_lint = std::move(s.joined->undated_lint);
    s.catalog.skipped = std::move(s.joined->skipped);
    for (auto& d : s.joined->diagnostics) s.diags.add(std::move(d));
    return true;
}

}  // namespace

Catalog load_catalog(const CatalogOptions& options, std::optional<BuiltinCatalog> builtin) {
    CatalogLoad s{options, {}, {}, {}, {}, {}, {}, {}, {}, 0, {}, 0, {}};
    start_from_builtin(s, builtin);
    if (options.builtin && options.sky_catalogs) add_sky_local_copies(s);
    if (options.builtin && options.cache) {
        const std::string dir = cache_dir();
        add_cached_tables(s, dir);
        add_cached_rates(s, dir);
    }
    add_user_files(s);
    // Everything is checked even after an error, so that one run reports every problem.
    s.direct.keying = options.stream_keying;
    std::optional<OfferFilter> filter = options.filter;
    if (filter) {
        filter->strict_variants = options.strict_variants;
        s.direct.filter = &*filter;
    }
    const bool joined = take_joined(s);
    if (!joined) {
        if (!s.prepared_bytes.empty()) s.prepared = PreparedTables(index_snapshot_tables(s.prepared_bytes));
        load_tables(s.tables, s.direct, s.prepared, options.files.empty() || s.catalog.gpus == s.builtin_gpus,
                    s.catalog, s.diags);
    }
    if (options.strict_variants) drop_assumed_variants(s.catalog);
    if (!joined) resolve_offer_gpus(s.catalog, s.diags);  // the joined offers were, with the snapshot
    // The built-in tables as the snapshot joined them: their undated lint was made with the snapshot (the
    // same catalog unless --strict-variants dropped offers from it since).
    if (joined && !options.strict_variants) {
        for (auto& d : s.undated_lint) s.diags.add(std::move(d));
        s.diags.append(lint_catalog(s.catalog, options.today, s.direct.pruned, LintChecks::dated));
    } else {
        s.diags.append(lint_catalog(s.catalog, options.today, s.direct.pruned));
    }
    if (s.diags.has_errors()) throw_catalog_errors(s.diags);
    s.catalog.warnings = std::move(s.diags);
    return std::move(s.catalog);
}

}  // namespace gpuadvise::io
