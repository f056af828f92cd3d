// SkyPilot accelerator names -> canonical GPU ids. SkyPilot's names are not normalised across
// clouds (A100 is 40 GB on AWS and GCP but 80 GB on cudo; RTX6000-Ada vs RTX-6000-Ada; H100 vs
// H100-SXM vs H100-80G-PCIe), so a name only selects candidates from the GPU catalog (id, alias
// or family); the memory in GpuInfo and form-factor hints in the names pick the variant. What
// stays ambiguous or unknown is skipped with a reason, never guessed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpuadvise/base/hash_index.hpp"
#include "gpuadvise/catalog/catalog.hpp"
#include "gpuadvise/catalog/gpu_query.hpp"
#include "io/skypilot_records.hpp"

namespace gpuadvise::io {

struct GpuMapping {
    std::string gpu_id;       // canonical id, empty when skipped
    std::string skip_reason;  // why not, e.g. "not a GPU (TPU)"
    // Set when the name cannot tell the variant (a bare "A100", no memory, no form factor): gpu_id is
    // then the family's most conservative candidate (least memory, slowest link) and this says so,
    // e.g. "variant assumed: A100 could be a100-40gb-pcie, a100-40gb-sxm; a100-40gb-pcie assumed".
    std::string variant_assumed;
    std::string ambiguity =
        {};  // with variant_assumed: what cannot be told, "A100 could be a100-40gb-pcie, …"
};

// The note prefix of an offer whose GPU variant was assumed (see GpuMapping::variant_assumed).
inline constexpr std::string_view kVariantAssumedNote = "variant assumed";

class SkypilotGpuMapper {
public:
    explicit SkypilotGpuMapper(const Catalog& catalog) : catalog_(catalog) {}

    // `machine` is the instance type (for GCP accelerator rows: the host machine type); it and
    // the provider give form-factor hints (AWS p3/p4d/p5, GCP a2/a3 are SXM machines).
    const GpuMapping& map(std::string_view provider, std::string_view accelerator, std::string_view machine,
                          const GpuInfoFacts& info, double accelerator_count);

private:
    GpuMapping resolve(std::string_view accelerator, std::string_view form_factor, const GpuInfoFacts& info,
                       double accelerator_count) const;

    // The candidates a name selects (resolve_gpu_name is slow on unknown names: it ranks "did you mean").
    const GpuMatch* candidates(std::string_view name) const;

    // False when no id, alias or family (alone, or followed by a memory size) can match `name`: a
    // superset of what resolve_gpu_name accepts, checked first because on a miss resolve_gpu_name
    // ranks every catalog name for its "did you mean" hint (most of a default-catalog load).
    bool may_name_a_gpu(std::string_view name) const;

    const Catalog& catalog_;
    TextMemo<GpuMapping> cache_;
    std::string key_;                                      // reused lookup key
    mutable std::unordered_set<std::string> known_names_;  // folded ids, aliases and families
    mutable std::vector<std::string> folded_families_;
    mutable std::unordered_map<std::string, std::optional<GpuMatch>> names_;
};

// The most conservative of several variants: least memory, then slowest link (intra-node bus bandwidth,
// unknown = slowest; PCIe before SXM), then least memory bandwidth, then id (exposed for tests).
const Gpu* most_conservative_variant(const std::vector<const Gpu*>& candidates);

// "sxm", "pcie" or "" from an instance type and provider (exposed for tests).
std::string_view form_factor_hint(std::string_view provider, std::string_view machine);

}  // namespace gpuadvise::io
