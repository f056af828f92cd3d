#include "gpuadvise/catalog_lint.hpp"

#include <map>
#include <set>
#include <tuple>

#include "gpuadvise/dates.hpp"

namespace gpuadvise {
namespace {

std::string money(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

}  // namespace

Diagnostics lint_catalog(const Catalog& catalog, std::string_view today) {
    Diagnostics d;
    const double hours_per_month = catalog.policy.get("hours_per_month");
    const double max_age = catalog.policy.get("max_price_age_days");
    const auto today_days = parse_iso_date(today);

    std::set<std::string> missing_rates;
    for (const auto& p : catalog.providers)
        if (p.currency != "USD" && !catalog.rate_for(p.currency) && missing_rates.insert(p.currency).second)
            d.error(p.where, "provider '" + p.id + "': no exchange rate for currency '" + p.currency +
                                 "'; add it under 'rates:' with usd_per_unit, as_of and source");

    std::set<std::tuple<std::string, std::string, int, std::string, std::string>> seen;
    std::map<std::string, long> stale_by_provider;
    std::map<std::string, SourceLocation> stale_where;
    for (const auto& o : catalog.offers) {
        const std::string what = o.provider + " " + o.gpu + " x" + std::to_string(o.gpu_count) +
                                 (o.region.empty() ? "" : " in " + o.region);
        if (o.on_demand_per_hour && o.spot_per_hour && *o.spot_per_hour >= *o.on_demand_per_hour &&
            *o.spot_per_hour > 0)
            d.warning(o.where, what + ": spot price " + money(*o.spot_per_hour) + " is not below on-demand " +
                                   money(*o.on_demand_per_hour));
        if (o.on_demand_per_hour && o.reserved_per_month &&
            *o.reserved_per_month >= hours_per_month * *o.on_demand_per_hour && *o.on_demand_per_hour > 0)
            d.warning(o.where, what + ": reserved " + money(*o.reserved_per_month) + "/month costs more than " +
                                   money(hours_per_month) + " h of on-demand");
        for (auto [name, price] : {std::pair{"on_demand_per_hour", o.on_demand_per_hour},
                                   std::pair{"reserved_per_month", o.reserved_per_month},
                                   std::pair{"spot_per_hour", o.spot_per_hour}})
            if (price && *price == 0) d.warning(o.where, what + ": " + name + " is 0");
        if (!seen.insert({o.provider, o.gpu, o.gpu_count, o.region, o.instance_type}).second)
            d.warning(o.where, what + (o.instance_type.empty() ? "" : " (" + o.instance_type + ")") +
                                   ": duplicate offer");
        if (today_days) {
            auto as_of = parse_iso_date(o.as_of);
            if (!as_of) {
                d.warning(o.where, what + ": as_of '" + o.as_of + "' is not a YYYY-MM-DD date");
            } else if (static_cast<double>(*today_days - *as_of) > max_age) {
                if (stale_by_provider[o.provider]++ == 0) stale_where[o.provider] = o.where;
            }
        }
    }
    for (const auto& [provider, count] : stale_by_provider)
        d.warning(stale_where[provider], "provider '" + provider + "': " + std::to_string(count) +
                                             " price(s) older than " + money(max_age) +
                                             " days (policy max_price_age_days); re-check them before relying on them");
    return d;
}

}  // namespace gpuadvise
