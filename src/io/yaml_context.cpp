#include "io/yaml_context.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gpuadvise/base/numbers.hpp"
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
    if (is_denormal(value)) {
        error(node, path,
              "number '" + shorten(s) + "' " + std::string(kDenormalReason) + "; use 0 or a larger value");
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

// yaml-cpp recurses once per nesting level; refuse documents deep enough to exhaust the stack.
// Counts flow brackets and block indentation; both over-approximate, which is fine for a guard.
bool yaml_nesting_too_deep(std::string_view text, SourceLocation& where) {
    int depth = 0, line = 1, col = 0;
    bool at_line_start = true;
    int indent = 0;
    char quote = 0, last = 0;  // last: the previous non-blank character of the line, 0 at its start
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        ++col;
        // A lone CR ends a line too (YAML's b-break; load_yaml_document reads it so).
        if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
            ++line;
            col = 0;
            at_line_start = true;
            indent = 0;
            last = 0;
            continue;
        }
        const char prev = last;
        if (c != ' ' && c != '\t' && !quote) last = c;
        if (at_line_start) {
            if (c == ' ' || c == '-' || c == '?') {
                ++indent;
                if (indent / 2 > kMaxYamlNesting) {
                    where.line = line;
                    where.column = col;
                    return true;
                }
                continue;
            }
            at_line_start = false;
            if (indent == 0) quote = 0;  // an unindented line cannot continue a quoted scalar
        }
        if (quote) {
            if (quote == '"' && c == '\\')
                escaped = !escaped;
            else if (c == quote && !escaped)
                quote = 0;
            else
                escaped = false;
            continue;
        }
        // A quote opens a quoted scalar only where a scalar starts (YAML); inside a plain scalar
        // ("it's") it is text, and treating it as a quote would hide the brackets that follow.
        if ((c == '"' || c == '\'') &&
            (prev == 0 || std::string_view("[{,:-?").find(prev) != std::string_view::npos)) {
            quote = c;
            escaped = false;
        } else if (c == '#')
            continue;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxYamlNesting) {
                where.line = line;
                where.column = col;
                return true;
            }
        } else if (c == ']' || c == '}')
            depth = std::max(0, depth - 1);
    }
    return false;
}

namespace {
// Counts the aliases (*name) of a document as yaml-cpp's parser reports them; nothing is built.
struct AliasCounter : YAML::EventHandler {
    std::size_t aliases = 0;
    YAML::Mark first;
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        if (aliases++ == 0) first = mark;
    }
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};
}  // namespace

bool yaml_has_alias(std::string_view text, SourceLocation& where) {
    if (text.find('*') == std::string_view::npos) return false;  // no alias without its '*'
    std::istringstream in{std::string(text)};
    AliasCounter counter;
    try {
        YAML::Parser parser(in);
        while (parser.HandleNextDocument(counter) && counter.aliases == 0) {
        }
    } catch (const YAML::Exception&) {
        // invalid YAML: the reader's YAML::Load reports it, located
    }
    if (counter.aliases == 0) return false;
    where.line = counter.first.line + 1;
    where.column = counter.first.column + 1;
    return true;
}

std::optional<std::string> invalid_utf8_message(std::string_view text, SourceLocation& where) {
    const auto bad = first_invalid_utf8(text);
    if (!bad) return std::nullopt;
    // Lines as load_yaml_document counts them: a lone CR ends one too.
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < *bad; ++i)
        if (text[i] == '\n' || (text[i] == '\r' && text[i + 1] != '\n')) {
            ++line;
            line_start = i + 1;
        }
    where.line = line;
    where.column = static_cast<int>(*bad - line_start + 1);
    std::string message = "invalid UTF-8 (byte 0x";
    append_hex(message, static_cast<unsigned char>(text[*bad]), true);
    return message +
           "); save the file as UTF-8 (a Latin-1 or Windows-1252 file needs converting, e.g. with iconv)";
}

