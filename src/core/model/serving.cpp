// The serving engines' efficiency factors (serving.hpp). Each row's factors are fitted to the
// published measurements listed in docs/methodology.md, "Serving engines"; tests/core pins the
// model to that table within the tolerance stated there.
#include "gpuadvise/model/serving.hpp"

#include <array>

namespace gpuadvise {
namespace {

// decode share, prefill efficiency, step overhead, all-reduce latency NVLink / PCIe, max sequences.
constexpr std::array<ServingEngine, 4> kEngines{{
    {ServingEngineId::vllm, "vLLM", "0.6-0.8", 0.80, 1.00, 1.0e-3, 10e-6, 40e-6, 256},
    {ServingEngineId::sglang, "SGLang", "0.3-0.4", 0.82, 1.00, 0.7e-3, 10e-6, 40e-6, 256},
    {ServingEngineId::trt_llm, "TensorRT-LLM", "0.14-1.2", 0.72, 1.10, 0.5e-3, 8e-6, 40e-6, 256},
    {ServingEngineId::tgi, "TGI", "2.x-3.x", 0.72, 0.95, 1.5e-3, 12e-6, 50e-6, 256},
}};

}  // namespace

const ServingEngine& serving_engine(ServingEngineId id) {
    for (const auto& e : kEngines)
        if (e.id == id) return e;
    return kEngines[0];
}

}  // namespace gpuadvise
