// JSON and table pieces shared by the commands that show GPUs (gpus, compare, estimate).
#pragma once

#include <nlohmann/json.hpp>

#include "gpuadvise/catalog/gpu.hpp"

namespace gpuadvise::cli {

// {"fp32", "tf32", "fp16", "bf16", "fp8"}: dense TFLOPS, null where unsupported.
nlohmann::ordered_json tflops_json(const DenseTflops& t);
// The keys every GPU object starts with: id, family, name, memory_gb, memory_bandwidth_gb_per_s, tflops,
// compute_capability.
nlohmann::ordered_json gpu_identity_json(const Gpu& g);

}  // namespace gpuadvise::cli
