// Readers for the gpus, providers (with offers), rates, policy and instance_networks sections.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gpuadvise/base/calendar.hpp"
#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/catalog_sections.hpp"
#include "io/commitment_tables.hpp"

namespace gpuadvise::io {
namespace {

// ISO 4217 style: three ASCII letters ("USD", "eur"); '' and 'EUR ' are not codes.
void check_currency_code(YamlContext& ctx, const YAML::Node& map, const std::string& path,
                         const std::string& code) {
    const bool ok = code.size() == 3 && std::all_of(code.begin(), code.end(), [](char c) {
                        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
                    });
    if (!ok)
        ctx.error(map["currency"], key_path(path, "currency"),
                  "'" + code + "' is not a currency code; expected three letters such as USD or EUR");
}

// A date key (`as_of`): a real YYYY-MM-DD day, an error at its own line otherwise ("2026-13-15: there is
// no month 13"). `unknown_allowed`: "unknown" is accepted and read as "" (as-of unknown, treated as
// stale), what 'catalog import' writes for a table without --as-of.
std::optional<std::string> date_text(YamlContext& ctx, const YAML::Node& map, const std::string& path,
                                     std::string_view key, bool required, bool unknown_allowed = false) {
    std::optional<std::string> text = ctx.text(map, path, key, required);
    if (!text) return text;
    if (unknown_allowed && *text == "unknown") return std::string();
    if (const std::string why = iso_date_problem(*text); !why.empty())
        ctx.error(map[std::string(key)], key_path(path, key),
                  "'" + shorten(*text) + "' is not a date: " + why +
                      (unknown_allowed                               ? "; write YYYY-MM-DD, or unknown"
                       : why.find("YYYY-MM-DD") == std::string::npos ? "; write YYYY-MM-DD"
                                                                     : ""));
    return text;
}

void read_tflops(const YAML::Node& node, YamlContext& ctx, const std::string& path, DenseTflops& t) {
    if (!ctx.expect_map(node, path)) return;
    ctx.check_keys(node, path, {"fp32", "tf32", "fp16", "bf16", "fp8"});
    t.fp32 = ctx.number(node, path, "fp32", false, 0.001, 1e6);
    t.tf32 = ctx.number(node, path, "tf32", false, 0.001, 1e6);
    t.fp16 = ctx.number(node, path, "fp16", false, 0.001, 1e6);
    t.bf16 = ctx.number(node, path, "bf16", false, 0.001, 1e6);
    t.fp8 = ctx.number(node, path, "fp8", false, 0.001, 1e6);
}

// The interconnect a datasheet names, typed (catalog/gpu.hpp): SXM/OAM boards join 8 GPUs by
// NVLink/NVSwitch, a hybrid cube mesh or Infinity Fabric; bridges join pairs; PCIe-only parts none.
// The PCIe generation from "PCIe3"/"PCIe 3" ... "PCIe6". Read once here, so the core never parses prose.
struct InterconnectClass {
    int nvlink_domain = 1;
    int pcie_generation = 0;
};
InterconnectClass classify_interconnect(const std::string& form_factor, const std::string& interconnect) {
    const std::string ic = to_lower(interconnect);
    auto has = [&](std::string_view word) { return ic.find(word) != std::string::npos; };
    InterconnectClass c;
    const bool bridge = has("bridge") || has("pairs") || has("2-way") || has("2-gpu");
    if ((form_factor == "sxm" || form_factor == "oam") && (has("nvlink") || has("infinity fabric")))
        c.nvlink_domain = 8;
    else if (bridge && has("nvlink"))
        c.nvlink_domain = 2;
    for (int gen = 3; gen <= 6; ++gen)
        if (has("pcie" + std::to_string(gen)) || has("pcie " + std::to_string(gen))) {
            c.pcie_generation = gen;
            break;
        }
    return c;
}

Gpu read_gpu(const YAML::Node& node, YamlContext& ctx, const std::string& path) {
    Gpu g;
    ctx.check_keys(node, path,
                   {"id",
                    "family",
                    "name",
                    "vendor",
                    "architecture",
                    "compute_capability",
                    "memory_gb",
                    "memory_bandwidth_gb_per_s",
                    "tflops",
                    "tdp_w",
                    "form_factor",
                    "interconnect",
                    "nvlink_domain",
                    "pcie_generation",
                    "intra_node_busbw_gb_per_s",
                    "year",
                    "aliases",
                    "uncertain",
                    "source",
                    "notes",
                    "family_default",
                    "devices_per_package",
                    "devices_source"});
    g.id = ctx.text(node, path, "id", true).value_or("");
    g.family = ctx.text(node, path, "family", true).value_or("");
    g.name = ctx.text(node, path, "name", true).value_or(g.id);
    g.vendor = ctx.text(node, path, "vendor").value_or("NVIDIA");
    g.architecture = ctx.text(node, path, "architecture").value_or("");
    g.compute_capability = ctx.text(node, path, "compute_capability").value_or("");
    g.memory_gb = ctx.number(node, path, "memory_gb", true, 0.1, 100000).value_or(0);
    g.memory_bandwidth_gb_per_s = ctx.number(node, path, "memory_bandwidth_gb_per_s", false, 1, 1e6);
    if (YAML::Node t = node["tflops"]; t.IsDefined())
        read_tflops(t, ctx, key_path(path, "tflops"), g.tflops);
    else
        ctx.error(node, path, "missing required key 'tflops'");
    g.tdp_w = ctx.number(node, path, "tdp_w", false, 1, 100000);
    g.form_factor = ctx.text(node, path, "form_factor").value_or("");
    g.interconnect = ctx.text(node, path, "interconnect").value_or("");
    const InterconnectClass typed = classify_interconnect(g.form_factor, g.interconnect);
    g.nvlink_domain = static_cast<int>(
        ctx.integer(node, path, "nvlink_domain", false, 1, 576).value_or(typed.nvlink_domain));
    g.pcie_generation = static_cast<int>(
        ctx.integer(node, path, "pcie_generation", false, 1, 7).value_or(typed.pcie_generation));
    g.intra_node_busbw_gb_per_s = ctx.number(node, path, "intra_node_busbw_gb_per_s", false, 0.1, 1e5);
    g.year = static_cast<int>(ctx.integer(node, path, "year", false, 1990, 2100).value_or(0));
    g.aliases = ctx.text_list(node, path, "aliases");
    g.uncertain = ctx.text_list(node, path, "uncertain");
    g.source = ctx.text(node, path, "source", true).value_or("");
    g.notes = ctx.text(node, path, "notes").value_or("");
    g.family_default = ctx.text(node, path, "family_default").value_or("");
    g.devices_per_package =
        static_cast<int>(ctx.integer(node, path, "devices_per_package", false, 1, 64).value_or(1));
    g.devices_source = ctx.text(node, path, "devices_source").value_or("");
    if (g.devices_per_package > 1 && g.devices_source.empty())
        ctx.error(node, path,
                  "'devices_per_package' needs 'devices_source': where the device count comes from");
    if (g.devices_per_package > 1) {
        // The row is the package's datasheet; PyTorch sees `devices_per_package` devices that
        // share it (MI250X: 2 GCDs of 64 GB). Everything downstream counts devices (#13).
        const double n = g.devices_per_package;
        g.memory_gb /= n;
        if (g.memory_bandwidth_gb_per_s) *g.memory_bandwidth_gb_per_s /= n;
        for (auto* t : {&g.tflops.fp32, &g.tflops.tf32, &g.tflops.fp16, &g.tflops.bf16, &g.tflops.fp8})
            if (*t) **t /= n;
        if (g.tdp_w) *g.tdp_w /= n;
    }
    return g;
}

// `commitments:` of an offer: [{term_months, price_per_month | price_per_hour | discount, upfront,
// scope, source, as_of, note}]. Prices are for the whole offer; a discount is against its on-demand price.
void read_commitments(const YAML::Node& node, YamlContext& ctx, const std::string& path, Offer& o) {
    const YAML::Node list = node["commitments"];
    if (!list.IsDefined() || list.IsNull()) return;
    const std::string cpath = key_path(path, "commitments");
    if (!ctx.expect_sequence(list, cpath)) return;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string cp = index_path(cpath, i);
        const YAML::Node& n = list[i];
        if (!ctx.expect_map(n, cp)) continue;
        ctx.check_keys(n, cp,
                       {"term_months", "price_per_month", "price_per_hour", "discount", "upfront", "scope",
                        "source", "as_of", "note"});
        Commitment c;
        if (!n["term_months"]) ctx.error(n, cp, "commitment without a term: give term_months (1, 12, 36 …)");
        c.term_months = static_cast<int>(ctx.integer(n, cp, "term_months", false, 1, 120).value_or(0));
        const auto per_month = ctx.number(n, cp, "price_per_month", false, 0, 1e9);
        const auto per_hour = ctx.number(n, cp, "price_per_hour", false, 0, 1e7);
        if (n["discount"]) {
            auto d = ctx.as_number(n["discount"], key_path(cp, "discount"), -1e9, 1e9);
            if (d && (*d < 0 || *d > 0.95))
                ctx.error(n["discount"], key_path(cp, "discount"),
                          "discount " + std::to_string(*d) +
                              " is outside 0-0.95 (a share of the on-demand price: 0.37 = 37 % off)");
            else if (d)
                c.discount = d;
        }
        const int given =
            (n["price_per_month"] ? 1 : 0) + (n["price_per_hour"] ? 1 : 0) + (n["discount"] ? 1 : 0);
        if (given != 1) ctx.error(n, cp, "give exactly one of price_per_month, price_per_hour, discount");
        if (per_month)
            c.price_per_month = *per_month;
        else if (per_hour)
            c.price_per_month = *per_hour * kHoursPerMonth;
        else if (c.discount) {
            if (!o.on_demand_per_hour)
                ctx.error(n["discount"], key_path(cp, "discount"),
                          "a discount needs the offer's on_demand_per_hour");
            else
                c.price_per_month = (1 - *c.discount) * *o.on_demand_per_hour * kHoursPerMonth;
        }
        c.upfront = ctx.number(n, cp, "upfront", false, 0, 1).value_or(0);
        c.scope = ctx.text(n, cp, "scope").value_or("instance");
        c.source = ctx.text(n, cp, "source").value_or(o.source);
        c.as_of = date_text(ctx, n, cp, "as_of", false).value_or(o.as_of);
        c.note = ctx.text(n, cp, "note").value_or("");
        o.commitments.push_back(std::move(c));
    }
}

Offer read_offer(const YAML::Node& node, YamlContext& ctx, const std::string& path, const Provider& p) {
    Offer o;
    ctx.check_keys(
        node, path,
        {"gpu", "count", "region", "instance_type", "on_demand_per_hour", "reserved_per_month",
         "spot_per_hour", "vcpus", "ram_gb", "local_disk_gb", "as_of", "source", "notes", "commitments"});
    o.provider = p.id;
    o.currency = p.currency;
    o.where = ctx.where(node["gpu"].IsDefined() ? node["gpu"] : node);
    o.gpu = ctx.text(node, path, "gpu", true).value_or("");
    o.gpu_count = static_cast<int>(ctx.integer(node, path, "count", false, 1, 4096).value_or(1));
    o.region = ctx.text(node, path, "region").value_or("");
    o.instance_type = ctx.text(node, path, "instance_type").value_or("");
    o.on_demand_per_hour = ctx.number(node, path, "on_demand_per_hour", false, 0, 1e7);
    o.reserved_per_month = ctx.number(node, path, "reserved_per_month", false, 0, 1e9);
    o.spot_per_hour = ctx.number(node, path, "spot_per_hour", false, 0, 1e7);
    o.vcpus = ctx.number(node, path, "vcpus", false, 0, 1e5);
    o.ram_gb = ctx.number(node, path, "ram_gb", false, 0, 1e7);
    o.local_disk_gb = ctx.number(node, path, "local_disk_gb", false, 0, 1e9);
    o.as_of = date_text(ctx, node, path, "as_of", false, true).value_or(p.as_of);
    o.source = ctx.text(node, path, "source").value_or(p.source);
    for (auto& note : ctx.text_list(node, path, "notes")) o.notes.emplace_back(std::move(note));
    if (o.reserved_per_month)  // the guide's monthly reserved price is a 1-month commitment
        o.commitments.push_back({1, *o.reserved_per_month, std::nullopt, 0, "instance", o.source, o.as_of,
                                 "monthly reserved price"});
    read_commitments(node, ctx, path, o);
    if (!node["on_demand_per_hour"] && !node["reserved_per_month"] && !node["spot_per_hour"] &&
        o.commitments.empty())
        ctx.error(node, path,
                  "no price: give at least one of on_demand_per_hour, reserved_per_month, spot_per_hour, "
                  "commitments");
    return o;
}

// `billing: {increment: second | minute | hour, minimum_seconds, stopped_bills_storage, source}`.
void read_billing(const YAML::Node& n, YamlContext& ctx, const std::string& path, BillingTerms& b) {
    if (!ctx.expect_map(n, path)) return;
    ctx.check_keys(n, path, {"increment", "minimum_seconds", "stopped_bills_storage", "source"});
    if (auto inc = ctx.text(n, path, "increment")) {
        if (*inc == "second")
            b.increment_seconds = 1;
        else if (*inc == "minute")
            b.increment_seconds = 60;
        else if (*inc == "hour")
            b.increment_seconds = 3600;
        else
            ctx.error(n["increment"], key_path(path, "increment"),
                      "unknown billing increment '" + *inc + "'; expected second, minute or hour");
    }
    if (auto m = ctx.integer(n, path, "minimum_seconds", false, 0, 86400))
        b.minimum_seconds = static_cast<int>(*m);
    b.stopped_bills_storage = ctx.boolean(n, path, "stopped_bills_storage");
    b.source = ctx.text(n, path, "source", true).value_or("");
}

}  // namespace

