#include "gpuadvise/text.hpp"

#include <algorithm>
#include <cctype>

namespace gpuadvise {

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
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

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            // Letter O typed for digit zero ("A1OO") is no real difference in a GPU name.
            auto canon = [](char ch) {
                char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                return l == 'o' ? '0' : l;
            };
            std::size_t cost = canon(a[i - 1]) == canon(b[j - 1]) ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
            diag = up;
        }
    }
    return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
    std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
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

}  // namespace gpuadvise
