// The user's configuration file (default $XDG_CONFIG_HOME/gpuadvise/config.yaml, docs/usage.md):
// defaults for options, read with the catalog's located diagnostics. It only holds the values and
// where each was written; src/cli/config.cpp applies them to the options they default.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/diagnostics.hpp"

namespace gpuadvise::io {

struct UserSetting {
    std::string key;                          // "currency", "providers" ...
    std::vector<std::string> values;          // one for a scalar key, the items of a list key
    SourceLocation where;                     // of the value
    std::vector<SourceLocation> value_where;  // of each of `values`
};

struct UserConfig {
    std::string path;                   // the file read ("" when there is none)
    std::vector<UserSetting> settings;  // in file order

    const UserSetting* find(std::string_view key) const;
};

// The keys, and whether each takes a list.
struct UserConfigKey {
    std::string_view key;
    bool list;
    std::string_view meaning;
};
const std::vector<UserConfigKey>& user_config_keys();

// Where the configuration file is: $GPUADVISE_CONFIG, else $XDG_CONFIG_HOME/gpuadvise/config.yaml
// (an absolute XDG_CONFIG_HOME only, as the XDG spec says), else ~/.config/gpuadvise/config.yaml.
// `from` says which rule chose it. nullopt when none applies (no HOME).
enum class ConfigSource { gpuadvise_config, xdg_config_home, home };
struct ConfigLocation {
    std::string path;
    ConfigSource from = ConfigSource::home;
};
std::optional<ConfigLocation> user_config_location();

// Parses the text of a configuration file; throws DataError listing every problem as
// path:line:col (unknown keys with "did you mean", wrong types).
UserConfig parse_user_config(std::string_view text, const std::string& path);

// Reads `location` when the file exists (an empty UserConfig when it does not); DataError when it
// cannot be read or does not parse. GPUADVISE_CONFIG naming a missing file is an error.
UserConfig load_user_config(const std::optional<ConfigLocation>& location);

}  // namespace gpuadvise::io