void read_gpus_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "gpus")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("gpus", i);
        if (!ctx.expect_map(node[i], path)) continue;
        Gpu g = read_gpu(node[i], ctx, path);
        // Ids match ignoring case; within one file a second spelling would silently replace the first.
        for (const auto& earlier : out.gpus)
            if (!g.id.empty() && to_lower(earlier.id) == to_lower(g.id)) {
                ctx.error(node[i]["id"], key_path(path, "id"),
                          "'" + g.id + "' is already the id of an earlier GPU in this file ('" + earlier.id +
                              "'; ids match ignoring case)");
                break;
            }
        out.gpus.push_back(std::move(g));
    }
}

void read_providers_section(const YAML::Node& node, YamlContext& ctx, Catalog& out,
                            std::vector<TableRef>& tables) {
    if (!ctx.expect_sequence(node, "providers")) return;
    std::map<std::string, std::size_t> seen;  // lower-case id -> index of its first provider
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("providers", i);
        const YAML::Node& n = node[i];
        if (!ctx.expect_map(n, path)) continue;
        ctx.check_keys(n, path,
                       {"id", "name", "currency", "kind", "network_gbps", "rdma", "rdma_gbps", "images",
                        "features", "driver_version", "as_of", "source", "offers", "tables", "billing", "pue",
                        "pue_source", "marketplace", "single_node"});
        Provider p;
        p.where = ctx.where(n);
        p.id = ctx.text(n, path, "id", true).value_or("");
        // Ids match ignoring case everywhere (--provider, jobs files): two of one file must differ otherwise.
        if (n["id"].IsScalar() && p.id.find_first_not_of(" \t") == std::string::npos)
            ctx.error(n["id"], key_path(path, "id"),
                      "the provider id is empty; give the id used in --provider");
        else if (n["id"].IsScalar()) {
            const auto [first, inserted] = seen.emplace(to_lower(p.id), i);
            if (!inserted)
                ctx.error(n["id"], key_path(path, "id"),
                          "'" + p.id + "' is already the id of an earlier provider in this file (providers[" +
                              std::to_string(first->second) + "], '" + node[first->second]["id"].Scalar() +
                              "'; ids match ignoring case); give each provider its own id, or merge the two");
        }
        p.name = ctx.text(n, path, "name").value_or(p.id);
        p.currency = ctx.text(n, path, "currency").value_or("USD");
        check_currency_code(ctx, n, path, p.currency);
        set_kind(p, ctx.text(n, path, "kind").value_or("public"));
        p.network_gbps = ctx.number(n, path, "network_gbps", false, 0, 1e6);
        p.rdma = ctx.boolean(n, path, "rdma").value_or(false);
        p.rdma_gbps = ctx.number(n, path, "rdma_gbps", false, 0, 1e6);
        p.marketplace = ctx.boolean(n, path, "marketplace").value_or(false);
        p.single_node = ctx.text(n, path, "single_node").value_or("");
        p.images = ctx.text_list(n, path, "images");
        p.features = ctx.text_list(n, path, "features");
        p.driver_version = ctx.text(n, path, "driver_version");
        p.as_of = date_text(ctx, n, path, "as_of", true, true).value_or("");
        p.source = ctx.text(n, path, "source", true).value_or("");
        if (YAML::Node b = n["billing"]; b.IsDefined() && !b.IsNull())
            read_billing(b, ctx, key_path(path, "billing"), p.billing);
        p.pue = ctx.number(n, path, "pue", false, 1, 5);
        p.pue_source = ctx.text(n, path, "pue_source", p.pue.has_value()).value_or("");
        if (YAML::Node offers = n["offers"]; offers.IsDefined() && !offers.IsNull()) {
            const std::string opath = key_path(path, "offers");
            if (ctx.expect_sequence(offers, opath))
                for (std::size_t j = 0; j < offers.size(); ++j) {
                    const std::string op = index_path(opath, j);
                    if (ctx.expect_map(offers[j], op))
                        out.offers.push_back(read_offer(offers[j], ctx, op, p));
                }
        }
        if (YAML::Node t = n["tables"]; t.IsDefined() && !t.IsNull()) {
            const std::string tpath = key_path(path, "tables");
            if (ctx.expect_sequence(t, tpath))
                for (std::size_t j = 0; j < t.size(); ++j) {
                    const std::string tp = index_path(tpath, j);
                    if (!ctx.expect_map(t[j], tp)) continue;
                    ctx.check_keys(t[j], tp, {"format", "path"});
                    TableRef ref;
                    ref.provider = p.id;
                    ref.format = ctx.text(t[j], tp, "format", true).value_or("");
                    ref.path = ctx.text(t[j], tp, "path", true).value_or("");
                    ref.where = ctx.where(t[j]);
                    if (!ref.format.empty() && ref.format != "skypilot" &&
                        !is_commitment_table_format(ref.format))
                        ctx.error(t[j]["format"], key_path(tp, "format"),
                                  "unknown table format '" + ref.format +
                                      "'; expected 'skypilot', 'gcp-pricing' or 'commitments-csv'");
                    tables.push_back(ref);
                }
        }
        out.providers.push_back(std::move(p));
    }
}

