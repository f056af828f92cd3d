#include "cli/freshness.hpp"

#include <map>
#include <set>

#include "gpuadvise/base/dates.hpp"
#include "gpuadvise/base/text.hpp"
#include "io/text_table.hpp"

namespace gpuadvise::cli {

Freshness check_freshness(const Catalog& catalog, const std::vector<const Offer*>& shown,
                          const std::string& currency, const std::string& today) {
    Freshness f;
    const auto today_days = parse_iso_date(today);
    const double max_age = catalog.policy.get("max_price_age_days");
    const std::string age_text = io::fmt_number(max_age, 0);
    auto stale = [&](const std::string& as_of) {
        if (as_of.empty()) return true;  // as-of unknown: treated as stale
        const auto d = parse_iso_date(as_of);
        return today_days && d && static_cast<double>(*today_days - *d) > max_age;
    };
    std::map<std::string, std::pair<std::string, long>> by_provider;  // provider -> (oldest as_of, offers)
    std::set<std::string> currencies;
    for (const Offer* o : shown) {
        if (o->currency != "USD") currencies.insert(o->currency);
        if (!stale(o->as_of)) continue;
        auto [it, fresh] = by_provider.try_emplace(o->provider, o->as_of, 0);
        if (o->as_of < it->second.first) it->second.first = o->as_of;
        ++it->second.second;
    }
    for (const auto& [provider, v] : by_provider) {
        const auto& [as_of, n] = v;
        const std::string what = std::to_string(n) + " shown price" + (n == 1 ? "" : "s") + " of " + provider;
        f.warnings.push_back(as_of.empty()
                                 ? what + " of unknown date (as-of unknown), treated as older than " +
                                       age_text + " days; run 'gpuadvise catalog update' or give --as-of DATE"
                                 : what + " dated " + as_of + ", older than " + age_text +
                                       " days (policy max_price_age_days); run 'gpuadvise catalog update'");
    }
    if (to_lower(currency) != "usd") currencies.insert(currency);
    for (const std::string& code : currencies) {
        const ExchangeRate* r = catalog.rate_for(code);
        if (!r) continue;
        nlohmann::ordered_json j;
        j["from"] = r->currency;
        j["to"] = "USD";
        j["rate"] = r->usd_per_unit;
        j["as_of"] = r->as_of;
        j["source"] = r->source;
        f.rates.push_back(j);
        f.rates_used.push_back(r);
        f.rate_lines.push_back("Exchange rate: 1 " + r->currency + " = " +
                               io::fmt_number(r->usd_per_unit, 4) + " USD, as of " + r->as_of + "; source: " +
                               r->source);
        if (stale(r->as_of))
            f.warnings.push_back(
                "exchange rate " + r->currency + "/USD dated " + r->as_of + ", older than " + age_text +
                " days (policy max_price_age_days); run 'gpuadvise catalog update' to fetch the ECB rates");
    }
    return f;
}

void add_freshness(const Freshness& f, nlohmann::ordered_json& json) {
    if (!json.contains("warnings") || !json["warnings"].is_array())
        json["warnings"] = nlohmann::ordered_json::array();
    for (const auto& w : f.warnings) json["warnings"].push_back(w);
    json["rates"] = f.rates;
}

void add_freshness(const Freshness& f, io::TextDocument& doc) {
    for (const auto& l : f.rate_lines) doc.notes.push_back(l);
}

void warn_freshness(Context& ctx, const Freshness& f) {
    for (const auto& w : f.warnings) ctx.warn(w);
}

void apply_freshness(Context& ctx, const Freshness& f, nlohmann::ordered_json& json, io::TextDocument& doc) {
    add_freshness(f, json);
    add_freshness(f, doc);
    warn_freshness(ctx, f);
}

}  // namespace gpuadvise::cli
