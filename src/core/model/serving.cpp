// The serving engines' efficiency factors (serving.hpp). Each row's factors are fitted to the
// published measurements listed in docs/methodology.md, "Serving engines"; tests/core pins the
// model to that table within the tolerance stated there.
#include "gpuadvise/model/serving.hpp"

#include <array>

namespace gpuadvise {
namespace {

// decode share, prefill efficiency, step overhead, all-reduce latency NVLink / PCIe, max sequences.
constexpr std::array<ServingEngine, 4> kEngines{{
    // vLLM 0.11-0.23: the model's decode share and step overhead, within 1.25x of its rows (V3-V7).
    {ServingEngineId::vllm, "vLLM", "0.11-0.23", 0.80, 1.00, 1.0e-3, 10e-6, 40e-6, 256},
    // SGLang 0.5: vLLM's factors (one steady row, S4, at 1.11x; a separate fit needs more).
    {ServingEngineId::sglang, "SGLang", "0.5", 0.80, 1.00, 1.0e-3, 10e-6, 40e-6, 256},
    // TensorRT-LLM 0.14-1.2: decode share fitted to its eight steady rows (T1-T8); prefill 1.1x
    // vLLM's (its fused attention kernels), 0.5 ms per step (C++ runtime); not fitted.
    {ServingEngineId::trt_llm, "TensorRT-LLM", "0.14-1.2", 0.72, 1.10, 0.5e-3, 8e-6, 40e-6, 256},
    // TGI 3: not calibrated (its published figures are wall times, not token rates): vLLM's factors.
    {ServingEngineId::tgi, "TGI", "3", 0.80, 1.00, 1.0e-3, 10e-6, 40e-6, 256},
}};

}  // namespace

const ServingEngine& serving_engine(ServingEngineId id) {
    for (const auto& e : kEngines)
        if (e.id == id) return e;
    return kEngines[0];
}

}  // namespace gpuadvise
