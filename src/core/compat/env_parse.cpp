// Parsers for nvidia-smi, nvcc and the PyTorch probe, and nvidia-smi names -> catalog GPUs.
#include "gpuadvise/compat/env_parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/compat/compat.hpp"

namespace gpuadvise {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = trim(text.substr(start, end - start));
        if (!line.empty()) out.push_back(line);
        start = end + 1;
    }
    return out;
}

std::vector<std::string> split_fields(std::string_view line, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        std::size_t pos = line.find(sep, start);
        out.emplace_back(
            trim(line.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return out;
}

// "81920 MiB" -> 81920; "[N/A]" -> nullopt.
std::optional<double> parse_mib(std::string_view field) {
    field = trim(field);
    std::size_t unit = field.find_first_not_of("0123456789.");
    if (unit == 0) return std::nullopt;
    double value = 0;
    auto [ptr, ec] = std::from_chars(
        field.data(), field.data() + (unit == std::string_view::npos ? field.size() : unit), value);
    if (ec != std::errc()) return std::nullopt;
    std::string_view suffix = trim(field.substr(static_cast<std::size_t>(ptr - field.data())));
    if (suffix == "MiB" || suffix.empty()) return value;
    if (suffix == "GiB") return value * 1024;
    return std::nullopt;
}

bool is_vendor_word(const std::string& t) {
    return t == "nvidia" || t == "tesla" || t == "geforce" || t == "quadro";
}

// Lower-case tokens of a GPU name, split at spaces, '-' and '_', vendor words dropped.
std::vector<std::string> name_tokens(std::string_view name) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_' || c == '/') {
            if (!cur.empty() && !is_vendor_word(cur)) out.push_back(cur);
            cur.clear();
        } else {
            cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    if (!cur.empty() && !is_vendor_word(cur)) out.push_back(cur);
    return out;
}

// Does `folded` equal the concatenation of some run of consecutive tokens ("rtx"+"4090")?
bool tokens_spell(const std::vector<std::string>& tokens, const std::string& folded) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        std::string run;
        for (std::size_t j = i; j < tokens.size() && run.size() < folded.size(); ++j) {
            run += tokens[j];
            if (run == folded) return true;
        }
    }
    return false;
}

std::string form_factor_of(const std::vector<std::string>& tokens) {
    for (const auto& t : tokens) {
        if (t.rfind("sxm", 0) == 0 || t == "hbm3" || t == "hbm3e") return "sxm";
        if (t == "pcie") return "pcie";
    }
    return "";
}

}  // namespace

SmiParse parse_nvidia_smi_csv(std::string_view text) {
    SmiParse out;
    int number = 0;
    for (std::string_view line : lines_of(text)) {
        ++number;
        auto fields = split_fields(line, ',');
        if (fields.size() < 3) {
            out.problems.push_back("line " + std::to_string(number) +
                                   ": expected 'name, driver_version, memory.total, compute_cap', got '" +
                                   std::string(line) + "'");
            continue;
        }
        // The name is everything before the last three (or two) fields, so a comma in it survives.
        const bool has_cc = fields.size() >= 4 && parse_compute_capability(fields.back()).has_value();
        const std::size_t tail = has_cc ? 3 : 2;
        SmiGpu g;
        std::vector<std::string> name_parts(fields.begin(), fields.end() - static_cast<long>(tail));
        g.name = join(name_parts, ",");
        g.driver = fields[fields.size() - tail];
        g.memory_mib = parse_mib(fields[fields.size() - tail + 1]);
        if (has_cc) g.compute_capability = fields.back();
        if (g.name.empty() || !parse_version(g.driver)) {
            out.problems.push_back("line " + std::to_string(number) +
                                   ": expected 'name, driver_version, memory.total, compute_cap', got '" +
                                   std::string(line) + "'");
            continue;
        }
        out.gpus.push_back(std::move(g));
    }
    return out;
}

