#include "gpuadvise/base/policy.hpp"

#include <stdexcept>
#include <string>

namespace gpuadvise {

// Defaults. Seed = the source documents in shared/seeds; facts = reference/gpu-facts.md.
const std::vector<PolicyKey>& policy_keys() {
    static const std::vector<PolicyKey> keys = {
        {"tier_small_max_params", 5e6,
         "step 1 heuristic: up to this many parameters is 'small' (LeNet-class -> T4; seed 3.1)", 1, 1e15},
        {"tier_medium_max_params", 1e8,
         "step 1 heuristic: up to this many parameters is 'medium' (ResNet-class -> V100; seed 3.1); above "
         "is 'large' (BERT-class -> A100)",
         1, 1e15},
        {"reserved_runs_per_week_heuristic", 3,
         "step 2 heuristic: more runs a week than this -> monthly reserved (seed 3.1)", 0, 10000},
        {"hours_per_month", 730, "hours in a month for reserved capacity and lint (8760 / 12)", 1, 744},
        {"overbuy_speed_fraction", 0.85,
         "pitfall: a cheaper GPU reaching this share of the premium one's speed is enough (seed 4.1, YOLOv5 "
         "A100 vs V100)",
         0.01, 1},
        {"host_ram_per_gpu_memory", 2,
         "step 3: the guide's rule of thumb, host RAM of at least this multiple of total GPU memory (seed "
         "1.1; a note in step 3, not checked per option)",
         0, 100},
        {"checkpoint_load_ram_factor", 1,
         "step 3: host RAM must hold this multiple of the node's share of the weights while the checkpoint "
         "loads (1 = one full in-memory copy, as torch.load or from_pretrained without streaming; "
         "assumption)",
         0, 100},
        {"host_ram_reserve_gb", 2,
         "step 3: host RAM the OS, Python and the CUDA context take besides the checkpoint, GB (assumption)",
         0, 10000},
        {"jpeg_min_image_px", 64,
         "step 3: image jobs with smaller images (MNIST 28 px, CIFAR 32 px) read arrays from memory, not "
         "JPEG files: no data-loading vCPU estimate (assumption)",
         0, 100000},
        {"jpeg_images_per_core", 150,
         "step 3: ImageNet-sized JPEGs one CPU core decodes and augments per second in a PyTorch DataLoader "
         "(estimate; PIL-SIMD/torchvision CPU pipelines are of the order of 100-300 per core, NVIDIA DALI's "
         "motivation; not re-checked)",
         1, 100000},
        {"hires_min_gpu_memory_gb", 80,
         "step 3: high-resolution imaging (4K medical) wants this GPU memory class (seed 3.1)", 1, 100000},
        {"multi_node_min_network_gbps", 25,
         "step 4: multi-node training wants RDMA of at least this many Gbit/s (seed 4.2)", 0, 100000},
        {"slow_network_gbps", 1,
         "step 4: a network this slow or slower is flagged (seed 4.2: 1 Gbps, 40% of time in sync)", 0,
         100000},
        {"multi_node_min_scaling_efficiency", 0.5,
         "step 4: a multi-node configuration is ranked only when its estimated scaling efficiency reaches "
         "this share (unless --nodes pins the count)",
         0, 1},
        {"unknown_network_gbps", 10,
         "step 4: the network between nodes assumed where neither the catalog nor --network-gbps states it, "
         "Gbit/s of ordinary Ethernet without RDMA (a conservative default: a marketplace or cloud host's "
         "10 GbE NIC; an assumption: marketplace listings state only the host's internet speed, e.g. "
         "vast.ai's Net_up/Net_down)",
         0.1, 100000},
        {"typical_commitment_discount", 0.37,
         "step 2: the share off on-demand of a typical 1-year commitment, for the hint where a provider has "
         "no commitment price in the catalog (the median 1-year discount of the shipped rows: GCP committed "
         "use, 817 GPU machine rows, and AWS Standard Reserved Instances without upfront, 566 rows, both "
         "37 %; market-2026 data)",
         0, 0.95},
        {"multi_node_rank_margin", 0.1,
         "step 4: a multi-node option ranks above a single-node one only when it beats it on the objective "
         "by "
         "more than this share (its set-up and failure risk; assumption)",
         0, 10},
        {"multi_node_without_rdma_exclude", 0,
         "step 4: 1 = exclude multi-node offers without RDMA, 0 = keep them with a warning", 0, 1},
        {"tight_memory_share", 0.9,
         "estimate: a layout using more than this share of GPU memory is 'tight' (the rest is left to the "
         "allocator's fragmentation); the planner prefers layouts below it",
         0.01, 1},
        {"tiny_utilisation", 0.05,
         "step 1 / estimate: a job keeping the GPU busier than this share of its peak is not 'too small to "
         "fill any GPU' (facts 3b: < 5 % for tiny nets)",
         0, 1},
        {"cpu_max_flops", 1e14,
         "step 1 / estimate: 'a CPU would do' only under this many FLOPs for the whole run (a laptop CPU "
         "sustains ~0.1-1 TFLOP/s: minutes to hours)",
         0, 1e30},
        {"cpu_max_memory_gb", 2, "step 1 / estimate: ... and under this much memory", 0, 1e6},
        {"cpu_max_params", 1e8, "step 1 / estimate: ... and under this many parameters (never a decoder LLM)",
         0, 1e15},
        {"comm_share_warn", 0.3,
         "step 4: warn when communication exceeds this share of step time after overlap (facts 3d)", 0, 1},
        {"run_setup_minutes", 10,
         "cost model: billed minutes each run spends starting the instance, pulling the image and staging "
         "data (assumption; keeps tiny jobs from looking free)",
         0, 10080},
        {"spot_interruptions_per_hour", 0.05,
         "cost model: expected spot interruptions per hour (assumption; no public source)", 0, 100},
        {"spot_restart_minutes", 10,
         "cost model: minutes lost per interruption to restart and reload (assumption)", 0, 10080},
        {"idle_minutes_after_run", 5,
         "billing: minutes the instance stays up after each run before it is released (the guide's rule: "
         "'training finished -> release the GPU after 5 minutes'; --idle-minutes)",
         0, 10080},
        {"prompt_release_minutes", 5,
         "billing: 'releasing promptly' means this many minutes after the run (the guide's 5 minutes); the "
         "output says what it saves against the idle tail",
         0, 10080},
        {"default_billing_increment_seconds", 60,
         "billing: increment assumed for a provider whose billing the catalog does not give (assumption: per "
         "minute; most GPU clouds bill by the second or the minute)",
         1, 86400},
        {"default_minimum_charge_seconds", 60,
         "billing: minimum charge per run assumed for a provider whose billing the catalog does not give "
         "(assumption: one minute)",
         0, 86400},
        {"gpu_load_power_share_of_tdp", 0.76,
         "energy: a GPU in training draws this share of its TDP (estimate; Latif et al. 2025, "
         "arXiv:2506.14551: compute-intensive training on an 8x H100 HGX node drew 76 % of its 10.2 kW "
         "rating)",
         0.01, 1.5},
        {"default_pue", 1.57,
         "energy: data-centre PUE assumed where the provider publishes none (Uptime Institute Global Data "
         "Center Survey 2021 average of large data centres, as quoted by CNBC 2022-04-13)",
         1, 5},
        {"carbon_max_cost_increase", 0.10,
         "--objective carbon: options may cost up to this share more a month than the cheapest "
         "(--max-cost-increase; assumption)",
         0, 100},
        {"max_price_age_days", 365, "freshness: prices older than this many days give a warning", 1, 36500},
    };
    return keys;
}

double Policy::get(std::string_view key) const {
    CachedKey& slot = cache_[(reinterpret_cast<std::uintptr_t>(key.data()) >> 3) % cache_.size()];
    if (slot.from == key.data() && slot.name == key) return slot.value;
    for (const auto& k : policy_keys()) {
        if (k.name != key) continue;
        const auto it = overrides_.find(key);
        slot = {key.data(), k.name, it != overrides_.end() ? it->second : k.default_value};
        return slot.value;
    }
    throw std::out_of_range("unknown policy key: " + std::string(key));
}

bool Policy::set(std::string_view key, double value) {
    for (const auto& k : policy_keys()) {
        if (k.name == key) {
            cache_ = {};
            overrides_[std::string(key)] = value;
            return true;
        }
    }
    return false;
}

}  // namespace gpuadvise
