// Serving a decoder LM: the engines (their efficiency factors), the latency targets of an online
// service, and what one replica does at a concurrency (docs/methodology.md, "Serving").
#pragma once

#include <optional>
#include <string_view>

#include "gpuadvise/base/names.hpp"

namespace gpuadvise {

// The serving engines whose published measurements calibrate the serving model.
enum class ServingEngineId { vllm, sglang, trt_llm, tgi };
inline constexpr NameTable<ServingEngineId, 4> kServingEngineNames{{{{ServingEngineId::vllm, "vllm"},
                                                                     {ServingEngineId::sglang, "sglang"},
                                                                     {ServingEngineId::trt_llm, "trt-llm"},
                                                                     {ServingEngineId::tgi, "tgi"}}}};
inline constexpr ServingEngineId kDefaultServingEngine = ServingEngineId::vllm;

// How close one engine gets to the hardware (each factor fitted in docs/methodology.md, "Serving
// engines", to the measurements named there).
struct ServingEngine {
    ServingEngineId id;
    std::string_view name;          // "vLLM"
    std::string_view version;       // the version the factors were fitted on
    double decode_bandwidth_share;  // share of HBM bandwidth a decode step reaches (weights + KV cache)
    double prefill_efficiency;      // x the matmul efficiency (physics.hpp) reached in prefill
    double step_overhead_s;         // per decode step: scheduler, sampling, kernel launches
    // One tensor-parallel all-reduce of a decode step's hidden states, its fixed latency: over
    // NVLink/NVSwitch, and over PCIe (no NVLink: through the PCIe switch or the host).
    double allreduce_latency_nvlink_s;
    double allreduce_latency_pcie_s;
    int max_concurrency;  // sequences one replica batches at most (vLLM's max_num_seqs 256)
};

const ServingEngine& serving_engine(ServingEngineId id);

// Latency targets of an online service at its peak: time to the first token and per output token.
// Defaults: MLPerf Inference's server scenario for Llama-2-70B (TTFT 2 s, TPOT 200 ms at the 99th
// percentile; docs/methodology.md).
inline constexpr double kDefaultTtftS = 2.0;
inline constexpr double kDefaultTpotS = 0.2;
struct LatencyTargets {
    double ttft_s = kDefaultTtftS;
    double tpot_s = kDefaultTpotS;
    bool ttft_given = false, tpot_given = false;
};

}  // namespace gpuadvise
