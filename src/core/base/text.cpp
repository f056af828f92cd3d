#include "gpuadvise/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace gpuadvise {

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

namespace {
// std::tolower in the "C" locale, which gpuadvise never changes (no setlocale), without its call.
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return x == y || ascii_lower(x) == ascii_lower(y);
           });
}

std::string fold_name(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool same_folded_name(std::string_view a, std::string_view b) {
    if (a == b) return true;
    auto skip = [](char c) { return c == ' ' || c == '-' || c == '_' || c == '.'; };
    std::size_t i = 0, j = 0;
    for (;;) {
        while (i < a.size() && skip(a[i])) ++i;
        while (j < b.size() && skip(b[j])) ++j;
        if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
        if (ascii_lower(a[i]) != ascii_lower(b[j])) return false;
        ++i;
        ++j;
    }
}

// Damerau-Levenshtein (optimal string alignment): a swap of two neighbouring letters ("bret" for
// "bert") is one edit, as are an insertion, a deletion and a substitution.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Letter O typed for digit zero ("A1OO") is no real difference in a GPU name.
    auto canon = [](char ch) {
        char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return l == 'o' ? '0' : l;
    };
    std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = canon(a[i - 1]) == canon(b[j - 1]) ? 0 : 1;
            row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && canon(a[i - 1]) == canon(b[j - 2]) && canon(a[i - 2]) == canon(b[j - 1]))
                row[j] = std::min(row[j], before[j - 2] + 1);
        }
        std::swap(before, previous);
        std::swap(previous, row);
    }
    return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
    std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        // The distance is at least the length gap: a word far longer than every candidate (a 2 MB
        // value) costs one comparison per candidate, not a 2 MB x name-length table each.
        const std::size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        const bool prefix =
            c.size() > word.size() && iequals(std::string_view(c).substr(0, word.size()), word);
        if (gap > limit && !prefix) continue;
        std::size_t d = edit_distance(word, c);
        // A candidate that starts with the word ("a100" -> "a100-80gb-sxm") is a near miss too.
        if (d > limit && c.size() > word.size() && iequals(std::string_view(c).substr(0, word.size()), word))
            d = limit;
        // Ties go to the candidate closest in length ("A1OO" -> "A100", not "A10").
        auto length_gap = [&](const std::string& x) {
            return x.size() > word.size() ? x.size() - word.size() : word.size() - x.size();
        };
        if (d < best_distance || (d == best_distance && best && length_gap(c) < length_gap(*best))) {
            best_distance = d;
            best = c;
        }
    }
    return best;
}

std::string shorten(std::string_view text, std::size_t max) {
    return text.size() > max ? std::string(text.substr(0, max)) + "..." : std::string(text);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += sep;
        out += items[i];
    }
    return out;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        // ASCII runs eight bytes at a time (tables are almost all ASCII).
        while (i + 8 <= n) {
            std::uint64_t word;
            std::memcpy(&word, p + i, 8);
            if (word & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;  // no overlong forms
            else if (c == 0xED)
                hi = 0x9F;  // no surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;  // nothing above U+10FFFF
        } else
            return i;
        if (i + len > n) return i;
        if (p[i + 1] < lo || p[i + 1] > hi) return i;
        for (std::size_t k = 2; k < len; ++k)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
        i += len;
    }
    return std::nullopt;
}

std::size_t count_newlines(std::string_view text) {
    std::size_t n = 0;
    for (const char *p = text.data(), *end = p + text.size();
         p != end && (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))));
         ++p)
        ++n;
    return n;
}

std::pair<int, int> line_and_column(std::string_view text, std::size_t offset) {
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return {line, static_cast<int>(offset - line_start + 1)};
}

void append_hex(std::string& out, unsigned char byte, bool upper) {
    const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    out += digits[byte >> 4];
    out += digits[byte & 15];
}

std::string escape_control_chars(std::string_view text) {
    // Most text has nothing to escape: copied whole, up to the first byte that may need it.
    std::size_t first = 0;
    while (first < text.size()) {
        const auto c = static_cast<unsigned char>(text[first]);
        if (c < 0x20 || c == 0x7F || c == 0xC2) break;
        ++first;
    }
    if (first == text.size()) return std::string(text);
    std::string out;
    out.reserve(text.size() + 8);
    out.append(text.substr(0, first));
    for (std::size_t i = first; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7F) {
            out += "\\x";
            append_hex(out, c);
        } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            const auto d = static_cast<unsigned char>(text[++i]);
            out += "\\u{";
            append_hex(out, d);
            out += '}';
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace gpuadvise
