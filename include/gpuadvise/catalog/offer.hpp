// Providers and their offers: what can be rented, where, at which prices.
#pragma once

#include <compare>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/base/names.hpp"
#include "gpuadvise/base/source_location.hpp"
#include "gpuadvise/catalog/commitment.hpp"

namespace gpuadvise {

enum class Plan { on_demand, reserved, spot };
// JSON and parsing spell it "on_demand" (parse also reads "on-demand"); text shows plan_label().
inline constexpr NameTable<Plan, 3> kPlanNames{
    {{{Plan::on_demand, "on_demand"}, {Plan::reserved, "reserved"}, {Plan::spot, "spot"}}}};
inline constexpr NameTable<Plan, 3> kPlanLabels{
    {{{Plan::on_demand, "on-demand"}, {Plan::reserved, "reserved"}, {Plan::spot, "spot"}}}};

const char* to_string(Plan p);  // "on_demand", "reserved", "spot"
// The spelling in text output and CLI choices: "on-demand", "reserved", "spot".
inline std::string_view plan_label(Plan p) { return kPlanLabels.name(p); }
// "on-demand"/"on_demand", "reserved", "spot"; nullopt for anything else (never a guess).
inline std::optional<Plan> parse_plan(std::string_view text) { return kPlanLabels.parse(text); }

// example: from the source document (anonymised quotes); public: real list prices; placeholder:
// prices that are not real quotes (listed, never recommended); other: the catalog's own word
// ("private"), kept in Provider::custom_kind.
enum class ProviderKind { example, public_prices, placeholder, other };
inline constexpr NameTable<ProviderKind, 3> kProviderKindNames{
    {{{ProviderKind::example, "example"},
      {ProviderKind::public_prices, "public"},
      {ProviderKind::placeholder, "placeholder"}}}};

// Where a provider's prices were read from: the catalog files (built-in or the user's), the cache of
// `catalog update`, or SkyPilot's own downloads in ~/.sky/catalogs.
enum class PriceOrigin { catalog, update_cache, sky_local_copy };

// How a provider bills a running instance (catalog key `billing`, docs/catalog.md); unset = unknown,
// and the cost model then assumes the policy's default increment and says so.
struct BillingTerms {
    std::optional<int> increment_seconds;       // 1 = per second, 60 = per minute, 3600 = per hour
    std::optional<int> minimum_seconds;         // the least billed per start of an instance
    std::optional<bool> stopped_bills_storage;  // a stopped instance still pays for its disks
    std::string source;

    bool operator==(const BillingTerms&) const = default;
};

struct Provider {
    std::string id;        // "aws", "provider-c"
    std::string name;      // display name
    std::string currency;  // ISO 4217 code of its prices
    ProviderKind kind = ProviderKind::public_prices;
    std::optional<double> network_gbps;  // between nodes
    bool rdma = false;
    std::optional<double> rdma_gbps;
    // A marketplace of independent hosts (vast.ai): the nodes of a multi-node option are separate
    // machines, so a network the catalog does not state is assumed to be the hosts' ordinary Ethernet.
    bool marketplace = false;
    // Non-empty: the provider runs no job over several nodes (one VM or sandbox each); its source.
    std::string single_node;
    std::vector<std::string> images;            // preinstalled images: "pytorch", "cuda"
    std::vector<std::string> features;          // free text: "free data migration"
    std::optional<std::string> driver_version;  // host driver when known
    std::string as_of;
    std::string source;
    SourceLocation where;
    std::string custom_kind;  // kind == other: the word the catalog used
    PriceOrigin origin = PriceOrigin::catalog;
    BillingTerms billing;
    std::optional<double> pue;  // the data centres' published power usage effectiveness (fleet figure)
    std::string pue_source;

    bool operator==(const Provider&) const = default;
};

// Example (the guide's anonymised quotes) and placeholder providers cannot be rented as listed:
// recommend, compare and offers leave them out unless asked (--include-examples).
inline bool is_rentable(const Provider* p) {
    return !p || (p->kind != ProviderKind::example && p->kind != ProviderKind::placeholder);
}

// The kind as the catalog spells it: "public", "example", "placeholder" or its own word.
inline std::string kind_name(const Provider& p) {
    return p.kind == ProviderKind::other ? p.custom_kind : std::string(kProviderKindNames.name(p.kind));
}
// Sets kind (and custom_kind for a word outside the table).
inline void set_kind(Provider& p, std::string_view word) {
    if (auto k = kProviderKindNames.parse(word)) {
        p.kind = *k;
        p.custom_kind.clear();
    } else {
        p.kind = ProviderKind::other;
        p.custom_kind = std::string(word);
    }
}

// One rentable configuration: provider x GPU x count x region. Prices are for the whole offer
// (all its GPUs) in the offer's currency; nullopt where that plan does not exist.
// Laid out for a million rows: the per-table strings are shared (SharedText), the rest is inline.
struct Offer {
    SharedText provider;
    std::string gpu;  // canonical GPU id
    std::string region;
    std::string instance_type;
    SharedText currency = usd_text();
    std::optional<double> on_demand_per_hour;
    std::optional<double> reserved_per_month;
    std::optional<double> spot_per_hour;
    std::optional<double> vcpus;
    std::optional<double> ram_gb;
    std::optional<double> local_disk_gb;
    SharedText as_of;  // ISO date of the prices
    SharedText source;
    // e.g. "GPU-only price: host VM not included" (the snapshot shares equal ones)
    std::vector<SharedText> notes;
    SourceLocation where;
    // 1-month, 1-year, 3-year … plans (reserved_per_month is one of 1 month)
    std::vector<Commitment> commitments;
    // Beside the flags, so that it takes no padding of its own (8 bytes an offer: 8 MB a million).
    int gpu_count = 1;
    bool variant_assumed =
        false;  // the table did not tell the GPU variant: the family's most conservative one (a note says which)
    bool price_complete =
        true;  // false: the price is known to be partial (GCP's GPU-only rows: the host VM is extra)

    std::optional<double> price(Plan p) const;
    bool operator==(const Offer&) const = default;
    static const SharedText& usd_text() {
        static const SharedText usd("USD");
        return usd;
    }
};

}  // namespace gpuadvise
