#include "io/skypilot_gpu_names.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"

namespace gpuadvise::io {
namespace {

// Accelerators that are not GPUs; PyTorch-on-CUDA advice does not apply to them.
constexpr std::string_view kNotGpuPrefixes[] = {"tpu",    "inferentia", "trainium", "gaudi",
                                                "habana", "xilinx",     "fpga"};

// GpuInfo memory (MiB) and datasheet GB agree within this share: 80 GB parts report 79.6 GiB,
// L40S 45 GiB of "48 GB", B200 179 GiB of 180/192 GB.
constexpr double kMemoryTolerance = 0.10;

std::vector<std::string> split_name(std::string_view name) {
    std::vector<std::string> tokens;
    std::string cur;
    for (char c : name) {
        if (c == '-' || c == '_' || c == ' ') {
            if (!cur.empty()) tokens.push_back(to_lower(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) tokens.push_back(to_lower(cur));
    return tokens;
}

// "80g" / "80gb" -> 80.
std::optional<double> memory_token(const std::string& t) {
    std::size_t digits = t.find_first_not_of("0123456789");
    if (digits == 0 || digits == std::string::npos) return std::nullopt;
    std::string_view unit = std::string_view(t).substr(digits);
    if (unit != "g" && unit != "gb") return std::nullopt;
    return parse_decimal(std::string_view(t).substr(0, digits));
}

struct NameParts {
    std::string base;  // the name without memory and form-factor words
    std::optional<double> memory_gb;
    std::string form_factor;
};

NameParts parse_name(std::string_view accelerator) {
    NameParts parts;
    for (const std::string& t : split_name(accelerator)) {
        if (auto mem = memory_token(t))
            parts.memory_gb = mem;
        else if (t.starts_with("sxm") || t == "mega")
            parts.form_factor = "sxm";  // a3-megagpu: H100 SXM
        else if (t == "pcie")
            parts.form_factor = "pcie";
        else if (t == "nvlink" || t == "ws" || t == "wk")
            continue;  // says nothing about the variant
        else
            parts.base += t;
    }
    // Names glued together upstream: RTXPRO6000WS (vast) is the RTX PRO 6000 workstation card.
    for (std::string_view suffix : {"ws", "wk"})
        if (parts.base.size() > suffix.size() + 3 && parts.base.ends_with(suffix))
            parts.base.erase(parts.base.size() - suffix.size());
    return parts;
}

bool near(double a, double b) { return std::fabs(a - b) <= kMemoryTolerance * std::max(a, b); }

// Keeps the candidates closest to `memory_gb` if any is within tolerance.
std::vector<const Gpu*> by_memory(const std::vector<const Gpu*>& gpus, double memory_gb) {
    std::vector<const Gpu*> out;
    double best = 1e18;
    for (const Gpu* g : gpus) {
        if (!near(g->memory_gb, memory_gb)) continue;
        double d = std::fabs(g->memory_gb - memory_gb);
        if (d < best - 0.5) {
            out.clear();
            best = d;
        }
        if (d <= best + 0.5) out.push_back(g);
    }
    return out;
}

std::string ids_of(const std::vector<const Gpu*>& gpus) {
    std::vector<std::string> ids;
    for (const Gpu* g : gpus) ids.push_back(g->id);
    return join(ids, ", ");
}

std::string format_gb(double gb) { return std::to_string(static_cast<long>(std::lround(gb))) + " GB"; }

}  // namespace

const Gpu* most_conservative_variant(const std::vector<const Gpu*>& candidates) {
    auto key = [](const Gpu* g) {
        return std::tuple(g->memory_gb, g->intra_node_busbw_gb_per_s.value_or(0.0),
                          g->form_factor == "pcie" ? 0 : 1, g->memory_bandwidth_gb_per_s.value_or(0.0),
                          std::string_view(g->id));
    };
    return *std::min_element(candidates.begin(), candidates.end(),
                             [&](const Gpu* a, const Gpu* b) { return key(a) < key(b); });
}

std::string_view form_factor_hint(std::string_view provider, std::string_view machine) {
    // Lower case in a buffer on the stack for the usual names (a table of a million instance types
    // asks once per row: a heap string each was a tenth of the read).
    char buffer[64];
    std::string heap;
    std::string_view m;
    if (machine.size() <= sizeof buffer) {
        for (std::size_t i = 0; i < machine.size(); ++i)
            buffer[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(machine[i])));
        m = std::string_view(buffer, machine.size());
    } else {
        heap = to_lower(machine);
        m = heap;
    }
    if (m.find("sxm") != std::string::npos) return "sxm";
    if (m.find("pcie") != std::string::npos || m.find("-pci") != std::string::npos ||
        m.find("_pci") != std::string::npos)
        return "pcie";
    // AWS P-family instances carry SXM modules with NVLink (aws.amazon.com/ec2/instance-types/p4, /p5).
    if (provider == "aws")
        for (std::string_view p : {"p3.", "p3dn.", "p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-"})
            if (m.starts_with(p)) return "sxm";
    // GCP accelerator-optimised machines (A2, A3, A4) are SXM/HGX boards (cloud.google.com/compute/docs/gpus).
    if (provider == "gcp" && (m.starts_with("a2-") || m.starts_with("a3-") || m.starts_with("a4-")))
        return "sxm";
    // OCI's 8-GPU bare-metal A100/H100/H200 shapes are HGX boards with NVLink/NVSwitch
    // (docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm, "Bare Metal Shapes - GPU").
    if (provider == "oci")
        for (std::string_view p : {"bm.gpu4.8", "bm.gpu.a100-v2.8", "bm.gpu.h100.8", "bm.gpu.h200.8"})
            if (m == p) return "sxm";
    // Azure's ND sizes are 8-GPU boards with NVLink inside the VM: NDv2 '8 NVIDIA Tesla V100 NVLINK-connected
    // GPUs', ND A100 v4 'NVLINK 3.0', ND H100 v5 'NVLINK 4.0' (learn.microsoft.com/azure/virtual-machines/sizes/
    // gpu-accelerated, the series summaries); its NC sizes are PCIe cards (A100 PCIe, H100 NVL): no hint.
    if (provider == "azure")
        for (std::string_view p : {"standard_nd40rs_v2", "standard_nd96asr_v4", "standard_nd96amsr_a100_v4",
                                   "standard_nd96isr_h100_v5", "standard_nd96isr_h200_v5"})
            if (m == p) return "sxm";
    // Verda (ex-DataCrunch) encodes SXM in the type: 1H100.80S.32V = one H100 80 GB SXM5.
    if (provider == "verda") {
        for (std::size_t i = 1; i + 1 < m.size(); ++i)
            if (m[i] == 's' && m[i + 1] == '.' && std::isdigit(static_cast<unsigned char>(m[i - 1])))
                return "sxm";
    }
    return "";
}

const GpuMapping& SkypilotGpuMapper::map(std::string_view provider, std::string_view accelerator,
                                         std::string_view machine, const GpuInfoFacts& info,
                                         double accelerator_count) {
    // Rows repeat a few GPU descriptions: the mapping is memoised by what decides it (the name, the
    // form-factor hint of the instance type, GpuInfo's numbers, the count), with the key built in a
    // reused buffer (a heap string per row was a fifth of a 100k-row load). The reader asks once per
    // kind of row (the hint, accelerator, GpuInfo and count), so the hint is worked out, not memoised.
    const std::string_view hint = form_factor_hint(provider, machine);
    key_.assign(accelerator).append("|").append(hint);
    // Raw bytes of the numbers: formatting them costs more than the rest of a row (callgrind).
    for (double v : {info.size_mib.value_or(-1), info.count.value_or(-1), info.total_mib.value_or(-1),
                     accelerator_count})
        key_.append(reinterpret_cast<const char*>(&v), sizeof v);
    return cache_.get(key_, [&] { return resolve(accelerator, hint, info, accelerator_count); });
}

bool SkypilotGpuMapper::may_name_a_gpu(std::string_view name) const {
    if (known_names_.empty())
        for (const auto& g : catalog_.gpus) {
            known_names_.insert(fold_name(g.id));
            known_names_.insert(fold_name(g.family));
            for (const auto& a : g.aliases) known_names_.insert(fold_name(a));
            folded_families_.push_back(fold_name(g.family));
        }
    const std::string folded = fold_name(name);
    if (known_names_.count(folded)) return true;
    for (const auto& family : folded_families_)
        if (folded.starts_with(family)) return true;
    return false;
}

const GpuMatch* SkypilotGpuMapper::candidates(std::string_view name) const {
    auto it = names_.find(std::string(name));
    if (it == names_.end()) {
        std::optional<GpuMatch> found;
        try {
            if (may_name_a_gpu(name)) found = resolve_gpu_name(catalog_, name);
        } catch (const UsageError&) {
        }
        it = names_.emplace(std::string(name), std::move(found)).first;
    }
    return it->second ? &*it->second : nullptr;
}

GpuMapping SkypilotGpuMapper::resolve(std::string_view accelerator, std::string_view machine_hint,
                                      const GpuInfoFacts& info, double accelerator_count) const {
    const std::string folded = fold_name(accelerator);
    for (std::string_view p : kNotGpuPrefixes)
        if (folded.starts_with(p)) {
            std::string kind = p == "tpu"          ? "TPU"
                               : p == "inferentia" ? "Inferentia"
                               : p == "trainium"   ? "Trainium"
                                                   : "not CUDA";
            return {"", "not a GPU (" + kind + ")", ""};
        }
    const NameParts parts = parse_name(accelerator);
    std::vector<const Gpu*> candidates;
    if (const GpuMatch* exact = this->candidates(accelerator)) {
        if (exact->gpus.size() == 1 && exact->matched_by != "family")
            return {exact->gpus.front()->id, "", ""};  // an id or alias names exactly one variant
        candidates = exact->gpus;
    } else if (const GpuMatch* base = this->candidates(parts.base)) {
        candidates = base->gpus;
    } else {
        return {"", "accelerator not in the GPU catalog: " + std::string(accelerator), ""};
    }
    const std::string name = std::string(accelerator);
    // Memory: from the name (A100-80GB), else GpuInfo. Some clouds put the per-GPU size in
    // SizeInMiB, vast puts the total of all GPUs there (and in TotalGpuMemoryInMiB); try both
    // readings and prefer the one the total field supports.
    if (parts.memory_gb) {
        auto kept = by_memory(candidates, *parts.memory_gb);
        if (kept.empty())
            return {"", "no " + format_gb(*parts.memory_gb) + " variant of " + name + " in the GPU catalog",
                    ""};
        candidates = kept;
    } else if (info.size_mib && *info.size_mib > 0) {
        const double direct = *info.size_mib / 1024.0;
        std::vector<double> readings{direct};
        if (accelerator_count > 1) {
            const double divided = direct / accelerator_count;
            const bool total_in_size = info.total_mib && *info.total_mib == *info.size_mib && info.count &&
                                       std::fabs(*info.count - accelerator_count) < 0.01;
            readings.insert(total_in_size ? readings.begin() : readings.end(), divided);
        }
        std::vector<const Gpu*> kept;
        for (double gb : readings)
            if (kept = by_memory(candidates, gb); !kept.empty()) break;
        if (kept.empty())
            return {"",
                    "GpuInfo memory " + format_gb(direct) + " matches no variant of " + name + " (" +
                        ids_of(candidates) + ")",
                    ""};
        candidates = kept;
    }
    const std::string hint = !parts.form_factor.empty() ? parts.form_factor : std::string(machine_hint);
    if (candidates.size() > 1 && !hint.empty()) {
        std::vector<const Gpu*> kept;
        for (const Gpu* g : candidates)
            if (g->form_factor == hint) kept.push_back(g);
        if (!kept.empty()) candidates = kept;
    }
    if (candidates.size() == 1) return {candidates.front()->id, "", ""};
    // The variant cannot be told: keep the row as the variant that promises least (marked, counted,
    // dropped by --strict-variants), so that no estimate is more optimistic than the hardware.
    const Gpu* assumed = most_conservative_variant(candidates);
    const std::string ambiguity = name + " could be " + ids_of(candidates);
    return {assumed->id, "",
            std::string(kVariantAssumedNote) + ": " + ambiguity + "; " + assumed->id +
                " assumed (least memory, slowest link)",
            ambiguity};
}

}  // namespace gpuadvise::io