std::optional<std::string> parse_nvcc_version(std::string_view text) {
    for (std::string_view line : lines_of(text)) {
        const std::string_view key = "release ";
        if (line.find("Cuda compilation tools") == std::string_view::npos) continue;
        std::size_t pos = line.find(key);
        if (pos == std::string_view::npos) continue;
        std::string_view rest = line.substr(pos + key.size());
        std::string_view version = trim(rest.substr(0, rest.find(',')));
        if (auto v = parse_version(version); v && v->parts.size() >= 2) return std::string(version);
    }
    return std::nullopt;
}

std::optional<TorchProbe> parse_torch_probe(std::string_view text) {
    auto lines = lines_of(text);
    if (lines.size() < 3) return std::nullopt;
    lines.erase(lines.begin(), lines.end() - 3);
    TorchProbe p;
    p.version = std::string(lines[0]);
    if (!parse_pytorch_version(p.version)) return std::nullopt;
    if (lines[1] != "None") {
        if (!parse_version(lines[1])) return std::nullopt;
        p.cuda = std::string(lines[1]);
    }
    std::string_view list = lines[2];
    if (list.size() < 2 || list.front() != '[' || list.back() != ']') return std::nullopt;
    for (const auto& item : split_fields(list.substr(1, list.size() - 2), ',')) {
        if (item.empty()) continue;
        std::string_view s = item;
        if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
            s = s.substr(1, s.size() - 2);
        p.arch_list.emplace_back(s);
    }
    return p;
}

GpuIdentification identify_gpu(const Catalog& catalog, const SmiGpu& smi) {
    GpuIdentification id;
    const auto tokens = name_tokens(smi.name);
    std::string folded;
    for (const auto& t : tokens) folded += fold_name(t);
    // 1. The whole name is an id or alias ("A100-SXM4-80GB", "H100 80GB HBM3").
    for (const auto& g : catalog.gpus) {
        bool exact = fold_name(g.id) == folded;
        for (const auto& a : g.aliases) exact = exact || fold_name(a) == folded;
        if (exact) {
            id.gpu = &g;
            id.candidates = {&g};
            id.note = "matched " + g.id + " by name";
            return id;
        }
    }
    // 2. The family spelled by the name's tokens; the longest family wins ("RTX 6000 Ada" over "RTX 6000").
    std::string family;
    for (const auto& g : catalog.gpus) {
        std::string f = fold_name(g.family);
        if (!f.empty() && f.size() > family.size() && tokens_spell(tokens, f)) family = f;
    }
    if (family.empty()) {
        id.note = "'" + smi.name + "' is not in the catalog";
        return id;
    }
    for (const auto& g : catalog.gpus)
        if (fold_name(g.family) == family) id.candidates.push_back(&g);
    // 3. Memory (nvidia-smi reports usable MiB: 81920 for 80 GB, 15360 for a 16 GB T4) and form factor.
    std::vector<const Gpu*> best = id.candidates;
    if (smi.memory_mib) {
        const double gb = *smi.memory_mib / 1024.0;
        double nearest = 1e18;
        for (const Gpu* g : id.candidates) nearest = std::min(nearest, std::fabs(g->memory_gb - gb));
        best.clear();
        for (const Gpu* g : id.candidates)
            if (std::fabs(g->memory_gb - gb) <= nearest + 0.5 &&
                std::fabs(g->memory_gb - gb) <= 0.15 * g->memory_gb)
                best.push_back(g);
    }
    if (const std::string ff = form_factor_of(tokens); !ff.empty() && best.size() > 1) {
        std::vector<const Gpu*> same;
        for (const Gpu* g : best)
            if (g->form_factor == ff) same.push_back(g);
        if (!same.empty()) best = same;
    }
    if (best.size() == 1) {
        id.gpu = best.front();
        id.note = "matched " + id.gpu->id + " by name" + (smi.memory_mib ? " and memory" : "");
    } else if (best.empty()) {
        id.note = "'" + smi.name + "' looks like " + id.candidates.front()->family +
                  " but its memory matches no variant in the catalog";
    } else {
        std::vector<std::string> ids;
        for (const Gpu* g : best) ids.push_back(g->id);
        id.candidates = best;
        id.note = "'" + smi.name + "' is one of " + join(ids, ", ");
    }
    return id;
}

}  // namespace gpuadvise
