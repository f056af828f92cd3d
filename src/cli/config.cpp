#include "cli/config.hpp"
#include "cli/option_checks.hpp"

#include <algorithm>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise::cli {
namespace {

void all_commands(CLI::App& app, std::vector<CLI::App*>& out) {
    out.push_back(&app);
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) all_commands(*sub, out);
}

std::string located(const SourceLocation& w) {
    return w.file + ":" + std::to_string(w.line) + ":" + std::to_string(w.column);
}

[[noreturn]] void bad_value(const io::UserSetting& s, const std::string& message, std::size_t item = 0) {
    const SourceLocation where = item < s.value_where.size() ? s.value_where[item] : s.where;
    throw DataError("the configuration file " + s.where.file + " has errors",
                    {Diagnostic{Severity::error, where, s.key + ": " + message}},
                    "fix the value, or remove the line to use the default (gpuadvise config show)");
}

// The ids of a providers / exclude_providers setting must name providers of the catalog.
void check_provider_ids(const Catalog& catalog, const io::UserSetting& s) {
    std::vector<std::string> ids;
    for (const auto& p : catalog.providers) ids.push_back(p.id);
    for (std::size_t i = 0; i < s.values.size(); ++i)
        if (!catalog.find_provider(s.values[i])) {
            auto best = closest_match(s.values[i], ids);
            bad_value(
                s, "unknown provider '" + s.values[i] + "'" + (best ? "; did you mean '" + *best + "'?" : ""),
                i);
        }
}

}  // namespace

std::string option_for_key(std::string_view key) {
    if (key == "currency") return "--currency";
    if (key == "objective") return "--objective";
    if (key == "top") return "--top";
    if (key == "providers") return "--provider";
    return "";
}

void apply_user_config(CLI::App& root, const CLI::App& chosen, Context& ctx) {
    const auto location = io::user_config_location();
    const io::UserConfig config = io::load_user_config(location);
    std::vector<CLI::App*> commands;
    all_commands(root, commands);
    // Given on the command line: the chosen command's --provider (it also lifts exclude_providers).
    std::vector<std::string> asked_providers;
    for (CLI::App* a : commands)
        if (a == &chosen || a->get_parent() == &chosen)
            if (CLI::Option* o = a->get_option_no_throw("--provider"); o && o->count() > 0)
                for (const auto& r : o->results()) asked_providers.push_back(r);
    if (CLI::Option* c = root.get_option_no_throw("--currency"); c && c->count() > 0)
        ctx.global.setting_origins["currency"] = {SettingSource::command_line, {}};

    for (const io::UserSetting& s : config.settings) {
        const std::string option = option_for_key(s.key);
        if (option.empty()) continue;
        for (CLI::App* a : commands) {
            CLI::Option* o = a->get_option_no_throw(option);
            if (!o || o->count() > 0) continue;  // the command line wins
            // The option's own checks, in their words: "top: 0 is out of range; expected 1 to 1000".
            for (std::size_t i = 0; i < s.values.size(); ++i)
                if (std::string why = option_value_problem(*o, s.values[i]); !why.empty())
                    bad_value(s, why, i);
            try {
                for (const auto& v : s.values) o->add_result(v);
                o->run_callback();
            } catch (const CLI::Error& e) {
                bad_value(s, e.what());
            }
        }
        if (!ctx.global.setting_origins.count(s.key))
            ctx.global.setting_origins[s.key] = {SettingSource::config_file, located(s.where)};
    }
    const io::UserSetting* include = config.find("providers");
    const io::UserSetting* exclude = config.find("exclude_providers");
    const io::UserSetting* currency = config.find("currency");
    if (exclude)
        ctx.global.setting_origins["exclude_providers"] = {SettingSource::config_file,
                                                           located(exclude->where)};
    if (CLI::Option* c = root.get_option_no_throw("--currency");
        currency && c && c->count() > 0 &&
        ctx.global.setting_origins.at("currency").source == SettingSource::command_line)
        currency = nullptr;  // the command line's currency is checked as an option
    if (!include && !exclude && !currency) return;
    const bool filter = chosen.get_name() != "catalog";
    std::vector<std::string> dropped;
    if (exclude)
        for (const auto& id : exclude->values)
            if (std::find(asked_providers.begin(), asked_providers.end(), id) == asked_providers.end())
                dropped.push_back(id);
    std::optional<io::UserSetting> inc, exc, cur;
    if (include) inc = *include;
    if (exclude) exc = *exclude;
    if (currency) cur = *currency;
    ctx.global.catalog_filter = [inc, exc, cur, dropped, filter](Catalog& catalog) {
        if (inc) check_provider_ids(catalog, *inc);
        if (exc) check_provider_ids(catalog, *exc);
        if (cur && to_lower(cur->values.front()) != "usd" && !catalog.rate_for(cur->values.front())) {
            std::vector<std::string> known{"USD"};
            for (const auto& r : catalog.rates) known.push_back(r.currency);
            bad_value(*cur, "no exchange rate for '" + cur->values.front() +
                                "' in the catalog; known: " + join(known, ", "));
        }
        if (!filter || dropped.empty()) return;
        std::erase_if(catalog.offers, [&](const Offer& o) {
            return std::find(dropped.begin(), dropped.end(), o.provider) != dropped.end();
        });
    };
}

}  // namespace gpuadvise::cli
