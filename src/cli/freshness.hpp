// Freshness of what a command shows: prices older than the policy age (or of unknown date) and the
// exchange rates used, for recommend and compare (offers has its own line). Warnings go to stderr
// and into the JSON's "warnings"; the JSON gets a "rates" list and text output a line per rate.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise::cli {

struct Freshness {
    std::vector<std::string> warnings;  // stale prices (per provider) and stale rates
    nlohmann::ordered_json rates = nlohmann::ordered_json::array();  // {from, to, rate, as_of, source}
    std::vector<std::string> rate_lines;          // "1 CNY = 0.1376 USD (ECB ..., as of 2024-06-28)"
    std::vector<const ExchangeRate*> rates_used;  // the same rates, typed (the HTML report's)
};

// `shown`: the offers whose prices the output shows; `currency`: the output currency. Exchange rates
// are those converting the shown offers' currencies and the output currency through USD.
Freshness check_freshness(const Catalog& catalog, const std::vector<const Offer*>& shown,
                          const std::string& currency, const std::string& today);

// Appends the warnings to json["warnings"] (an array, created when missing), sets json["rates"], adds
// the rate lines to the text notes, and prints the warnings on stderr.
void apply_freshness(Context& ctx, const Freshness& f, nlohmann::ordered_json& json, io::TextDocument& doc);
// Its parts, for a command that builds only the output it prints (the stderr lines: warn_freshness).
void add_freshness(const Freshness& f, nlohmann::ordered_json& json);
void add_freshness(const Freshness& f, io::TextDocument& doc);
void warn_freshness(Context& ctx, const Freshness& f);

// A catalog price as JSON, exactly as read (no rounding: 21.95764 stays 21.95764); null for nullopt.
// Computed figures keep json_number's rounding.
inline nlohmann::ordered_json json_price(const std::optional<double>& v) {
    if (!v) return nullptr;
    return *v;
}

}  // namespace gpuadvise::cli