void read_rates_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "rates")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("rates", i);
        if (!ctx.expect_map(node[i], path)) continue;
        ctx.check_keys(node[i], path, {"currency", "usd_per_unit", "as_of", "source"});
        ExchangeRate r;
        r.currency = ctx.text(node[i], path, "currency", true).value_or("");
        if (node[i]["currency"].IsDefined()) check_currency_code(ctx, node[i], path, r.currency);
        r.usd_per_unit = ctx.number(node[i], path, "usd_per_unit", true, 1e-9, 1e9).value_or(0);
        r.as_of = date_text(ctx, node[i], path, "as_of", true).value_or("");
        r.source = ctx.text(node[i], path, "source", true).value_or("");
        out.rates.push_back(r);
    }
}

void read_policy_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_map(node, "policy")) return;
    ctx.check_unique_keys(node, "policy");
    std::vector<std::string> names;
    for (const auto& k : policy_keys()) names.emplace_back(k.name);
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
        const PolicyKey* spec = nullptr;
        for (const auto& k : policy_keys())
            if (k.name == key) spec = &k;
        auto value = ctx.as_number(it->second, key_path("policy", key), spec ? spec->min : -1e12,
                                   spec ? spec->max : 1e12);
        if (!value) continue;
        if (!out.policy.set(key, *value)) {
            std::string message = "unknown policy key '" + key + "'";
            if (auto best = closest_match(key, names)) message += "; did you mean '" + *best + "'?";
            ctx.error(it->first, "policy", message);
        }
    }
}

