#include "io/user_config.hpp"

#include <yaml-cpp/yaml.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
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
    const YamlRead read =
        read_yaml_text(text, path, {"a configuration file nests at most 2 deep", {}, {}}, diags);
    if (!read.root)
        throw DataError(read_failure_title("the configuration file " + path, read.failure), diags.all(), fix);
    YAML::Node root = *read.root;  // not const: a missing key of a const node is an invalid node
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
    const std::string& path = location->path;
    const bool named = location->from == ConfigSource::gpuadvise_config;
    const std::string what =
        named ? "GPUADVISE_CONFIG names " + path + ", which" : "the configuration file " + path;
    const char* fix =
        "point it to a configuration file (see 'Configuration file' in docs/usage.md), or remove it";
    // Absent is fine where gpuadvise looks by itself; anything else that is there but cannot be read (a
    // link loop, a dangling link, no permission) is an error, not a configuration silently left out.
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) {
            if (named)
                throw DataError(what + " does not exist", {},
                                "point it to a configuration file, or unset it");
            return {};
        }
        if (err == ELOOP)
            throw DataError(
                what + " cannot be reached: a symbolic link loop on the way (" + std::strerror(err) + ")", {},
                fix);
        throw DataError(what + " cannot be read: " + std::strerror(err), {}, fix);
    }
    if (S_ISLNK(link.st_mode)) {
        struct stat target {};
        if (::stat(path.c_str(), &target) != 0) {
            const int err = errno;
            std::error_code ec;
            const std::string to = std::filesystem::read_symlink(path, ec).string();
            if (err == ELOOP)
                throw DataError(
                    what + " is a symbolic link loop (it leads back to itself: " + std::strerror(err) + ")",
                    {}, fix);
            if (err == ENOENT)
                throw DataError(what + " is a symbolic link to " + (to.empty() ? "a path" : to) +
                                    ", which does not exist (a dangling link)",
                                {}, fix);
            throw DataError(what + " is a symbolic link that cannot be followed: " + std::strerror(err), {},
                            fix);
        }
    }
    std::string text;
    try {
        text = read_file(path);
    } catch (const DataError& e) {
        throw DataError(e.what(), {}, fix);  // read_file's hint is about catalogs
    }
    return parse_user_config(text, path);
}

}  // namespace gpuadvise::io
