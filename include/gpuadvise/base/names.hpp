// One name table per enum: the single list of an enum's spellings that printing (name), parsing
// (parse, parse_or_throw with "did you mean"), CLI11 choices (names) and YAML checks all read.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/text.hpp"

namespace gpuadvise {

// Throws UsageError "<what>: unknown value 'text'" with "did you mean" and the names (names.cpp).
[[noreturn]] void throw_unknown_name(std::string_view text, std::string_view what,
                                     const std::vector<std::string>& names);

template <typename E>
struct Named {
    E value;
    std::string_view name;
};

// '-' and '_' read the same ("on-demand" == "on_demand"), case-insensitive.
inline bool same_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i] == '_' ? '-' : a[i], y = b[i] == '_' ? '-' : b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

template <typename E, std::size_t N>
class NameTable {
public:
    constexpr explicit NameTable(std::array<Named<E>, N> entries) : entries_(entries) {}

    constexpr std::string_view name(E value) const {
        for (const auto& e : entries_)
            if (e.value == value) return e.name;
        return entries_[0].name;  // unreachable for a complete table
    }
    std::optional<E> parse(std::string_view text) const {
        for (const auto& e : entries_)
            if (same_name(text, e.name)) return e.value;
        return std::nullopt;
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : entries_) out.emplace_back(e.name);
        return out;
    }
    // "fp32|tf32|..." for a CLI11 type name.
    std::string choices() const { return join(names(), "|"); }
    // The value, or UsageError "<what>: unknown value 'x'" with "did you mean" and the choices.
    E parse_or_throw(std::string_view text, std::string_view what) const {
        if (auto v = parse(text)) return *v;
        throw_unknown_name(text, what, names());
    }
    constexpr const std::array<Named<E>, N>& entries() const { return entries_; }

private:
    std::array<Named<E>, N> entries_;
};

}  // namespace gpuadvise