void read_instance_networks_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "instance_networks")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("instance_networks", i);
        const YAML::Node& n = node[i];
        if (!ctx.expect_map(n, path)) continue;
        ctx.check_keys(n, path, {"provider", "instance_type", "gbps", "kind", "source"});
        InstanceNetwork x;
        x.provider = ctx.text(n, path, "provider", true).value_or("");
        x.instance_type = ctx.text(n, path, "instance_type", true).value_or("");
        if (n["instance_type"].IsDefined() && x.instance_type.empty())
            ctx.error(n["instance_type"], key_path(path, "instance_type"),
                      "empty instance_type; give the instance family's prefix, e.g. 'p5.48xlarge' or 'a2-'");
        const auto gbps = ctx.number(n, path, "gbps", true, 0, 1e6);
        x.gbps = gbps.value_or(0);
        if (gbps && *gbps <= 0)
            ctx.error(n["gbps"], key_path(path, "gbps"),
                      "gbps must be above 0 (Gbit/s per node); leave the row out when unknown");
        if (auto kind = ctx.text(n, path, "kind", true)) {
            if (auto k = kNetworkKindNames.parse(*kind))
                x.kind = *k;
            else
                ctx.error(n["kind"], key_path(path, "kind"),
                          "unknown network kind '" + *kind + "'; expected one of " +
                              join(kNetworkKindNames.names(), ", "));
        }
        x.source = ctx.text(n, path, "source", true).value_or("");
        out.networks.push_back(std::move(x));
    }
}

