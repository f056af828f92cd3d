#include "gpuadvise/catalog/gpu_query.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise {
namespace {

std::vector<std::string> split(std::string_view text, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t pos = text.find(sep, start);
        parts.emplace_back(
            text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return parts;
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// "80GB", "80gb", "24G" -> 80 / 24; nullopt if the token is not a memory size.
std::optional<double> parse_memory(std::string_view token) {
    std::string t = to_lower(token);
    std::size_t unit = t.find_first_not_of("0123456789.");
    if (unit == 0 || unit == std::string::npos) return std::nullopt;
    std::string_view suffix = std::string_view(t).substr(unit);
    if (suffix != "gb" && suffix != "g") return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + unit, value);
    if (ec != std::errc() || ptr != t.data() + unit) return std::nullopt;
    return value;
}

// "-1", "+2", "1.5", "2e3": a number that is not a plain count. After the name it is a count given
// wrong, not a second name.
bool signed_or_decimal_number(std::string_view token) {
    const char* begin = token.data();
    const char* end = token.data() + token.size();
    if (begin != end && (*begin == '-' || *begin == '+')) ++begin;
    double value = 0;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    return begin != end && ec == std::errc() && ptr == end && !all_digits(token);
}

}  // namespace

GpuSpec parse_gpu_spec(std::string_view text) {
    const std::string hint =
        "a GPU spec is NAME[,NAME…][:MEMORY][:COUNT], e.g. A100, A100:8, 80GB, A100:80GB:8, H100,H200";
    GpuSpec spec;
    if (text.empty()) throw UsageError("empty GPU spec", hint);
    bool first = true;
    for (std::string token : split(text, ':')) {
        if (token.empty()) throw UsageError("GPU spec '" + std::string(text) + "' has an empty part", hint);
        // A count is ":N" after the name or memory, or "xN" anywhere; a bare first number ("4090") is a name.
        const bool x_count =
            token.size() > 1 && (token[0] == 'x' || token[0] == 'X') && all_digits(token.substr(1));
        if (x_count) token.erase(0, 1);
        const bool is_count = x_count || (!first && all_digits(token));
        if (!first && !x_count && signed_or_decimal_number(token))
            throw UsageError("GPU count '" + token + "' in '" + std::string(text) +
                                 "' must be a positive whole number (1 to 4096)",
                             hint);
        first = false;
        if (is_count) {
            if (spec.count)
                throw UsageError("GPU spec '" + std::string(text) + "' gives the count twice", hint);
            int count = 0;
            auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), count);
            if (ec != std::errc() || ptr != token.data() + token.size() || count < 1 || count > 4096)
                throw UsageError(
                    "GPU count '" + token + "' in '" + std::string(text) + "' must be between 1 and 4096",
                    hint);
            spec.count = count;
        } else if (auto mem = parse_memory(token)) {
            if (spec.memory_gb)
                throw UsageError("GPU spec '" + std::string(text) + "' gives the memory twice", hint);
            if (*mem <= 0 || *mem > 100000)
                throw UsageError("GPU memory '" + token + "' is out of range", hint);
            spec.memory_gb = mem;
        } else {
            if (!spec.names.empty())
                throw UsageError("GPU spec '" + std::string(text) + "' gives the name twice", hint);
            for (const std::string& name : split(token, ',')) {
                if (name.empty())
                    throw UsageError("GPU spec '" + std::string(text) + "' has an empty name", hint);
                spec.names.push_back(name);
            }
        }
    }
    return spec;
}

GpuMatch resolve_gpu_name(const Catalog& catalog, std::string_view name) {
    GpuMatch match{std::string(name), {}, {}};
    const std::string folded = fold_name(name);
    for (const auto& g : catalog.gpus)
        if (iequals(g.id, name) || fold_name(g.id) == folded) {
            match.gpus.push_back(&g);
            match.matched_by = "id";
            return match;
        }
    for (const auto& g : catalog.gpus)
        for (const auto& alias : g.aliases)
            if (fold_name(alias) == folded) {
                match.gpus.push_back(&g);
                break;
            }
    if (!match.gpus.empty()) {
        match.matched_by = "alias";
        return match;
    }
    for (const auto& g : catalog.gpus)
        if (fold_name(g.family) == folded) match.gpus.push_back(&g);
    if (!match.gpus.empty()) {
        match.matched_by = "family";
        return match;
    }
    // "A100-80GB", "V100 32GB": a family plus a memory size covers the variants with that memory.
    for (const auto& g : catalog.gpus) {
        const std::string family = fold_name(g.family);
        if (folded.size() <= family.size() || folded.compare(0, family.size(), family) != 0) continue;
        auto mem = parse_memory(std::string_view(folded).substr(family.size()));
        if (mem && std::abs(g.memory_gb - *mem) <= 0.5) match.gpus.push_back(&g);
    }
    if (!match.gpus.empty()) {
        match.matched_by = "family+memory";
        return match;
    }
    // A bare model number ("4090", "3090", "6000"): the family whose name is letters + that number.
    if (folded.size() >= 3 && all_digits(folded)) {
        auto is_model = [&](const std::string& n) {
            const std::string f = fold_name(n);
            if (f.size() <= folded.size() || f.compare(f.size() - folded.size(), folded.size(), folded) != 0)
                return false;
            return std::all_of(f.begin(), f.end() - static_cast<long>(folded.size()),
                               [](char c) { return c >= 'a' && c <= 'z'; });
        };
        std::set<std::string> families;
        for (const auto& g : catalog.gpus) {
            bool hit = is_model(g.family);
            for (const auto& a : g.aliases) hit = hit || is_model(a);
            if (hit) families.insert(g.family);
        }
        if (families.size() == 1) {
            for (const auto& g : catalog.gpus)
                if (g.family == *families.begin()) match.gpus.push_back(&g);
            match.matched_by = "model number";
            return match;
        }
        if (families.size() > 1)
            throw UsageError(
                "GPU '" + shorten(name) + "' is ambiguous: " + join({families.begin(), families.end()}, ", "),
                "name one of them; a GPU count goes after a colon (A100:8) or an x (x8)");
    }
    std::vector<std::string> names;
    std::set<std::string> seen;
    for (const auto& g : catalog.gpus) {
        if (seen.insert(g.family).second) names.push_back(g.family);
        names.push_back(g.id);
        for (const auto& a : g.aliases) names.push_back(a);
    }
    std::string hint = "run 'gpuadvise gpus' for the GPUs in the catalog";
    if (auto best = closest_match(name, names)) hint = "did you mean '" + *best + "'? (" + hint + ")";
    if (all_digits(folded)) hint += "; a GPU count goes after a colon (A100:8) or an x (x8)";
    throw UsageError("unknown GPU '" + shorten(name) + "'", hint);
}

std::vector<const Gpu*> select_gpus(const Catalog& catalog, const GpuSpec& spec) {
    std::vector<const Gpu*> out;
    auto keep = [&](const Gpu* g) {
        if (spec.memory_gb && std::abs(g->memory_gb - *spec.memory_gb) > 0.5) return;
        if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    };
    if (spec.names.empty()) {
        for (const auto& g : catalog.gpus) keep(&g);
    } else {
        for (const auto& name : spec.names)
            for (const Gpu* g : resolve_gpu_name(catalog, name).gpus) keep(g);
    }
    return out;
}

}  // namespace gpuadvise
