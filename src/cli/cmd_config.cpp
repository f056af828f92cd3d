// gpuadvise config show: the settings the configuration file can hold, their effective values and
// where each came from (default, the file with its line, the command line).
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {
namespace {

CLI::App& config_root(CLI::App& sub) {
    CLI::App* a = &sub;
    while (a->get_parent()) a = a->get_parent();
    return *a;
}

// The value an option has when neither the file nor the command line sets it (its bound variable
// is untouched in this run: `config show` parses no other command).
std::string default_of(CLI::App& root, const std::string& option) {
    for (CLI::App* sub : root.get_subcommands([](CLI::App*) { return true; }))
        if (CLI::Option* o = sub->get_option_no_throw(option)) {
            o->capture_default_str();
            std::string d = o->get_default_str();
            return d == "[]" ? "" : d;
        }
    return "";
}

int run_config_show(Context& ctx, CLI::App& root) {
    (void)ctx.catalog();  // checks the file's provider ids and currency against the catalog (cli/config.cpp)
    const auto location = io::user_config_location();
    const io::UserConfig config = io::load_user_config(location);  // the same file apply_user_config read
    std::error_code ec;
    const bool exists = location && std::filesystem::exists(location->path, ec);

    auto json = json_document();
    nlohmann::ordered_json file = nlohmann::ordered_json::object();
    file["path"] = location ? nlohmann::ordered_json(location->path) : nlohmann::ordered_json(nullptr);
    file["exists"] = exists;
    file["from"] = location ? nlohmann::ordered_json(location->from == io::ConfigSource::gpuadvise_config ? "environment GPUADVISE_CONFIG"
                                                     : location->from == io::ConfigSource::xdg_config_home ? "environment XDG_CONFIG_HOME"
                                                                                                            : "default ($HOME/.config)")
                            : nlohmann::ordered_json(nullptr);
    json["config_file"] = file;

    io::TextTable table;
    table.title = "Settings";
    table.columns = {{"KEY"}, {"VALUE"}, {"FROM"}};
    nlohmann::ordered_json settings = nlohmann::ordered_json::array();
    for (const auto& key : io::user_config_keys()) {
        const std::string k(key.key);
        const io::UserSetting* s = config.find(k);
        const auto origin = ctx.global.setting_origins.find(k);
        const bool in_config = origin != ctx.global.setting_origins.end() && origin->second.source == SettingSource::config_file;
        const std::string from = origin == ctx.global.setting_origins.end() ? "default"
                                 : in_config                                ? "config " + origin->second.where
                                                                            : "command line";
        std::vector<std::string> values;
        if (k == "currency") values = {ctx.currency()};
        else if (s && in_config) values = s->values;
        else if (std::string d = default_of(root, option_for_key(k)); !d.empty()) values = {d};
        nlohmann::ordered_json j;
        j["key"] = k;
        j["value"] = key.list ? nlohmann::ordered_json(values)
                              : values.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(values.front());
        j["from"] = in_config ? "config" : from;
        j["where"] = in_config ? nlohmann::ordered_json(origin->second.where) : nlohmann::ordered_json(nullptr);
        j["meaning"] = std::string(key.meaning);
        settings.push_back(j);
        std::string shown = join(values, ", ");
        if (shown.empty()) shown = k == "providers" ? "(all)" : "(none)";
        table.rows.push_back({k, shown, from});
    }
    json["settings"] = settings;

    io::TextDocument doc;
    doc.lead.push_back("Configuration file: " + (location ? location->path + (exists ? "" : " (none there)") : "(none: HOME is not set)") +
                       (location ? ", from " + file["from"].get<std::string>() : ""));
    doc.tables.push_back(table);
    doc.notes.push_back("Command-line options override the file; 'Configuration file' in docs/usage.md lists the keys.");
    ctx.emit(json, doc);
    return 0;
}

}  // namespace

Runner setup_config(CLI::App& sub) {
    sub.require_subcommand(1);
    CLI::App* show = sub.add_subcommand("show", "Print each setting, its effective value and where it came from");
    show->fallthrough();
    sub.footer("Examples:\n  gpuadvise config show\n  gpuadvise --currency EUR config show --json\n\n"
               "The file is $XDG_CONFIG_HOME/gpuadvise/config.yaml (~/.config/gpuadvise/config.yaml), or the "
               "one GPUADVISE_CONFIG names. Keys: currency, objective, top, providers, exclude_providers.");
    CLI::App* self = &sub;
    return [self](Context& ctx) { return run_config_show(ctx, config_root(*self)); };
}

}  // namespace gpuadvise::cli
