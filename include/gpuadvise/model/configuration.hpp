// One configuration of a job: instances (nodes) x GPUs per instance = total GPUs, the network
// between them and the parallel layout over them. estimate, recommend and the cost model all
// read time and price from it (docs/methodology.md, "Configurations and layouts").
#pragma once

#include <optional>
#include <string>

#include "gpuadvise/catalog/network.hpp"
#include "gpuadvise/model/serving.hpp"

namespace gpuadvise {

// The network of a configuration.
struct LinkSpec {
    int nodes = 1;                         // instances
    double intra_node_busbw_gb_per_s = 0;  // 0 = use the GPU's (or the PCIe default)
    double inter_node_gbps = 0;  // network between nodes, Gbit/s per node (0 = unknown: a stated default)
    std::optional<NetworkKind> network_kind;  // nullopt = unknown
    std::string network_source;               // where inter_node_gbps comes from
    bool assumed = false;  // nothing states the network: policy unknown_network_gbps, Ethernet
    bool stated = false;   // the user's (--network-gbps), where the catalog gives none
};

// How the work is split over the GPUs: data x tensor x pipeline = GPUs; ZeRO/FSDP over the data
// ranks; each data rank runs grad_accumulation micro-batches of micro_batch samples per step.
struct Parallelism {
    int data = 1;
    int tensor = 1;
    int pipeline = 1;
    int zero_stage = 0;
    int micro_batch = 1;
    int grad_accumulation = 1;
    bool checkpointing = false;  // full activation recompute
    // Expert parallelism (mixture of experts): the routed experts split over this many of the data
    // ranks (Megatron-LM's expert_model_parallel_size divides the data-parallel size; tokens go
    // all-to-all to their experts once per MoE layer each way). 1 = every rank holds every expert.
    int expert = 1;
    int gpus() const { return data * tensor * pipeline; }
    // Samples per optimizer step over the whole job.
    double global_batch() const { return static_cast<double>(data) * micro_batch * grad_accumulation; }
    bool operator==(const Parallelism&) const = default;
};

// What the user pinned of the layout; the planner chooses the rest.
struct LayoutPins {
    std::optional<int> tensor, pipeline, micro_batch, expert;
    std::optional<double> global_batch;  // samples (sequences) per optimizer step
};

struct Configuration {
    int nodes = 1;
    int gpus_per_node = 1;
    LinkSpec network;
    Parallelism layout;
    int total_gpus() const { return nodes * gpus_per_node; }
};

// Serving knobs of an inference job. An online service (--task serve) is sized to its peak
// traffic under latency targets; an offline one (--task batch-inference) is a volume of tokens,
// billed as runs. --task inference reads as one of them (Workload::assumptions says which).
struct ServingRequest {
    std::optional<int> prompt_len, output_len, concurrency;
    std::optional<double> tokens_per_month;  // recommend: monthly output volume
    bool online = false;                     // --task serve
    LatencyTargets targets;                  // online only: --ttft-ms, --tpot-ms
    ServingEngineId engine = kDefaultServingEngine;
    bool engine_given = false;
};

// Serving figures of an LLM inference estimate (docs/methodology.md, "Serving").
struct ServingEstimate {
    int prompt_len = 0, output_len = 0, concurrency = 0;
    bool concurrency_from_memory = false;  // the default: as many sequences as the KV cache holds
    double tokens_per_s = 0;               // output tokens per second, whole configuration
    double time_to_first_token_s = 0;
    double time_per_output_token_s = 0;
    std::optional<double> cost_per_million_tokens;  // output tokens; filled where a price is known
    ServingEngineId engine = kDefaultServingEngine;
    // Online serving: each of the configuration's replicas (its data ranks) runs
    // `concurrency_per_replica` sequences, the most that meet the targets (or the memory holds).
    int concurrency_per_replica = 0;
    double requests_per_s = 0;  // the configuration's capacity at that concurrency
    bool meets_targets = true;
    std::string limited_by;  // what stops more concurrency: "memory", "engine", "TPOT target", "TTFT target"
    double best_ttft_s = 0, best_tpot_s = 0;  // at one sequence per replica: the floor of the latency
    double target_miss = 0;  // the larger of best TTFT / its target and best TPOT / its target (> 1: missed)
};

}  // namespace gpuadvise
