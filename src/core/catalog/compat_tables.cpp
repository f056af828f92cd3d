// Versions, compute capabilities and lookups in the compatibility tables.
#include "gpuadvise/catalog/compat_tables.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace gpuadvise {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Reads a non-negative integer of at most 6 digits at `pos`; advances `pos`.
std::optional<int> read_int(std::string_view s, std::size_t& pos) {
    std::size_t start = pos;
    while (pos < s.size() && is_digit(s[pos]) && pos - start < 7) ++pos;
    if (pos == start || pos - start > 6) return std::nullopt;
    int value = 0;
    std::from_chars(s.data() + start, s.data() + pos, value);
    return value;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Release series as a comparable pair, from "2.10" (not a float: 2.10 > 2.9).
std::optional<std::pair<int, int>> parse_series(std::string_view s) {
    auto v = parse_pytorch_version(s);
    if (!v) return std::nullopt;
    return std::pair{v->major, v->minor};
}

}  // namespace

std::strong_ordering operator<=>(const Version& a, const Version& b) {
    const std::size_t n = std::max(a.parts.size(), b.parts.size());
    for (std::size_t i = 0; i < n; ++i) {
        int x = i < a.parts.size() ? a.parts[i] : 0;
        int y = i < b.parts.size() ? b.parts[i] : 0;
        if (x != y) return x <=> y;
    }
    return std::strong_ordering::equal;
}

std::optional<Version> parse_version(std::string_view text) {
    text = trim(text);
    Version v;
    v.text = std::string(text);
    std::size_t pos = 0;
    while (true) {
        auto part = read_int(text, pos);
        if (!part) return std::nullopt;
        v.parts.push_back(*part);
        if (pos == text.size()) break;
        if (text[pos] != '.' || v.parts.size() >= 4) return std::nullopt;
        ++pos;
    }
    return v;
}

std::string PytorchVersion::series() const { return std::to_string(major) + "." + std::to_string(minor); }

std::optional<std::string> PytorchVersion::wheel() const {
    if (local.size() >= 5 && local.size() <= 6 && local.rfind("cu", 0) == 0 &&
        std::all_of(local.begin() + 2, local.end(), is_digit))
        return local;
    return std::nullopt;
}

std::optional<PytorchVersion> parse_pytorch_version(std::string_view text) {
    text = trim(text);
    PytorchVersion v;
    v.text = std::string(text);
    std::string_view public_part = text;
    if (auto plus = text.find('+'); plus != std::string_view::npos) {
        public_part = text.substr(0, plus);
        v.local = std::string(text.substr(plus + 1));
        if (v.local.empty() || v.local.find('+') != std::string::npos) return std::nullopt;
        for (char c : v.local)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') return std::nullopt;
    }
    std::size_t pos = 0;
    auto major = read_int(public_part, pos);
    if (!major || pos >= public_part.size() || public_part[pos] != '.') return std::nullopt;
    ++pos;
    auto minor = read_int(public_part, pos);
    if (!minor) return std::nullopt;
    v.major = *major;
    v.minor = *minor;
    if (pos < public_part.size() && public_part[pos] == '.' && pos + 1 < public_part.size() &&
        is_digit(public_part[pos + 1])) {
        ++pos;
        v.patch = read_int(public_part, pos);
        if (!v.patch) return std::nullopt;
    }
    // Pre-release and dev suffixes ("a0", "rc1", ".dev20250601", ".post1") belong to the same series.
    std::string_view rest = public_part.substr(pos);
    for (char c : rest)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') return std::nullopt;
    if (!rest.empty() && rest.front() != '.' && !std::isalpha(static_cast<unsigned char>(rest.front())))
        return std::nullopt;
    if (v.major > 99 || v.minor > 999) return std::nullopt;
    return v;
}

std::string wheel_for_cuda(const Version& cuda) {
    int major = cuda.parts.empty() ? 0 : cuda.parts[0];
    int minor = cuda.parts.size() > 1 ? cuda.parts[1] : 0;
    return "cu" + std::to_string(major) + std::to_string(minor);
}

