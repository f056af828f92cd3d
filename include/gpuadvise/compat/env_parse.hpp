// Parsers for what the environment tools print (pure: the text comes in as a string; src/io/
// env_probe runs the tools), and the mapping of nvidia-smi GPU names to catalog GPUs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog/catalog.hpp"

namespace gpuadvise {

// One line of `nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader`:
//   NVIDIA A100-SXM4-80GB, 535.104.05, 81920 MiB, 8.0
// (drivers too old for compute_cap print three fields; the CC is then taken from the catalog).
struct SmiGpu {
    std::string name;                  // "NVIDIA A100-SXM4-80GB"
    std::string driver;                // "535.104.05"
    std::optional<double> memory_mib;  // 81920; nullopt for "[N/A]"
    std::string compute_capability;    // "8.0", or empty
};

struct SmiParse {
    std::vector<SmiGpu> gpus;
    std::vector<std::string> problems;  // "line 2: expected name, driver, memory, compute capability"
};
SmiParse parse_nvidia_smi_csv(std::string_view text);

// "Cuda compilation tools, release 12.2, V12.2.140" -> "12.2"; nullopt when no such line.
std::optional<std::string> parse_nvcc_version(std::string_view text);

// The output of python3 -c 'import torch; print(torch.__version__); print(torch.version.cuda);
// print(torch.cuda.get_arch_list())':
//   2.1.0+cu121
//   12.1
//   ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']
struct TorchProbe {
    std::string version;              // "2.1.0+cu121"
    std::optional<std::string> cuda;  // "12.1"; nullopt for CPU builds ("None")
    std::vector<std::string> arch_list;
};
// The last three non-empty lines are read (anything printed before them is ignored).
std::optional<TorchProbe> parse_torch_probe(std::string_view text);

// Which catalog GPU an nvidia-smi line is: family tokens of the name ("A100", "RTX 4090"), then
// the memory (81920 MiB -> the 80 GB variant), then the form factor ("SXM4", "PCIe", "HBM3").
struct GpuIdentification {
    const Gpu* gpu = nullptr;            // the best match, when one is clear
    std::vector<const Gpu*> candidates;  // every variant of the matched family
    std::string note;                    // "matched a100-80gb-sxm by name and 80 GB" / "not in the catalog"
};
GpuIdentification identify_gpu(const Catalog& catalog, const SmiGpu& smi);

}  // namespace gpuadvise
