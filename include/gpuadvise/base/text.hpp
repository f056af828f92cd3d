// Small text helpers shared by the core and the edges: case folding and "did you mean".
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuadvise {

std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
// Lower-case with spaces, '-', '_' and '.' removed: "RTX 6000-Ada" == "rtx6000ada".
std::string fold_name(std::string_view s);
// fold_name(a) == fold_name(b), without building either string (hot in the time model).
bool same_folded_name(std::string_view a, std::string_view b);
std::size_t edit_distance(std::string_view a, std::string_view b);
// Closest candidate within max(2, |word|/3) edits (case-insensitive), if any.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& items, std::string_view sep);
// A hash of text for the in-memory tables of a run (never stored: it may change between versions): eight
// bytes a multiply, where std::hash reads them in smaller steps behind a call. The loads of offers,
// the lint and the candidates hash a few strings per offer (a 140-byte GpuInfo per table row).
inline std::size_t hash_text(std::string_view text) noexcept {
    constexpr std::uint64_t kMul = 0xBF58476D1CE4E5B9ULL;
    const auto load = [](const char* at, std::size_t bytes) {  // a fixed-size copy: one load
        std::uint64_t word = 0;
        if (bytes == 8)
            std::memcpy(&word, at, 8);
        else {
            std::uint32_t half;
            std::memcpy(&half, at, 4);
            word = half;
        }
        return word;
    };
    const auto mix = [](std::uint64_t h, std::uint64_t word) {
        h = (h ^ word) * kMul;
        return h ^ (h >> 29);
    };
    const char* p = text.data();
    const std::size_t n = text.size();
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
    if (n >= 8) {
        std::size_t i = 0;
        for (; i + 8 < n; i += 8) h = mix(h, load(p + i, 8));
        h = mix(h, load(p + n - 8, 8));  // the last eight bytes, overlapping the words before
    } else if (n >= 4) {
        h = mix(h, load(p, 4) | (load(p + n - 4, 4) << 32));
    } else if (n > 0) {
        const auto byte = [&](std::size_t i) {
            return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i]));
        };
        h = mix(h, byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16));
    }
    h ^= h >> 32;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 31;
    return static_cast<std::size_t>(h);
}
// hash_text for unordered containers of strings or string views, with heterogeneous lookup.
struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept { return hash_text(text); }
};
// Mixes `value` into `seed` (boost::hash_combine's formula), for hashes of several fields.
inline std::size_t hash_combine(std::size_t seed, std::size_t value) {
    return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}
// Input echoed in a message: at most `max` characters, then "..." (a field may be 100 MB long).
std::string shorten(std::string_view text, std::size_t max = 40);

// The offset of the first byte that is not part of well-formed UTF-8 (overlong forms, surrogates
// and code points above U+10FFFF count as ill-formed); nullopt when all of `text` is valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);
// Control characters (C0 except none, DEL, and C1 U+0080-U+009F) written as \xNN (C1: \u{NN}), so
// that text from files or tools (an ANSI escape in an id, a raw byte from nvidia-smi) cannot drive
// the terminal. Returns `text` unchanged when it has none.
std::string escape_control_chars(std::string_view text);

// Two hex digits of a byte appended to `out` (lower case unless `upper`): the one hex table of the
// escapes (control characters, JSON's C1 escapes, the fetch helper's headers, diagnostics of bytes).
void append_hex(std::string& out, unsigned char byte, bool upper = false);
// The newlines in `text` (memchr from one to the next: lines of a table are a few hundred bytes long,
// and a byte-by-byte count was a fifth of reading a million-row table).
std::size_t count_newlines(std::string_view text);
// 1-based line and column (in bytes) of `offset` in `text`.
std::pair<int, int> line_and_column(std::string_view text, std::size_t offset);

}  // namespace gpuadvise