namespace {

// A document marker line: '---' or '...' in column 1, alone or followed by a blank.
bool document_marker(std::string_view line, std::string_view marker) {
    return line.substr(0, 3) == marker &&
           (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

// Where a second document starts: a '---' after the first document began, or text after a '...'.
// Comment lines, blank lines and directives ('%YAML') before the first document are no document.
bool second_document(std::string_view text, SourceLocation& where, std::string& message) {
    bool started = false;  // the first document has begun ('---' or text)
    int ended_on = 0;      // the line of the '...' that ended it, 0 while it has not ended
    int line = 0;
    for (std::size_t begin = 0; begin < text.size();) {
        ++line;
        const std::size_t eol = text.find('\n', begin);
        const std::string_view l =
            text.substr(begin, eol == std::string_view::npos ? std::string_view::npos : eol - begin);
        begin = eol == std::string_view::npos ? text.size() : eol + 1;
        const std::size_t first = l.find_first_not_of(" \t\r");
        const bool blank = first == std::string_view::npos || l[first] == '#';
        if (document_marker(l, "---")) {
            if (started) {
                where.line = line;
                where.column = 1;
                message =
                    "a second YAML document starts here ('---'); the file holds one document: remove "
                    "the line (and merge what follows it into the first document)";
                return true;
            }
            started = true;
        } else if (document_marker(l, "...")) {
            if (started && ended_on == 0) ended_on = line;
        } else if (blank || (!started && l[0] == '%')) {
            continue;
        } else if (ended_on != 0) {
            where.line = line;
            where.column = 1;
            message = "text after the end of the document ('...' on line " + std::to_string(ended_on) +
                      ") is a second YAML document; the file holds one document: remove the '...' line";
            return true;
        } else {
            started = true;
        }
    }
    return false;
}

// The mark of the last scalar of a document, as yaml-cpp's parser reports them; nothing is built.
struct LastScalar : YAML::EventHandler {
    std::optional<YAML::Mark> last;
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
        last = mark;
    }
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

}  // namespace

std::optional<YAML::Node> load_yaml_document(std::string_view text, const std::string& file,
                                             YamlLoadError& error) {
    // Field by field: GCC 12 (-O2, unity build) warns on the shared_ptr of a braced temporary.
    error.where = SourceLocation{file, 0, 0};
    error.message.clear();
    error.from_parser = false;
    std::string source(text);
    for (std::size_t i = 0; i < source.size(); ++i)
        if (source[i] == '\r' && (i + 1 == source.size() || source[i + 1] != '\n'))
            source[i] = '\n';  // same length: every mark stays where it was
    if (second_document(source, error.where, error.message)) return std::nullopt;
    const std::size_t given = source.size();  // the end of the file, as yaml-cpp alone would name it
    if (!source.empty() && source.back() != '\n') source += '\n';
    const std::size_t size = source.size();
    // A quoted scalar that is still open at the end meets this end-of-document marker, which no quoted
    // scalar may contain (yaml-cpp: "illegal document indicator in scalar"); anything else ends before
    // it. Without it, yaml-cpp accepts `name: "abc` followed by a line break as the value "abc".
    source += "...\n";
    try {
        return YAML::Load(source);
    } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own depth limit ("bad file")
        error.where.line = e.mark.line + 1;
        error.where.column = e.mark.column + 1;
        error.message = "nesting deeper than " + std::to_string(e.depth()) +
                        " levels (the YAML reader's limit); flatten the file";
        return std::nullopt;
    } catch (const YAML::Exception& e) {
        error.where.line = e.mark.line + 1;
        error.where.column = e.mark.column + 1;
        error.message = e.msg;
        error.from_parser = true;
        if (e.mark.pos < 0 || static_cast<std::size_t>(e.mark.pos) < size) return std::nullopt;
        // At the added marker: name the end of the file instead, as yaml-cpp does without it.
        const auto [line, column] = line_and_column(source, given);
        error.where.line = line;
        error.where.column = column;
        if (e.msg != YAML::ErrorMsg::DOC_IN_SCALAR) return std::nullopt;
    }
    // The error is at the end: the last scalar ran to it. Its opening quote is where the scalar starts.
    source.resize(size);
    LastScalar scan;
    try {
        std::istringstream in(source);
        YAML::Parser parser(in);
        parser.HandleNextDocument(scan);
    } catch (const YAML::Exception&) {
        scan.last.reset();  // then only the end of the file can be named
    }
    error.from_parser = false;
    error.message = "the file ends inside a quoted value; add its closing quote";
    if (scan.last && scan.last->pos >= 0 && static_cast<std::size_t>(scan.last->pos) < size &&
        (source[static_cast<std::size_t>(scan.last->pos)] == '"' ||
         source[static_cast<std::size_t>(scan.last->pos)] == '\'')) {
        const char quote = source[static_cast<std::size_t>(scan.last->pos)];
        error.where.line = scan.last->line + 1;
        error.where.column = scan.last->column + 1;
        error.message = std::string("the quoted value that starts here (") + quote +
                        ") is not closed before the end of the file; add its closing " + quote;
    }
    return std::nullopt;
}

YamlRead read_yaml_text(std::string_view text, const std::string& file, const YamlReadRules& rules,
                        Diagnostics& diags) {
    YamlRead read;
    if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF") {
        diags.error({file, 0, 0}, "the file is UTF-16 encoded; save it as UTF-8 (gpuadvise reads UTF-8 YAML and CSV)");
        read.failure = YamlReadFailure::not_text;
        return read;
    }
    if (text.find('\0') != std::string_view::npos) {
        diags.error({file, 0, 0}, "the file contains NUL bytes; expected a YAML text file");
        read.failure = YamlReadFailure::not_text;
        return read;
    }
    if (SourceLocation where{file, 0, 0}; auto why = invalid_utf8_message(text, where)) {
        diags.error(where, *why);
        read.failure = YamlReadFailure::not_utf8;
        return read;
    }
    read.failure = YamlReadFailure::does_not_parse;
    if (SourceLocation where{file, 0, 0}; yaml_nesting_too_deep(text, where)) {
        diags.error(where, "nesting deeper than " + std::to_string(kMaxYamlNesting) + " levels; " +
                               std::string(rules.nesting_note));
        return read;
    }
    if (SourceLocation where{file, 0, 0}; !rules.alias_reason.empty() && yaml_has_alias(text, where)) {
        diags.error(where, "a YAML alias (*name); " + std::string(rules.alias_reason));
        return read;
    }
    YamlLoadError bad;
    read.root = load_yaml_document(text, file, bad);
    if (!read.root) {
        diags.error(bad.where, bad.from_parser ? "invalid YAML: " + bad.message + std::string(rules.parse_hint)
                                               : bad.message);
        return read;
    }
    read.failure = YamlReadFailure::none;
    return read;
}

std::string read_failure_title(const std::string& what, YamlReadFailure failure) {
    switch (failure) {
        case YamlReadFailure::not_text: return what + " is not a YAML text file";
        case YamlReadFailure::not_utf8: return what + " is not UTF-8 text";
        case YamlReadFailure::none:
        case YamlReadFailure::does_not_parse: break;
    }
    return what + " does not parse";
}

}  // namespace gpuadvise::io