// `grid_carbon: [{provider, source, regions: {REGION: gCO2e per kWh, …}}]`.
void read_grid_carbon_section(const YAML::Node& node, YamlContext& ctx, Catalog& out) {
    if (!ctx.expect_sequence(node, "grid_carbon")) return;
    for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string path = index_path("grid_carbon", i);
        const YAML::Node& n = node[i];
        if (!ctx.expect_map(n, path)) continue;
        ctx.check_keys(n, path, {"provider", "source", "regions"});
        const std::string provider = ctx.text(n, path, "provider", true).value_or("");
        const std::string source = ctx.text(n, path, "source", true).value_or("");
        const YAML::Node regions = n["regions"];
        const std::string rpath = key_path(path, "regions");
        if (!regions.IsDefined()) {
            ctx.error(n, path, "missing required key 'regions' (a map of region: gCO2e per kWh)");
            continue;
        }
        if (!ctx.expect_map(regions, rpath)) continue;
        ctx.check_unique_keys(regions, rpath);
        for (auto it = regions.begin(); it != regions.end(); ++it) {
            const std::string region = it->first.IsScalar() ? it->first.Scalar() : "";
            auto value = ctx.as_number(it->second, key_path(rpath, region), 0, 5000);
            if (!value) continue;
            out.grid_carbon.push_back({provider, region, *value, source});
        }
    }
}

}  // namespace gpuadvise::io
