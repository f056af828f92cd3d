#include "io/user_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "gpuadvise/base/errors.hpp"
#include "io/catalog_loader.hpp"
#include "io/yaml_context.hpp"

namespace gpuadvise::io {
namespace {

constexpr std::size_t kMaxConfigBytes = 64 * 1024;  // a configuration is a few lines

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

const UserSetting* UserConfig::find(std::string_view key) const {
    for (const auto& s : settings)
        if (s.key == key) return &s;
    return nullptr;
}

const std::vector<UserConfigKey>& user_config_keys() {
    static const std::vector<UserConfigKey> keys = {
        {"currency", false, "currency of the prices shown (--currency)"},
        {"objective", false, "what recommend ranks by (recommend --objective)"},
        {"top", false, "how many options recommend lists (recommend --top)"},
        {"providers", true, "only these providers (recommend and offers --provider)"},
        {"exclude_providers", true, "never these providers' offers (recommend, offers, compare, estimate)"},
    };
    return keys;
}

std::optional<ConfigLocation> user_config_location() {
    if (std::string p = env("GPUADVISE_CONFIG"); !p.empty())
        return ConfigLocation{p, ConfigSource::gpuadvise_config};
    if (std::string x = env("XDG_CONFIG_HOME"); !x.empty() && x[0] == '/')
        return ConfigLocation{x + "/gpuadvise/config.yaml", ConfigSource::xdg_config_home};
    if (std::string h = env("HOME"); !h.empty())
        return ConfigLocation{h + "/.config/gpuadvise/config.yaml", ConfigSource::home};
    return std::nullopt;
}

UserConfig parse_user_config(std::string_view text, const std::string& path) {
    UserConfig config;
    config.path = path;
    Diagnostics diags;
    const char* fix =
        "see 'Configuration file' in docs/usage.md (gpuadvise config show prints what is in effect)";
    if (text.size() > kMaxConfigBytes)
        throw DataError(
            path + ": " + std::to_string(text.size()) + " bytes; a configuration file holds a few lines", {},
            fix);
    if (text.find('\0') != std::string_view::npos)
        throw DataError(path + ": the file contains NUL bytes; expected a YAML text file", {}, fix);
    if (SourceLocation where{path, 0, 0}; yaml_nesting_too_deep(text, where)) {
        diags.error(where, "nesting deeper than " + std::to_string(kMaxYamlNesting) + " levels; " +
                               "a configuration file nests at most 2 deep");
        throw DataError("the configuration file " + path + " does not parse", diags.all(), fix);
    }
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        diags.error({path, e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + e.msg);
        throw DataError("the configuration file " + path + " does not parse", diags.all(), fix);
    }
    if (!root.IsDefined() || root.IsNull()) return config;  // empty: all defaults
    YamlContext ctx(path, diags);
    if (ctx.expect_map(root, "")) {
        ctx.check_keys(root, "", {"currency", "objective", "top", "providers", "exclude_providers"});
        for (auto it = root.begin(); it != root.end(); ++it) {
            if (!it->first.IsScalar()) continue;
            const std::string key = it->first.Scalar();
            const UserConfigKey* spec = nullptr;
            for (const auto& k : user_config_keys())
                if (k.key == key) spec = &k;
            if (!spec || config.find(key)) continue;  // reported by check_keys
            UserSetting s{key, {}, ctx.where(it->second), {}};
            const YAML::Node value = it->second;
            if (value.IsNull()) {
                ctx.error(it->first, key, "no value; give one or remove the line");  // a null has no mark
                continue;
            }
            if (spec->list && value.IsScalar()) {
                s.values.push_back(value.Scalar());  // "providers: aws" means [aws]
                s.value_where.push_back(s.where);
            } else if (spec->list) {
                if (!ctx.expect_sequence(value, key)) continue;
                for (std::size_t i = 0; i < value.size(); ++i)
                    if (auto v = ctx.as_text(value[i], index_path(key, i))) {
                        s.values.push_back(*v);
                        s.value_where.push_back(ctx.where(value[i]));
                    }
            } else if (auto v = ctx.as_text(value, key)) {
                s.values.push_back(*v);
                s.value_where.push_back(s.where);
            } else {
                continue;
            }
            config.settings.push_back(std::move(s));
        }
    }
    if (diags.has_errors())
        throw DataError("the configuration file " + path + " has errors", diags.all(), fix);
    return config;
}

UserConfig load_user_config(const std::optional<ConfigLocation>& location) {
    if (!location) return {};
    std::error_code ec;
    if (!std::filesystem::exists(location->path, ec)) {
        if (location->from == ConfigSource::gpuadvise_config)
            throw DataError("GPUADVISE_CONFIG names " + location->path + ", which does not exist", {},
                            "point it to a configuration file, or unset it");
        return {};
    }
    return parse_user_config(read_file(location->path), location->path);
}

}  // namespace gpuadvise::io