std::optional<Version> cuda_of_wheel(std::string_view wheel) {
    if (wheel.size() < 5 || wheel.size() > 6 || wheel.substr(0, 2) != "cu") return std::nullopt;
    std::string_view digits = wheel.substr(2);
    if (!std::all_of(digits.begin(), digits.end(), is_digit)) return std::nullopt;
    // cu102 -> 10.2, cu118 -> 11.8, cu130 -> 13.0: the last digit is the minor version.
    std::string text = std::string(digits.substr(0, digits.size() - 1)) + "." +
                       std::string(digits.substr(digits.size() - 1));
    return parse_version(text);
}

std::optional<int> parse_compute_capability(std::string_view text) {
    text = trim(text);
    if (text.rfind("sm_", 0) == 0 || text.rfind("compute_", 0) == 0) {
        std::string_view digits = text.substr(text.find('_') + 1);
        while (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back())))
            digits.remove_suffix(1);
        if (digits.size() < 2 || digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), is_digit))
            return std::nullopt;
        int code = 0;
        std::from_chars(digits.data(), digits.data() + digits.size(), code);
        return code;
    }
    auto v = parse_version(text);
    if (!v || v->parts.size() != 2 || v->parts[1] > 9 || v->parts[0] > 99 || v->parts[0] < 1)
        return std::nullopt;
    return v->parts[0] * 10 + v->parts[1];
}

std::string format_compute_capability(int code) {
    return std::to_string(code / 10) + "." + std::to_string(code % 10);
}

bool archs_cover(const std::vector<std::string>& archs, int cc_code) {
    std::optional<int> low, high;
    for (const auto& a : archs) {
        auto code = parse_compute_capability(a);
        if (!code) continue;
        low = low ? std::min(*low, *code) : *code;
        high = high ? std::max(*high, *code) : *code;
    }
    return low && cc_code >= *low && cc_code <= *high;
}

const PytorchRelease* CompatTables::find_release(const PytorchVersion& v) const {
    for (const auto& r : releases)
        if (auto s = parse_series(r.series); s && s->first == v.major && s->second == v.minor) return &r;
    return nullptr;
}

const WheelArchs* CompatTables::archs_for(std::string_view wheel, const PytorchVersion& v) const {
    const std::pair<int, int> series{v.major, v.minor};
    for (const auto& row : wheel_archs) {
        if (row.wheel != wheel) continue;
        auto from = parse_series(row.pytorch_from);
        auto to = row.pytorch_to.empty() ? std::nullopt : parse_series(row.pytorch_to);
        if (from && series < *from) continue;
        if (to && series > *to) continue;
        return &row;
    }
    return nullptr;
}

std::optional<Version> CompatTables::min_driver_for_cuda(const Version& cuda) const {
    const int major = cuda.parts.empty() ? 0 : cuda.parts[0];
    for (const auto& f : minor_compat)
        if (f.cuda_major == major) return parse_version(f.min_driver);
    return toolkit_driver_for(cuda);
}

std::optional<Version> CompatTables::toolkit_driver_for(const Version& cuda) const {
    // The row of the same major.minor; a patch release ("12.2.140") needs what its minor needs.
    for (const auto& t : toolkit_drivers) {
        auto v = parse_version(t.cuda);
        if (!v || v->parts.empty() || cuda.parts.empty()) continue;
        int minor = cuda.parts.size() > 1 ? cuda.parts[1] : 0;
        int row_minor = v->parts.size() > 1 ? v->parts[1] : 0;
        if (v->parts[0] == cuda.parts[0] && row_minor == minor) return parse_version(t.min_driver);
    }
    return std::nullopt;
}

const GpuDriverFloor* CompatTables::gpu_driver_for(int cc_code) const {
    for (const auto& g : gpu_drivers)
        if (parse_compute_capability(g.compute_capability) == cc_code) return &g;
    return nullptr;
}

bool CompatTables::gpu_older_than_driver_rows(int cc_code) const {
    std::optional<int> lowest;
    for (const auto& g : gpu_drivers)
        if (auto c = parse_compute_capability(g.compute_capability))
            lowest = lowest ? std::min(*lowest, *c) : *c;
    return lowest && cc_code < *lowest;
}

const PrecisionRule* CompatTables::rule_for(Precision p) const {
    for (const auto& r : precision_rules)
        if (r.precision == p) return &r;
    return nullptr;
}

}  // namespace gpuadvise
