// Reading one YAML document with located, collected diagnostics. Every section reader
// (catalog, models, compat) uses these helpers so that all errors look alike:
//   providers.yaml:41:12: error: offers[3].gpu: unknown GPU 'A100-80G'; did you mean 'A100-80GB'?
// yaml-cpp marks are 0-based; locations here are 1-based.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/diagnostics.hpp"

namespace gpuadvise::io {

class YamlContext {
public:
    YamlContext(std::string file, Diagnostics& diagnostics) : file_(std::move(file)), diags_(diagnostics) {}

    const std::string& file() const { return file_.str(); }
    Diagnostics& diagnostics() { return diags_; }
    SourceLocation where(const YAML::Node& node) const;

    void error(const YAML::Node& at, const std::string& path, const std::string& message);
    void warning(const YAML::Node& at, const std::string& path, const std::string& message);

    // Type checks; report an error and return false when the node is not of that kind.
    bool expect_map(const YAML::Node& node, const std::string& path);
    bool expect_sequence(const YAML::Node& node, const std::string& path);
    // Reports every key of `map` not in `known`, with a "did you mean".
    void check_keys(const YAML::Node& map, const std::string& path,
                    std::initializer_list<std::string_view> known);
    // Reports every key that appears twice in `map` (check_keys does this too).
    void check_unique_keys(const YAML::Node& map, const std::string& path);

    // Field getters. A missing required field, a wrong type or an out-of-range number is an
    // error (and nullopt). A present `null` is nullopt without error unless required.
    std::optional<std::string> text(const YAML::Node& map, const std::string& path, std::string_view key,
                                    bool required = false);
    std::optional<double> number(const YAML::Node& map, const std::string& path, std::string_view key,
                                 bool required = false, double min = 0, double max = 1e12);
    std::optional<long long> integer(const YAML::Node& map, const std::string& path, std::string_view key,
                                     bool required = false, long long min = 0, long long max = 1000000000);
    std::optional<bool> boolean(const YAML::Node& map, const std::string& path, std::string_view key);
    std::vector<std::string> text_list(const YAML::Node& map, const std::string& path, std::string_view key);

    // Scalar conversions with the same rules, for nodes already in hand.
    std::optional<double> as_number(const YAML::Node& node, const std::string& path, double min = 0,
                                    double max = 1e12);
    std::optional<std::string> as_text(const YAML::Node& node, const std::string& path);

private:
    SharedText file_;  // shared by every location in the file
    Diagnostics& diags_;
};

// Guards run before YAML::Load on files from outside: yaml-cpp recurses once per nesting level (a
// 100,000-deep document exhausts the stack), and an alias (*name) repeats a node wherever it is used (an
// "alias bomb" of nested aliases expands exponentially when walked). Each sets `where` (line, column)
// and returns true when the text has the problem. yaml_has_alias runs yaml-cpp's event parser only,
// so call it after yaml_nesting_too_deep.
inline constexpr int kMaxYamlNesting = 64;
bool yaml_nesting_too_deep(std::string_view text, SourceLocation& where);
bool yaml_has_alias(std::string_view text, SourceLocation& where);

// The first byte of `text` that is not UTF-8, as a message for `where` (set to its line and column):
// "invalid UTF-8 (byte 0xE9); save the file as UTF-8 ..."; nullopt when all of it is UTF-8. Catalogs,
// jobs files and configuration files reject such text alike.
std::optional<std::string> invalid_utf8_message(std::string_view text, SourceLocation& where);

// YAML::Load for a file from outside (after the guards above), with what yaml-cpp lets through reported
// as errors: a quoted scalar still open at the end of the file (yaml-cpp ends it there silently when the
// file ends with a line break), and a second document ('---' after the first, or text after '...'),
// which YAML::Load would drop without a word. Line ends may be LF, CRLF or CR alone (YAML's b-break):
// a lone CR is read as LF. On an error: nullopt, and `error` says where and what; `from_parser` is true
// for yaml-cpp's own exceptions (their message is yaml-cpp's, e.g. "end of map not found").
struct YamlLoadError {
    SourceLocation where;
    std::string message;
    bool from_parser = false;
};
std::optional<YAML::Node> load_yaml_document(std::string_view text, const std::string& file,
                                             YamlLoadError& error);

// A YAML file from outside, through every guard above in order: NUL bytes or UTF-16 (not_text), a byte
// that is not UTF-8 (not_utf8), nesting deeper than kMaxYamlNesting, an alias when `refuse_aliases`, and
// what load_yaml_document refuses (does_not_parse). Each failure is one located error in `diags`
// (`nesting_note` ends the nesting message: "a jobs file nests at most 4 deep"; `parse_hint` follows
// yaml-cpp's own messages); `root` is set only when the file passed them all. Catalogs, commitment
// files, jobs files and configuration files are read through it.
enum class YamlReadFailure { none, not_text, not_utf8, does_not_parse };
struct YamlRead {
    std::optional<YAML::Node> root;
    YamlReadFailure failure = YamlReadFailure::none;
};
struct YamlReadRules {
    std::string_view nesting_note;
    std::string_view parse_hint;    // appended to "invalid YAML: ..." from yaml-cpp
    std::string_view alias_reason;  // non-empty: an alias is an error, for this reason
};
YamlRead read_yaml_text(std::string_view text, const std::string& file, const YamlReadRules& rules,
                        Diagnostics& diags);
// The title of the error a reader throws after read_yaml_text failed: "<what> is not a YAML text file",
// "... is not UTF-8 text" or "... does not parse".
std::string read_failure_title(const std::string& what, YamlReadFailure failure);

// "gpus[3]" / "gpus[3].tflops" path builders.
std::string index_path(const std::string& path, std::size_t i);
std::string key_path(const std::string& path, std::string_view key);

}  // namespace gpuadvise::io
