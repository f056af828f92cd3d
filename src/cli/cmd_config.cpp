// gpuadvise config show: the settings the configuration file can hold, their effective values and
// where each came from (default, the file with its line, the command line).
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/text.hpp"

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

// One setting as config show reports it.
struct SettingRow {
    std::string key;
    std::vector<std::string> values;
    std::string from;  // "default", "config FILE:LINE:COLUMN", "command line"
    std::string meaning;
    bool list = false;
    bool in_config = false;  // set by the configuration file
    std::string where;       // FILE:LINE:COLUMN when in_config
};

// What run_config_show found; to_json and to_document render it (only the one printed is built).
struct ConfigReport {
    const std::optional<io::ConfigLocation>& location;
    bool exists = false;
    std::string from;  // where the file's path came from, in words
    std::vector<SettingRow> settings;
};

nlohmann::ordered_json to_json(const ConfigReport& report) {
    const auto& location = report.location;
    auto json = json_document();
    nlohmann::ordered_json file = nlohmann::ordered_json::object();
    file["path"] = location ? nlohmann::ordered_json(location->path) : nlohmann::ordered_json(nullptr);
    file["exists"] = report.exists;
    file["from"] = location ? nlohmann::ordered_json(report.from) : nlohmann::ordered_json(nullptr);
    json["config_file"] = file;
    nlohmann::ordered_json settings = nlohmann::ordered_json::array();
    for (const auto& row : report.settings) {
        const std::string& from = row.from;
        const auto& values = row.values;
        nlohmann::ordered_json j;
        j["key"] = row.key;
        j["value"] = row.list         ? nlohmann::ordered_json(values)
                     : values.empty() ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(values.front());
        j["from"] = row.in_config ? "config" : from;
        j["where"] = row.in_config ? nlohmann::ordered_json(row.where) : nlohmann::ordered_json(nullptr);
        j["meaning"] = row.meaning;
        settings.push_back(j);
    }
    json["settings"] = settings;
    return json;
}

io::TextDocument to_document(const ConfigReport& report) {
    const auto& location = report.location;
    io::TextTable table;
    table.title = "Settings";
    table.columns = {{"KEY"}, {"VALUE"}, {"FROM"}};
    for (const auto& row : report.settings) {
        std::string shown = join(row.values, ", ");
        if (shown.empty()) shown = row.key == "providers" ? "(all)" : "(none)";
        table.rows.push_back({row.key, shown, row.from});
    }
    io::TextDocument doc;
    doc.lead.push_back(
        "Configuration file: " +
        (location ? location->path + (report.exists ? "" : " (none there)") : "(none: HOME is not set)") +
        (location ? ", from " + report.from : ""));
    doc.tables.push_back(table);
    doc.notes.push_back(
        "Command-line options override the file; 'Configuration file' in docs/usage.md lists the keys.");
    return doc;
}

int run_config_show(Context& ctx, CLI::App& root) {
    (void)ctx.catalog();  // checks the file's provider ids and currency against the catalog (cli/config.cpp)
    const auto location = io::user_config_location();
    const io::UserConfig config = io::load_user_config(location);  // the same file apply_user_config read
    std::error_code ec;
    ConfigReport report{location, location && std::filesystem::exists(location->path, ec), "", {}};
    if (location)
        report.from = location->from == io::ConfigSource::gpuadvise_config  ? "environment GPUADVISE_CONFIG"
                      : location->from == io::ConfigSource::xdg_config_home ? "environment XDG_CONFIG_HOME"
                                                                            : "default ($HOME/.config)";
    for (const auto& key : io::user_config_keys()) {
        const std::string k(key.key);
        const io::UserSetting* s = config.find(k);
        const auto origin = ctx.global.setting_origins.find(k);
        const bool in_config =
            origin != ctx.global.setting_origins.end() && origin->second.source == SettingSource::config_file;
        const std::string from = origin == ctx.global.setting_origins.end() ? "default"
                                 : in_config                                ? "config " + origin->second.where
                                                                            : "command line";
        std::vector<std::string> values;
        if (k == "currency")
            values = {ctx.currency()};
        else if (s && in_config)
            values = s->values;
        else if (std::string d = default_of(root, option_for_key(k)); !d.empty())
            values = {d};
        report.settings.push_back({k, values, from, std::string(key.meaning), key.list, in_config,
                                   in_config ? origin->second.where : std::string()});
    }
    // --format csv/tsv: the tables of this output, the first by default (--section NAME; docs/json.md).
    static const std::vector<io::ExportSection> sections = {
        {"settings", "/settings", "", {}},
        {"config_file", "/config_file", "", {}},
    };
    ctx.emit([&] { return to_json(report); }, [&] { return to_document(report); }, sections);
    return 0;
}

}  // namespace

Runner setup_config(CommandApp& sub) {
    sub.require_subcommand(1);
    CLI::App* show =
        sub.add_subcommand("show", "Print each setting, its effective value and where it came from");
    show->fallthrough();
    const HelpFooter footer = {
        {FooterBlock::Kind::examples,
         {"gpuadvise config show", "gpuadvise --currency EUR config show --json"}},
        {FooterBlock::Kind::paragraph,
         {"The file is $XDG_CONFIG_HOME/gpuadvise/config.yaml (~/.config/gpuadvise/config.yaml), "
          "or the one GPUADVISE_CONFIG names. Keys: currency, objective, top, providers, "
          "exclude_providers."}}};
    set_footer(sub, footer);
    set_footer(*show, footer);  // not the top-level examples it would start with
    CLI::App* self = &sub;
    return [self](Context& ctx) { return run_config_show(ctx, config_root(*self)); };
}

}  // namespace gpuadvise::cli
