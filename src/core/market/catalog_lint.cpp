#include "gpuadvise/market/catalog_lint.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/hash_index.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise {
namespace {

std::string money(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// Offers that are the same (provider, GPU, count, region, instance type): compared in place, no copies.
struct SameOfferHash {
    std::size_t operator()(const Offer* o) const {
        std::size_t seed = static_cast<std::size_t>(o->gpu_count);
        for (std::string_view part : {std::string_view(o->provider), std::string_view(o->gpu),
                                      std::string_view(o->region), std::string_view(o->instance_type)})
            seed = hash_combine(seed, hash_text(part));
        return seed;
    }
};
struct SameOffer {
    bool operator()(const Offer* a, const Offer* b) const {
        return a->gpu_count == b->gpu_count && a->provider == b->provider && a->gpu == b->gpu &&
               a->region == b->region && a->instance_type == b->instance_type;
    }
};

// True for each offer that repeats an earlier one (the first occurrence is not flagged): a HashIndex
// of the offers, no allocation per offer.
std::vector<bool> later_duplicates(const std::vector<Offer>& offers) {
    std::vector<std::size_t> hashes(offers.size());
    for (std::size_t i = 0; i < offers.size(); ++i) hashes[i] = SameOfferHash{}(&offers[i]);
    HashIndex index;
    index.reserve(offers.size(), [&](std::uint32_t e) { return hashes[e]; });
    std::vector<bool> duplicate(offers.size(), false);
    for (std::size_t i = 0; i < offers.size(); ++i) {
        const HashIndex::Probe at = index.probe(hashes[i], [&](std::uint32_t e) {
            return hashes[e] == hashes[i] && SameOffer{}(&offers[e], &offers[i]);
        });
        if (at.found)
            duplicate[i] = true;
        else
            index.put(at, hashes[i], static_cast<std::uint32_t>(i));
    }
    return duplicate;
}

// GPU ids and names must resolve to one GPU each: an id is non-empty, has no ':' (the --gpu syntax
// separator) and is unique ignoring case; an alias belongs to one GPU and is neither another GPU's id
// nor the family name of other GPUs (it would take over the family: every offer naming it remapped).
void lint_gpu_names(const Catalog& catalog, Diagnostics& d) {
    std::map<std::string, const Gpu*> by_id;
    std::map<std::string, std::vector<const Gpu*>> by_family;
    for (const auto& g : catalog.gpus) {
        by_family[to_lower(g.family)].push_back(&g);
        if (g.id.empty()) {
            d.error({},
                    "gpus: a GPU has an empty id" + (g.name.empty() ? std::string() : " (" + g.name + ")"));
            continue;
        }
        if (g.id.find(':') != std::string::npos)
            d.error({}, "gpus: id '" + g.id +
                            "' contains ':', which separates the parts of a --gpu request; use '-'");
        auto [it, fresh] = by_id.emplace(to_lower(g.id), &g);
        if (!fresh)
            d.error({}, "gpus: ids '" + it->second->id + "' and '" + g.id +
                            "' are the same ignoring case; ids must be unique");
    }
    std::map<std::string, const Gpu*> by_alias;
    for (const auto& g : catalog.gpus)
        for (const auto& a : g.aliases) {
            const std::string key = to_lower(a);
            if (auto it = by_id.find(key); it != by_id.end() && it->second != &g)
                d.error({},
                        "gpus: alias '" + a + "' of '" + g.id + "' is the id of '" + it->second->id + "'");
            if (auto it = by_family.find(key); it != by_family.end())
                for (const Gpu* other : it->second)
                    if (other != &g) {
                        d.error({},
                                "gpus: alias '" + a + "' of '" + g.id + "' is the family name of '" +
                                    other->id +
                                    "' (it would take over the whole family); remove the alias or rename it");
                        break;
                    }
            auto [it, fresh] = by_alias.emplace(key, &g);
            if (!fresh && it->second != &g)
                d.error({}, "gpus: alias '" + a + "' belongs to both '" + it->second->id + "' and '" + g.id +
                                "'");
        }
}

}  // namespace

Diagnostics lint_catalog(const Catalog& catalog, std::string_view today,
                         const std::vector<PrunedOffers>& pruned, LintChecks checks) {
    Diagnostics d;
    const bool undated = checks != LintChecks::dated, dated = checks != LintChecks::undated;
    if (undated) lint_gpu_names(catalog, d);
    // A calibration point is used only for its model on its GPU: one naming neither is never used.
    if (undated)
        for (const auto& c : catalog.calibration) {
            const bool gpu_known = std::any_of(catalog.gpus.begin(), catalog.gpus.end(),
                                               [&](const Gpu& g) { return g.id == c.gpu; });
            const bool model_known = std::any_of(catalog.models.begin(), catalog.models.end(),
                                                 [&](const ModelPreset& m) { return m.id == c.model; });
            if (!model_known)
                d.warning(c.where,
                          "calibration: model '" + c.model + "' is not a model preset; the point is not used",
                          DiagnosticKind::unused_calibration);
            else if (!gpu_known)
                d.warning(c.where,
                          "calibration: GPU '" + c.gpu + "' is not in the catalog; the point is not used",
                          DiagnosticKind::unused_calibration);
        }
    const double hours_per_month = catalog.policy.get("hours_per_month");
    const double max_age = catalog.policy.get("max_price_age_days");
    const auto today_days = parse_iso_date(dated ? today : std::string_view());

    std::set<std::string> missing_rates;
    if (dated)
        for (const auto& p : catalog.providers)
            if (p.currency != "USD" && !catalog.rate_for(p.currency) &&
                missing_rates.insert(p.currency).second)
                d.error(p.where, "provider '" + p.id + "': no exchange rate for currency '" + p.currency +
                                     "'; add it under 'rates:' with usd_per_unit, as_of and source");

    // Runs on every load, so the common case (no warning) allocates nothing per offer: duplicates
    // are found through a table of key hashes, comparing offers only when the hashes are equal.
    std::vector<bool> duplicate;
    if (undated) duplicate = later_duplicates(catalog.offers);
    std::map<std::string, long> stale_by_provider, future_by_provider;
    std::map<std::string, SourceLocation> stale_where, future_where;
    std::map<std::string, long> unknown_by_provider;
    std::map<std::string, SourceLocation> unknown_where;
    bool parsed_as_of = false;  // offers of one table share their as_of: parse it once
    SharedText last_as_of;      // the offers of a table share their as_of text: compared by storage first
    std::optional<long> last_as_of_days;
    for (std::size_t i = 0; i < catalog.offers.size(); ++i) {
        const Offer& o = catalog.offers[i];
        auto what_text = [&] {
            return o.provider + " " + o.gpu + " x" + std::to_string(o.gpu_count) +
                   (o.region.empty() ? "" : " in " + o.region);
        };
        if (undated) {  // the checks of the catalog alone (LintChecks)
            if (o.on_demand_per_hour && o.spot_per_hour && *o.spot_per_hour >= *o.on_demand_per_hour &&
                *o.spot_per_hour > 0)
                d.warning(o.where,
                          what_text() + ": spot price " + money(*o.spot_per_hour) +
                              " is not below on-demand " + money(*o.on_demand_per_hour),
                          DiagnosticKind::price_inconsistency);
            if (o.on_demand_per_hour && o.reserved_per_month &&
                *o.reserved_per_month >= hours_per_month * *o.on_demand_per_hour && *o.on_demand_per_hour > 0)
                d.warning(o.where,
                          what_text() + ": reserved " + money(*o.reserved_per_month) +
                              "/month costs more than " + money(hours_per_month) + " h of on-demand",
                          DiagnosticKind::price_inconsistency);
            for (const auto& k : o.commitments) {
                if (!prices_always_on(k)) continue;  // a capacity block: an hourly rate for a window, no term
                if (o.on_demand_per_hour && *o.on_demand_per_hour > 0 &&
                    k.price_per_month >= hours_per_month * *o.on_demand_per_hour &&
                    !(o.reserved_per_month && k.term_months == 1 &&
                      k.price_per_month == *o.reserved_per_month))  // warned above
                    d.warning(o.where,
                              what_text() + ": " + std::to_string(k.term_months) + "-month commitment " +
                                  money(k.price_per_month) + "/month costs more than " +
                                  money(hours_per_month) + " h of on-demand (it never pays off)",
                              DiagnosticKind::price_inconsistency);
                if (k.term_months <= 0)
                    d.error(o.where, what_text() + ": a commitment without a term (term_months)");
                if (k.discount && (*k.discount < 0 || *k.discount > 0.95))
                    d.error(o.where, what_text() + ": commitment discount " + money(100 * *k.discount) +
                                         " % is outside 0-95 %");
            }
            for (auto [name, price] : {std::pair{"on_demand_per_hour", o.on_demand_per_hour},
                                       std::pair{"reserved_per_month", o.reserved_per_month},
                                       std::pair{"spot_per_hour", o.spot_per_hour}})
                if (price && *price == 0)
                    d.warning(o.where, what_text() + ": " + name + " is 0", DiagnosticKind::zero_price);
            if (duplicate[i])
                d.warning(o.where,
                          what_text() + (o.instance_type.empty() ? "" : " (" + o.instance_type + ")") +
                              ": duplicate offer",
                          DiagnosticKind::duplicate_offer);
        }
        if (today_days) {
            if (!parsed_as_of || o.as_of != last_as_of) {
                parsed_as_of = true;
                last_as_of = o.as_of;
                last_as_of_days = parse_iso_date(o.as_of);
            }
            const auto& as_of = last_as_of_days;
            if (o.as_of.empty()) {  // as-of unknown (a table dated only by a file time): treated as stale
                if (unknown_by_provider[o.provider]++ == 0) unknown_where[o.provider] = o.where;
            } else if (!as_of) {
                d.warning(o.where, what_text() + ": as_of '" + o.as_of + "' is not a YYYY-MM-DD date",
                          DiagnosticKind::bad_date);
            } else if (*as_of > *today_days + 1) {  // a day of slack for time zones
                if (future_by_provider[o.provider]++ == 0) future_where[o.provider] = o.where;
            } else if (static_cast<double>(*today_days - *as_of) > max_age) {
                if (stale_by_provider[o.provider]++ == 0) stale_where[o.provider] = o.where;
            }
        }
    }
    // Offers a filter left out while reading (PrunedOffers): dated like the provider's others.
    for (const auto& p : pruned) {
        if (!today_days || p.offers <= 0) continue;
        const std::string provider = p.provider.str();
        auto tally = [&](std::map<std::string, long>& counts, std::map<std::string, SourceLocation>& where) {
            if (counts[provider] == 0 || p.first_is_first) where[provider] = p.first;
            counts[provider] += p.offers;
        };
        const auto as_of = parse_iso_date(p.as_of);
        if (p.as_of.empty())
            tally(unknown_by_provider, unknown_where);
        else if (!as_of)
            continue;  // never pruned (io keeps every offer of a table with a bad date: one warning each)
        else if (*as_of > *today_days + 1)
            tally(future_by_provider, future_where);
        else if (static_cast<double>(*today_days - *as_of) > max_age)
            tally(stale_by_provider, stale_where);
    }
    for (const auto& [provider, count] : future_by_provider)
        d.warning(future_where[provider],
                  "provider '" + provider + "': " + std::to_string(count) +
                      " price(s) dated after today (as_of in the future); check the date",
                  DiagnosticKind::future_prices);
    for (const auto& [provider, count] : stale_by_provider)
        d.warning(stale_where[provider],
                  "provider '" + provider + "': " + std::to_string(count) + " price(s) older than " +
                      money(max_age) +
                      " days (policy max_price_age_days); re-check them before relying on them",
                  DiagnosticKind::stale_prices);
    for (const auto& [provider, count] : unknown_by_provider)
        d.warning(unknown_where[provider],
                  "provider '" + provider + "': " + std::to_string(count) +
                      " price(s) of unknown date (as-of unknown: only a file time is known), "
                      "treated as stale; give --as-of DATE or run 'gpuadvise catalog update'",
                  DiagnosticKind::undated_prices);
    return d;
}

}  // namespace gpuadvise
