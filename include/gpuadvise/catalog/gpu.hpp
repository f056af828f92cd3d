// GPU models: datasheet specs, identity and name resolution.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/base/names.hpp"

namespace gpuadvise {

enum class Precision { fp32, tf32, fp16, bf16, fp8 };
inline constexpr NameTable<Precision, 5> kPrecisionNames{{{{Precision::fp32, "fp32"},
                                                           {Precision::tf32, "tf32"},
                                                           {Precision::fp16, "fp16"},
                                                           {Precision::bf16, "bf16"},
                                                           {Precision::fp8, "fp8"}}}};

std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view text);

// Dense (no 2:4 sparsity) peak throughput in TFLOPS; nullopt = not supported in hardware.
// GeForce cards carry the FP16-with-FP32-accumulate rate, which is what PyTorch AMP uses
// (reference/gpu-facts.md §0.3).
struct DenseTflops {
    std::optional<double> fp32;  // CUDA-core FP32 (non-tensor)
    std::optional<double> tf32;
    std::optional<double> fp16;
    std::optional<double> bf16;
    std::optional<double> fp8;

    std::optional<double> at(Precision p) const;
    bool operator==(const DenseTflops&) const = default;
};

struct Gpu {
    std::string id;                  // canonical: "a100-80gb-sxm"
    std::string family;              // "A100"
    std::string name;                // "NVIDIA A100 80GB SXM4"
    std::string vendor;              // "NVIDIA", "AMD"
    std::string architecture;        // "Ampere"
    std::string compute_capability;  // "8.0"; AMD: "gfx90a"
    double memory_gb = 0;
    std::optional<double> memory_bandwidth_gb_per_s;
    DenseTflops tflops;
    std::optional<double> tdp_w;
    std::string form_factor;   // "sxm", "pcie", "oam", "superchip"
    std::string interconnect;  // human-readable, e.g. "NVLink3 600 GB/s bidir"
    // The interconnect, typed when the catalog is read (io's GPU reader: keys nvlink_domain and
    // pcie_generation, else read off form_factor and interconnect): GPUs of one node joined by
    // NVLink/NVSwitch or Infinity Fabric (8 on SXM/OAM boards, 2 for bridged pairs, 1 for none), and
    // the PCIe generation of the host link (0 = not stated).
    int nvlink_domain = 1;
    int pcie_generation = 0;
    // Expected NCCL all-reduce bus bandwidth between GPUs of one node, GB/s (§3d); nullopt = PCIe class.
    std::optional<double> intra_node_busbw_gb_per_s;
    int year = 0;
    std::vector<std::string> aliases;    // other names that mean exactly this variant
    std::vector<std::string> uncertain;  // field names whose values are uncertain in the source
    std::string source;
    std::string notes;
    // Non-empty on the one variant a bare family name means where a single GPU must be named
    // (--measured-on V100): why it is the family's most common cloud variant, with its source (#13).
    std::string family_default;
    // Devices PyTorch sees per package (MI250X: 2 GCDs per OAM module). The row's memory,
    // bandwidth, TFLOPS and TDP are per device, and offer counts are in devices (#13).
    int devices_per_package = 1;
    std::string devices_source;  // where the count comes from (required when > 1)

    // Numeric compute capability (8.0) for NVIDIA parts; nullopt for AMD (gfx) parts.
    std::optional<double> compute_capability_value() const;
    bool supports(Precision p) const;
    // An AMD part (ROCm, gfx targets): the CUDA tables cannot judge it.
    bool is_amd() const;
    bool is_uncertain(std::string_view field) const;
    bool operator==(const Gpu&) const = default;
};

}  // namespace gpuadvise
