// PyTorch / CUDA / driver / compute-capability compatibility: the versions and the tables
// (data/compat.yaml, reference/gpu-facts.md §5). The checks over them are in compat.hpp.
//
// pip/conda PyTorch wheels bundle their own CUDA runtime, so what must fit on the host is the
// NVIDIA driver (against the wheel's CUDA) and the GPU's compute capability (against the wheel's
// architecture list) — not the CUDA toolkit installed beside it (gpu-facts §5a).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/gpu.hpp"

namespace gpuadvise {

// A dotted numeric version: driver "535.104.05", CUDA "12.2", "580". Compared part by part,
// missing parts count as 0 (so "580" <= "580.65.06").
struct Version {
    std::vector<int> parts;
    std::string text;  // as written

    friend std::strong_ordering operator<=>(const Version& a, const Version& b);
    friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }
};
// Digits and dots only ("535.104.05"); nullopt otherwise.
std::optional<Version> parse_version(std::string_view text);

// A PyTorch version as users and torch.__version__ write it: "2.1", "2.1.0", "2.1+cu118",
// "1.12.1+cu102", "2.3.0a0+git1234", "2.1.0+cpu", "2.8.0.dev20250601+cu128".
struct PytorchVersion {
    int major = 0;
    int minor = 0;
    std::optional<int> patch;
    std::string local;  // after '+': "cu118", "cpu", "rocm5.7", "git1234", or empty
    std::string text;   // as written

    std::string series() const;                // "2.1"
    std::optional<std::string> wheel() const;  // "cu118" when `local` names a CUDA wheel variant
};
std::optional<PytorchVersion> parse_pytorch_version(std::string_view text);

// CUDA version <-> wheel variant: 11.8 <-> "cu118", 10.2 <-> "cu102", 13.0 <-> "cu130".
std::string wheel_for_cuda(const Version& cuda);
std::optional<Version> cuda_of_wheel(std::string_view wheel);

// Compute capability as an integer code: "8.6" -> 86, "10.0" -> 100, "sm_90" -> 90, "sm_90a" -> 90;
// nullopt for AMD gfx targets and anything else.
std::optional<int> parse_compute_capability(std::string_view text);
std::string format_compute_capability(int code);  // 86 -> "8.6"

// ---- The tables (data/compat.yaml; every row carries its source) ----

// One PyTorch release series and the CUDA wheel variants published for it (§5a).
struct PytorchRelease {
    std::string series;  // "1.12"
    std::vector<std::string>
        wheels;  // "cu102", "cu113", "cu116" (table order = preference, oldest CUDA first)
    std::string notes;
    std::string source;

    bool operator==(const PytorchRelease&) const = default;
};

// Minimum driver a CUDA toolkit release needs (§5b, Linux x86_64).
struct ToolkitDriver {
    std::string cuda;        // "12.2"
    std::string min_driver;  // "535.54.03"
    std::string source;

    bool operator==(const ToolkitDriver&) const = default;
};

// Minor-version compatibility: any CUDA <major>.x wheel runs on a driver at least this (§5b).
struct MinorCompatFloor {
    int cuda_major = 0;
    std::string min_driver;  // "525.60.13"
    std::string source;

    bool operator==(const MinorCompatFloor&) const = default;
};

// The GPU architectures a wheel variant is built for, for a range of PyTorch releases (§5a, §5c).
// A GPU is supported when its compute capability lies between the lowest and the highest sm_ of
// the list (a cubin runs on later minor revisions of its major; gpu-facts rule 2 is applied as
// written: Ada needs cu118+, so the range stops at the highest listed sm_).
struct WheelArchs {
    std::string wheel;               // "cu128"
    std::string pytorch_from;        // first series, inclusive: "2.8"
    std::string pytorch_to;          // last series, inclusive; empty = no end
    std::vector<std::string> archs;  // "sm_70", "sm_75", ...
    std::string notes;
    std::string source;

    bool operator==(const WheelArchs&) const = default;
};

// A precision needs a minimum compute capability; below it, use `fallback` (§5c rules 3, 4).
struct PrecisionRule {
    Precision precision = Precision::bf16;
    std::string min_compute_capability;  // "8.0"
    Precision fallback = Precision::fp16;
    std::string source;

    bool operator==(const PrecisionRule&) const = default;
};

// The oldest NVIDIA driver that supports a GPU architecture at all, whatever the wheel (#13): a
// cu118 wheel needs only 450.80.02 by minor-version compatibility, but an H100 is unknown to a
// driver older than the branch that added Hopper. Keyed by compute capability; GPUs older than
// the lowest row run on every driver the wheels of the tables need (CUDA 10.2: 440.33 and later);
// a newer compute capability without a row is not checked ("unknown").
struct GpuDriverFloor {
    std::string compute_capability;  // "9.0"
    std::string min_driver;          // "520.61.05"
    std::string gpus;                // which GPUs, for messages: "H100, H200, GH200"
    std::string source;

    bool operator==(const GpuDriverFloor&) const = default;
};

struct CompatTables {
    std::vector<PytorchRelease> releases;
    std::vector<ToolkitDriver> toolkit_drivers;
    std::vector<MinorCompatFloor> minor_compat;
    std::vector<WheelArchs> wheel_archs;
    std::vector<PrecisionRule> precision_rules;
    std::string source;  // the file's overall source line
    std::vector<GpuDriverFloor> gpu_drivers;

    bool empty() const { return releases.empty() && toolkit_drivers.empty() && wheel_archs.empty(); }

    const PytorchRelease* find_release(const PytorchVersion& v) const;
    // Architectures of `wheel` for that release; nullptr when the table has no row.
    const WheelArchs* archs_for(std::string_view wheel, const PytorchVersion& v) const;
    // The driver that runs any wheel of this CUDA: the minor-version floor of its major (11+),
    // else the toolkit's own driver (10.x). nullopt when the tables do not know that CUDA.
    std::optional<Version> min_driver_for_cuda(const Version& cuda) const;
    // The toolkit's own driver (needed for PTX JIT and some newer features).
    std::optional<Version> toolkit_driver_for(const Version& cuda) const;
    const PrecisionRule* rule_for(Precision p) const;
    // The driver floor of a compute capability: its row; nullptr when there is none.
    const GpuDriverFloor* gpu_driver_for(int cc_code) const;
    // True when `cc_code` is older than every gpu_drivers row (no GPU floor above the wheels').
    bool gpu_older_than_driver_rows(int cc_code) const;
    bool operator==(const CompatTables&) const = default;
};

// Does the wheel's architecture list cover this compute capability (range rule above)?
bool archs_cover(const std::vector<std::string>& archs, int cc_code);

}  // namespace gpuadvise
