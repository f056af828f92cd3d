#include "io/yaml_context.hpp"

#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpuadvise/base/text.hpp"

namespace gpuadvise::io {

SourceLocation YamlContext::where(const YAML::Node& node) const {
    SourceLocation loc{file_, 0, 0};
    if (node.IsDefined()) {
        YAML::Mark m = node.Mark();
        if (m.line >= 0) loc.line = m.line + 1;
        if (m.column >= 0) loc.column = m.column + 1;
    }
    return loc;
}

void YamlContext::error(const YAML::Node& at, const std::string& path, const std::string& message) {
    diags_.error(where(at), path.empty() ? message : path + ": " + message);
}

void YamlContext::warning(const YAML::Node& at, const std::string& path, const std::string& message) {
    diags_.warning(where(at), path.empty() ? message : path + ": " + message);
}

namespace {
const char* kind_name(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map: return "a mapping";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Scalar: return "a scalar";
        case YAML::NodeType::Null: return "null";
        default: return "nothing";
    }
}
}  // namespace

bool YamlContext::expect_map(const YAML::Node& node, const std::string& path) {
    if (node.IsMap()) return true;
    error(node, path, std::string("expected a mapping (key: value lines), found ") + kind_name(node));
    return false;
}

bool YamlContext::expect_sequence(const YAML::Node& node, const std::string& path) {
    if (node.IsSequence()) return true;
    error(node, path, std::string("expected a list ('- ' items), found ") + kind_name(node));
    return false;
}

void YamlContext::check_unique_keys(const YAML::Node& map, const std::string& path) {
    // yaml-cpp keeps duplicate keys and lookups see only the first: a silently ignored value.
    std::map<std::string, int> first_line;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it->first.IsScalar()) continue;
        const std::string& key = it->first.Scalar();
        auto [at, inserted] = first_line.emplace(key, where(it->first).line);
        if (!inserted)
            error(it->first, key_path(path, key),
                  "duplicate key '" + key + "' (first on line " + std::to_string(at->second) +
                      "); keep one of them");
    }
}

void YamlContext::check_keys(const YAML::Node& map, const std::string& path,
                             std::initializer_list<std::string_view> known) {
    check_unique_keys(map, path);
    std::vector<std::string> names(known.begin(), known.end());
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it->first.IsScalar()) {
            error(it->first, path, "keys must be plain names");
            continue;
        }
        const std::string& key = it->first.Scalar();
        bool ok = false;
        for (auto k : known) ok = ok || k == key;
        if (ok) continue;
        std::string message = "unknown key '" + key + "'";
        if (auto best = closest_match(key, names))
            message += "; did you mean '" + *best + "'?";
        else
            message += "; expected one of: " + join(names, ", ");
        error(it->first, key_path(path, key), message);
    }
}

std::optional<std::string> YamlContext::as_text(const YAML::Node& node, const std::string& path) {
    if (node.IsNull()) return std::nullopt;
    if (!node.IsScalar()) {
        error(node, path, std::string("expected text, found ") + kind_name(node));
        return std::nullopt;
    }
    return node.Scalar();
}

std::optional<double> YamlContext::as_number(const YAML::Node& node, const std::string& path, double min,
                                             double max) {
    if (node.IsNull()) return std::nullopt;
    if (!node.IsScalar()) {
        error(node, path, std::string("expected a number, found ") + kind_name(node));
        return std::nullopt;
    }
    const std::string& s = node.Scalar();
    double value = 0;
    const char* begin = s.data();
    const char* end = s.data() + s.size();
    if (begin != end && *begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (s.empty() || ec == std::errc::invalid_argument || ptr != end) {
        error(node, path, "expected a number, found '" + shorten(s) + "'");
        return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
        error(node, path, "number '" + s + "' is not finite");
        return std::nullopt;
    }
    if (value != 0 && std::fpclassify(value) == FP_SUBNORMAL) {
        error(node, path,
              "number '" + shorten(s) +
                  "' is too small to be represented exactly (a denormal); use 0 or a larger value");
        return std::nullopt;
    }
    if (value < min || value > max) {
        error(node, path,
              fmt::format("number {} is out of range; expected {:g} to {:g}", shorten(s), min, max));
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> YamlContext::text(const YAML::Node& map, const std::string& path,
                                             std::string_view key, bool required) {
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) {
        if (required)
            error(node.IsDefined() ? node : map, path, "missing required key '" + std::string(key) + "'");
        return std::nullopt;
    }
    return as_text(node, key_path(path, key));
}

std::optional<double> YamlContext::number(const YAML::Node& map, const std::string& path,
                                          std::string_view key, bool required, double min, double max) {
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) {
        if (required)
            error(node.IsDefined() ? node : map, path, "missing required key '" + std::string(key) + "'");
        return std::nullopt;
    }
    return as_number(node, key_path(path, key), min, max);
}

std::optional<long long> YamlContext::integer(const YAML::Node& map, const std::string& path,
                                              std::string_view key, bool required, long long min,
                                              long long max) {
    auto value = number(map, path, key, required, static_cast<double>(min), static_cast<double>(max));
    if (!value) return std::nullopt;
    if (*value != std::floor(*value)) {
        error(map[std::string(key)], key_path(path, key), "expected a whole number");
        return std::nullopt;
    }
    return static_cast<long long>(*value);
}

std::optional<bool> YamlContext::boolean(const YAML::Node& map, const std::string& path,
                                         std::string_view key) {
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) return std::nullopt;
    if (node.IsScalar()) {
        const std::string s = to_lower(node.Scalar());
        if (s == "true" || s == "yes") return true;
        if (s == "false" || s == "no") return false;
    }
    error(node, key_path(path, key), "expected true or false");
    return std::nullopt;
}

std::vector<std::string> YamlContext::text_list(const YAML::Node& map, const std::string& path,
                                                std::string_view key) {
    std::vector<std::string> out;
    YAML::Node node = map[std::string(key)];
    if (!node.IsDefined() || node.IsNull()) return out;
    const std::string p = key_path(path, key);
    if (!expect_sequence(node, p)) return out;
    for (std::size_t i = 0; i < node.size(); ++i)
        if (auto s = as_text(node[i], index_path(p, i))) out.push_back(*s);
    return out;
}

std::string index_path(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
}

std::string key_path(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

}  // namespace gpuadvise::io
