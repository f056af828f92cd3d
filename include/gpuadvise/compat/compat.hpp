// PyTorch / CUDA / driver / compute-capability compatibility: the checks that answer "does this
// PyTorch run here?", over the tables of compat_tables.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/catalog/compat_tables.hpp"

namespace gpuadvise {

struct Catalog;
struct Offer;

// ---- Checks ----

// What to check; every field optional. Strings as users type them; check_compat parses them.
struct EnvQuery {
    std::optional<std::string> gpu;                 // catalog name: "T4", "a100-80gb-sxm", "A100" (family)
    std::optional<std::string> compute_capability;  // "8.0": from nvidia-smi, or for a GPU not in the catalog
    std::optional<std::string> driver;              // "535.104.05"
    std::optional<std::string> cuda;                // toolkit (nvcc) or wheel CUDA "12.2"
    std::optional<std::string> pytorch;             // "2.1", "2.1.0+cu118"
    std::optional<std::string> pytorch_cuda;        // torch.version.cuda of an installed PyTorch: "12.1"
    std::optional<std::string> precision;           // "bf16"
    std::vector<std::string> arch_list;             // torch.cuda.get_arch_list() of an installed PyTorch
};

struct CompatCheck {
    std::string
        name;  // "pytorch_release", "wheel_variant", "gpu_architecture", "gpu_driver", "driver", "cuda_toolkit", "precision", ...
    bool ok = true;
    std::string message;
    bool checked = true;  // false: the tables cannot judge it (AMD/ROCm, no row); ok is then false too
};

struct CompatReport {
    // The environment as understood (empty = unknown).
    std::string gpu;                   // as given
    std::vector<std::string> gpu_ids;  // catalog ids it covers
    std::string compute_capability;    // "8.0"
    std::string driver;
    std::string cuda;
    std::string pytorch;
    std::string wheel;  // the variant checked or chosen: "cu118"
    std::string precision;
    bool compatible = true;  // every check ok (and checked)
    bool unknown = false;    // no check failed, but some could not be made: never "Compatible"
    std::vector<CompatCheck> checks;
    std::vector<std::string> suggestions;
    std::vector<std::string>
        driver_upgrades;  // the driver versions the suggestions ask for (each suggested once)
    std::string install;  // pip command for the wheel chosen; the last suggestion when compatible
};

// Throws UsageError for a value that does not parse, an unknown GPU name or PyTorch release,
// or an unknown precision.
CompatReport check_compat(const Catalog& catalog, const EnvQuery& query);

// For one GPU and one PyTorch release: which of its wheels can run there (with a known host
// driver, only those that driver runs), the lowest driver they need, and the note an offer carries.
struct PytorchFit {
    bool supported = false;             // some wheel fits
    bool checked = true;                // false for GPUs the CUDA tables cannot judge (AMD: ROCm builds)
    std::vector<std::string> wheels;    // fitting wheels, table order
    std::optional<Version> min_driver;  // lowest driver among them (minor-version compatibility)
    std::string requirement;            // "needs driver ≥ 450.80.02 (cu118) or ≥ 525.60.13 (cu121)"
                                        // (each wheel's figure is raised to the GPU's own driver floor)
    std::string reason;                 // why not, when !supported
};
PytorchFit fit_pytorch(const CompatTables& tables, const Gpu& gpu, const PytorchVersion& pytorch,
                       const std::optional<Version>& driver = std::nullopt);

// fit_pytorch for an offer: its GPU, and its provider's driver when the catalog knows it. An offer
// whose GPU is not in the catalog is not supported (reason says so). For `offers --pytorch` and
// `recommend`: drop offers with !supported (report `reason`), show `requirement` on the rest.
PytorchFit fit_offer(const Catalog& catalog, const Offer& offer, const PytorchVersion& pytorch);

}  // namespace gpuadvise
