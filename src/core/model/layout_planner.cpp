// The layout planner and the multi-GPU time model (gpu-facts §3d, docs/methodology.md):
// per-level collectives with bandwidth and latency terms (ring/tree all-reduce, reduce-scatter and
// all-gather for ZeRO/FSDP, tensor-parallel all-reduces per layer, pipeline point-to-point and the
// 1F1B bubble), overlap bounded by what frameworks achieve, and the serving model (prefill +
// decode reading the weights and every active sequence's KV cache).
#include "gpuadvise/model/layout_planner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <sstream>
#include <tuple>
#include <type_traits>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/physics.hpp"
#include "gpuadvise/model/serving.hpp"

namespace gpuadvise {
namespace {

// PCIe-only boxes measure ~20-35 GB/s busbw on Gen4/5 ("8 GPUs: 28 GB/s", §3d); Gen3 has half the
// line rate, so we take half.
constexpr double kPcieGen4BusbwGBs = 25;
constexpr double kPcieGen3BusbwGBs = 12;
// Host <-> GPU over PCIe for --offload: pinned-memory copies reach ~25 GB/s on Gen4 x16 (of 32 GB/s;
// NVIDIA's bandwidthTest), taken for every GPU (Gen5 hosts do better, Gen3 half).
constexpr double kHostLinkGBs = 25;
// A link with no network between nodes reaches the planner only from memory-only checks
// (any_layout_fits): every timed estimate states one (estimate_job takes policy unknown_network_gbps,
// recommend the offer's network). This figure only orders the layouts those checks try.
constexpr double kDefaultNetworkGbps = 100;
constexpr double kNetworkEfficiency =
    0.8;  // node NIC GB/s × 0.8 (§3d; calculon uses 0.9, p4de measured ~0.5)
constexpr double kIntraAllReduceLatencyS =
    10e-6;  // NCCL small-message all-reduce over NVLink/PCIe (§3d α 5-20 µs)
constexpr double kNetHopLatencyS = 10e-6;  // α ≈ 5-20 µs per hop between nodes
// Overlap of communication with compute that frameworks achieve: DDP buckets hide the gradient
// all-reduce behind up to this share of the backward pass; FSDP/ZeRO-3 prefetch hides the
// all-gathers behind the same share of forward + backward. Tensor-parallel all-reduces sit on the
// critical path (Megatron-LM without overlap), as do pipeline sends.
constexpr double kOverlap = 0.8;
constexpr double kBackwardShare = 2.0 / 3.0;
// Input pipeline, stragglers and synchronisation: ResNet-50 on 8 × A100 loses 4-16 % with
// negligible all-reduce time (DLE 84 % AMP, 96.5 % TF32 [S21]); we take 8 %.
constexpr double kOtherMultiGpuLoss = 0.92;
// Serving: the share of HBM bandwidth decode reaches, the per-step overhead, the all-reduce latency
// and the most sequences a replica batches are the engine's (model/serving.cpp).

bool decoder_serving(const Workload& w) {
    return !w.is_training() && w.shape.decoder && w.kind == ModelKind::transformer &&
           w.serving.output_len.value_or(0) > 0;
}

// A planner's list of choices, on the stack: at most 128 (the pipeline splits of up to 128 layers; powers
// of two, ZeRO stages and checkpointing are fewer). A std::vector per list was 2,000 allocations of a
// recommend on the built-in catalog, in 163 plans.
template <class T>
class Choice {
public:
    Choice() = default;
    Choice(std::initializer_list<T> values) {
        for (T v : values) push_back(v);
    }
    void push_back(T v) { values_.at(size_++) = v; }  // past the capacity: std::out_of_range, not a stray write
    const T* begin() const { return values_.data(); }
    const T* end() const { return values_.data() + size_; }
    std::size_t size() const { return size_; }
    static constexpr std::size_t capacity() { return 128; }

private:
    std::array<T, 128> values_;
    std::size_t size_ = 0;
};
using Ints = Choice<int>;

Ints powers_of_two_dividing(int n, int max) {
    Ints out;
    for (int t = 1; t <= std::min(n, max); t *= 2)
        if (n % t == 0) out.push_back(t);
    return out;
}

Ints divisors(int n, int max) {  // at most Ints::capacity(): the first that many
    Ints out;
    for (int d = 1; d <= std::min({n, max, static_cast<int>(Ints::capacity())}); ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

// Where the ranks of a layout sit: tensor innermost (inside a node), then data, then pipeline
// (Megatron-LM's order), so a data group spans `nodes` nodes with `per_node` ranks on each.
struct Placement {
    int per_node = 1;  // data ranks of one group inside a node
    int nodes = 1;     // nodes one data group spans
};
Placement data_placement(const Parallelism& l, int gpus_per_node) {
    Placement p;
    const int room = std::max(1, gpus_per_node / std::max(1, l.tensor));
    p.per_node = std::max(1, std::min(l.data, room));
    p.nodes = std::max(1, l.data / p.per_node);
    return p;
}

// Time of a collective over one data group: `factor` = 2 for all-reduce, 1 for reduce-scatter or
// all-gather, `bytes` per rank, issued as `count` operations (buckets, or one per layer).
// Hierarchical: inside the node over NVLink/PCIe, then across nodes where the node's network is
// shared by all its GPUs (each carries its shard: the node moves bytes x GPUs-per-rank-in-group).
// Latency per operation: all-reduce runs as a tree across nodes (2·log2 N hops, NCCL's choice at
// scale); reduce-scatter and all-gather only as rings (N - 1 hops), which is what stops ZeRO-3 /
// FSDP from scaling over thousands of nodes.
double collective_s(double bytes, double factor, const Placement& pl, int gpus_per_node, const Links& links,
                    double count = 1) {
    if (bytes <= 0) return 0;
    double t = 0;
    count = std::max(1.0, count);
    if (pl.per_node > 1) {
        const double g = pl.per_node;
        t += factor * (g - 1) / g * bytes / (links.intra_gb_per_s * 1e9) +
             count * factor * kIntraAllReduceLatencyS;
    }
    if (pl.nodes > 1) {
        const double n = pl.nodes;
        const double sharing = static_cast<double>(gpus_per_node) / pl.per_node;
        const double hops = factor >= 2 ? 2 * std::log2(n) : n - 1;
        t += factor * (n - 1) / n * bytes * sharing / (links.inter_node_gb_per_s * 1e9) +
             count * hops * kNetHopLatencyS;
    }
    return t;
}

// One all-to-all of expert parallelism over `ep` data ranks: each GPU sends `bytes` (its tokens'
// hidden states, once per routed expert) spread evenly over the group; the share for ranks in its
// own node crosses NVLink/PCIe, the rest the node's network shared by its GPUs. Routing is taken
// as balanced (capacity factor 1, no token dropped: Megatron-LM's and vLLM's dropless default), and
// the exchange as not overlapped with compute (an assumption: DeepEP-style overlap would hide part).
double all_to_all_s(double bytes, int ep, const Placement& pl, int gpus_per_node, const Links& links) {
    if (ep <= 1 || bytes <= 0) return 0;
    const double local = std::min(ep, pl.per_node);
    const double local_share = (local - 1) / ep, remote_share = (ep - local) / ep;
    double t = bytes * local_share / (links.intra_gb_per_s * 1e9) + kIntraAllReduceLatencyS;
    if (remote_share > 0)
        t += bytes * remote_share / (links.inter_node_gb_per_s / gpus_per_node * 1e9) + kNetHopLatencyS;
    return t;
}

// MoE layers on one pipeline stage.
double moe_layers_per_stage(const Workload& w, const Parallelism& l) {
    return w.shape.moe() ? static_cast<double>(w.shape.moe_layers()) / std::max(1, l.pipeline) : 0;
}

// PyTorch DDP buckets gradients in 25 MB (bucket_cap_mb); one all-reduce per bucket.
constexpr double kBucketBytes = 25e6;
constexpr double kInterruptionsPerGpuHour = 419.0 / (16384.0 * 54 * 24);
constexpr double kHoursLostPerInterruption = 0.1 * 54 * 24 / 466;
constexpr int kMaxVirtualStages = 4;

// Virtual stages per GPU of the interleaved pipeline schedule (Megatron-LM): up to 4 model chunks
// of at least one layer each, when there are at least as many micro-batches as stages.
double virtual_stages(const Workload& w, const Parallelism& l) {
    if (l.pipeline <= 1 || !has_transformer_shape(w) || l.grad_accumulation < l.pipeline) return 1;
    return std::max(1, std::min(kMaxVirtualStages, w.shape.layers / l.pipeline));
}

// The single-GPU speeds of one planning call (one GPU model and precision), read through the
// run's SpeedTable. A plan asks for a dozen (micro-batch, checkpointing) pairs over a hundred times
// each, so it remembers the table's entries (which never move) in a short list scanned in order.
class SpeedCache {
public:
    SpeedCache(SpeedTable& table, const Gpu& g, Precision p) : table_(table), gpu_(g), p_(p) {}
    const SingleGpuSpeed& get(int micro_batch, bool checkpointing) {
        Seen* const begin = seen_[checkpointing].data();
        Seen* const end = begin + count_[checkpointing];
        Seen* at = first_at_least(begin, end, micro_batch);
        if (at != end && at->micro_batch == micro_batch) return *at->speed;
        const SingleGpuSpeed& speed = table_.get(gpu_, p_, micro_batch, checkpointing);
        if (count_[checkpointing] < kCapacity) {  // kept in order of micro-batch
            std::move_backward(at, end, end + 1);
            *at = {micro_batch, &speed};
            ++count_[checkpointing];
        }
        return speed;
    }
    // A speed at least this micro-batch's, when this plan has read one: the speed at the smallest larger
    // micro-batch read (with the same recompute), else nullptr. The single-GPU speed does not fall as the
    // micro-batch grows (time_model.cpp: the job's speed scaled by the roofline's B / (a B + c), c > 0 the
    // per-step overheads; tests/unit/test_speed_table.cpp holds it to that).
    const SingleGpuSpeed* at_least(int micro_batch, bool checkpointing) const {
        const Seen* const begin = seen_[checkpointing].data();
        const Seen* const end = begin + count_[checkpointing];
        const Seen* at = first_at_least(begin, end, micro_batch);
        return at != end ? at->speed : nullptr;
    }

private:
    struct Seen {
        int micro_batch;
        const SingleGpuSpeed* speed;
    };
    template <typename P>
    static P first_at_least(P begin, P end, int micro_batch) {
        while (begin != end && begin->micro_batch < micro_batch) ++begin;
        return begin;
    }
    // The micro-batches read so far, without and with recompute, each list in increasing order: a plan
    // reads at most 34 micro-batches of each (for_each_training_layout); past the capacity a speed is
    // asked of the table again (never, so far).
    static constexpr std::size_t kCapacity = 64;
    SpeedTable& table_;
    const Gpu& gpu_;
    Precision p_;
    std::array<std::array<Seen, kCapacity>, 2> seen_;
    std::array<std::size_t, 2> count_{};
};

// One micro-batch's activations at a layer boundary (the tensor all-reduces and the pipeline sends move them).
double micro_batch_activation_bytes(const Workload& w, Precision p, const Parallelism& l) {
    return static_cast<double>(l.micro_batch) * w.seq_len * w.shape.hidden * activation_element_bytes(p);
}

// The sends of one micro-batch that model parallelism adds, on one stage (training_timing's t_tp and t_p2p;
// the planner's speed bound reads them too).
struct ModelParallelSends {
    double tensor_s = 0, pipeline_s = 0;
};
ModelParallelSends model_parallel_sends(const Workload& w, Precision p, const Parallelism& l,
                                        int gpus_per_node, int nodes, const Links& links) {
    ModelParallelSends s;
    if (l.tensor <= 1 && l.pipeline <= 1) return s;
    const double act_bytes = micro_batch_activation_bytes(w, p, l);
    // Tensor parallel: 2 all-reduces of the layer's activations forward and 2 backward per layer
    // (Megatron-LM; sequence parallelism moves the same volume as reduce-scatter + all-gather), one
    // more pair when the forward is recomputed.
    if (l.tensor > 1) {
        const double layers_per_stage =
            has_transformer_shape(w) ? static_cast<double>(w.shape.layers) / l.pipeline : 0;
        const double tp = l.tensor;
        const double per =
            2 * (tp - 1) / tp * act_bytes / (links.intra_gb_per_s * 1e9) + kIntraAllReduceLatencyS;
        s.tensor_s = (l.checkpointing ? 6 : 4) * layers_per_stage * per;
    }
    // Pipeline: the activation (and its gradient) of each micro-batch crosses each stage boundary;
    // stages on different nodes share the node's network.
    if (l.pipeline > 1) {
        const bool across = nodes > 1;
        const double bw = across ? links.inter_node_gb_per_s / gpus_per_node : links.intra_gb_per_s;
        s.pipeline_s =
            2 * (act_bytes / l.tensor / (bw * 1e9) + (across ? kNetHopLatencyS : kIntraAllReduceLatencyS));
        s.pipeline_s *= virtual_stages(w, l);
    }
    return s;
}

// Where a layout's time comes from (a measurement or the model) and its band: the single-GPU
// speed's. Copied for the chosen layout only (a string per timed layout was a tenth of a plan).
void set_basis(LayoutTiming& t, const SingleGpuSpeed& sp) {
    t.basis = sp.basis;
    t.basis_detail = sp.basis_detail;
    t.band_low = sp.band_low;
    t.band_high = sp.band_high;
}

// Training step time of one layout (its basis: set_basis, for the layout chosen); `model_flops` is
// flops_per_sample(w), read once per plan.
LayoutTiming training_timing(const Workload& w, const Gpu& gpu, Precision p, const Parallelism& l,
                             int gpus_per_node, int nodes, const Links& links, SpeedCache& speeds,
                             double model_flops) {
    LayoutTiming t;
    const SingleGpuSpeed& sp = speeds.get(l.micro_batch, l.checkpointing);
    if (sp.samples_per_s <= 0) return t;
    const int total = l.gpus();
    const double mp = static_cast<double>(l.tensor) * l.pipeline;
    double t_mb = l.micro_batch / sp.samples_per_s / mp;  // compute of one micro-batch on one stage
    // Tensor parallelism splits each expert's MLP too: its GEMMs are moe_ffn / t wide, and a narrow
    // GEMM reaches less of the peak (the half-efficiency width of §3, kHiddenHalf). The experts'
    // share of the compute slows by that ratio, which is why MoE training prefers expert parallelism.
    if (l.tensor > 1 && w.shape.moe()) {
        const double width = w.shape.moe_ffn > 0 ? w.shape.moe_ffn : w.shape.ffn;
        const auto eff = [](double x) { return x / (x + kHiddenHalf); };
        const ParamCount pc = w.param_count();
        const double share = pc.active_compute() > 0 ? pc.experts_active / pc.active_compute() : 0;
        t_mb *= 1 + share * (eff(width) / eff(width / l.tensor) - 1);
    }
    // Mixture of experts: every pass over a micro-batch reads the weights of the experts this rank
    // holds (1/(t·p·ep) of them, those its tokens reach) from HBM, forward, backward's input
    // gradient (and a recomputed forward); a frozen base (LoRA) writes no expert gradient. With few
    // tokens per expert (a micro-batch's k·tokens spread over E experts, times ep: a rank's experts
    // serve the tokens of all ep ranks) the grouped GEMMs are bound by that read, not by the FLOPs
    // the single-GPU speed assumes: the experts' time is the larger of the two (roofline), the reason
    // MoE training carves expert parallelism out of data parallelism (docs/methodology.md §4a).
    if (w.shape.moe() && w.shape.experts > 0 && has_transformer_shape(w)) {
        const ParamCount pc = w.param_count();
        const double bw = gpu.memory_bandwidth_gb_per_s.value_or(0) * 1e9 * kStreamBandwidthShare;
        if (pc.active_compute() > 0 && bw > 0) {
            const double t_experts = t_mb * pc.experts_active / pc.active_compute();
            const double e = w.shape.experts, k = std::max(1, w.shape.active_experts);
            const double tokens = static_cast<double>(l.micro_batch) * w.seq_len * std::max(1, l.expert);
            const double touched = 1 - std::pow(1 - k / e, std::max(1.0, tokens));
            const double passes = (w.is_adapter() ? 2.0 : 3.0) + (l.checkpointing ? 1.0 : 0.0);
            const double bytes = passes * w.expert_weight_bytes(p) * touched / (mp * std::max(1, l.expert));
            t_mb += std::max(0.0, bytes / bw - t_experts);
        }
    }
    const double act_bytes = micro_batch_activation_bytes(w, p, l);
    const double layers_per_stage =
        has_transformer_shape(w) ? static_cast<double>(w.shape.layers) / l.pipeline : 0;
    const ModelParallelSends sends = model_parallel_sends(w, p, l, gpus_per_node, nodes, links);
    const double t_tp = sends.tensor_s, t_p2p = sends.pipeline_s;
    const Placement pl = data_placement(l, gpus_per_node);
    // Expert parallelism: a rank holds 1/ep of the routed experts, replicated on only dp/ep ranks, so
    // the data-parallel collectives move the dense share plus the experts' share / ep among those.
    double expert_factor = 1;
    if (l.expert > 1) {
        const ParamCount pc = w.param_count();
        const double share = pc.total() > 0 ? pc.experts / pc.total() : 0;
        expert_factor = (1 - share) + (l.data / l.expert > 1 ? share / l.expert : 0);
    }
    const double trainable = w.is_adapter() ? w.lora_trainable_params() : w.params * expert_factor;
    const double psi_rank = trainable / mp;
    // ZeRO-3 / FSDP: all-gather the parameters for forward and again for backward, reduce-scatter
    // the gradients, every micro-batch (16-bit), overlapped by prefetching [S29: 3Ψ vs 2Ψ].
    double exposed_z3 = 0;
    if (l.zero_stage >= 3 && l.data > 1) {
        const double base =
            w.is_adapter() ? w.params * expert_factor / mp : psi_rank;  // FSDP gathers the frozen base too
        const double units = has_transformer_shape(w) ? layers_per_stage : 1;  // FSDP wraps each block
        const double t_z3 = 2 * collective_s(2.0 * base, 1, pl, gpus_per_node, links, units) +
                            collective_s(2.0 * psi_rank, 1, pl, gpus_per_node, links, units);
        exposed_z3 = std::max(0.0, t_z3 - kOverlap * t_mb);
    }
    // Expert parallelism: per MoE layer an all-to-all to the experts and one back, forward and
    // backward (and again in a recomputed forward); each GPU's tokens (sequence-parallel share) go
    // to top-k experts.
    double t_a2a = 0;
    if (l.expert > 1) {
        const double bytes = act_bytes / l.tensor * std::max(1, w.shape.active_experts);
        t_a2a = (l.checkpointing ? 6 : 4) * moe_layers_per_stage(w, l) *
                all_to_all_s(bytes, l.expert, data_placement(l, gpus_per_node), gpus_per_node, links);
    }
    // Offload: per micro-batch the offloaded 16-bit parameters come up twice (forward, backward) and
    // their gradients go down; per step the gradients go down to the CPU optimizer and the updated
    // 16-bit parameters come back (ZeRO-Offload), overlapped with compute up to kOverlap.
    double exposed_offload_mb = 0, exposed_offload_step = 0;
    if (w.offload != Offload::none) {
        const double shard = (w.is_adapter() ? w.lora_trainable_params() : w.params) / mp /
                             (l.zero_stage >= 2 ? std::max(1, l.data) : 1);
        const double link = kHostLinkGBs * 1e9;
        if (w.offload == Offload::params) {
            const double base = w.params / mp / (l.zero_stage >= 3 ? std::max(1, l.data) : 1);
            exposed_offload_mb = std::max(0.0, (2 * 2.0 * base + 2.0 * shard) / link - kOverlap * t_mb);
        }
        exposed_offload_step = std::max(0.0, 2 * 2.0 * shard / link - kOverlap * kBackwardShare * t_mb);
    }
    const double t_micro = t_mb + t_tp + t_p2p + exposed_z3 + t_a2a + exposed_offload_mb;
    // 1F1B: (m + p - 1) micro-batch slots per step; the interleaved schedule with v virtual stages
    // per GPU shrinks the bubble to (p - 1)/v slots (Narayanan et al. 2021) at v x the sends.
    const double bubble_slots = (l.pipeline - 1) / virtual_stages(w, l);
    const double t_pipe = (l.grad_accumulation + bubble_slots) * t_micro;
    // Data parallel gradient synchronisation once per step: DDP all-reduces fp32 gradients
    // (4 B/param, §3d); ZeRO-1/2 reduce-scatter 16-bit gradients and all-gather 16-bit parameters.
    double exposed_dp = 0;
    if (l.data > 1 && l.zero_stage < 3) {
        const double buckets = 4.0 * psi_rank / kBucketBytes;
        const double t_dp = l.zero_stage == 0
                                ? collective_s(4.0 * psi_rank, 2, pl, gpus_per_node, links, buckets)
                                : collective_s(2.0 * psi_rank, 1, pl, gpus_per_node, links, buckets / 2) +
                                      collective_s(2.0 * psi_rank, 1, pl, gpus_per_node, links, buckets / 2);
        exposed_dp = std::max(0.0, t_dp - kOverlap * kBackwardShare * t_mb);
    }
    const double loss = total > 1 ? kOtherMultiGpuLoss : 1.0;
    t.compute_s = l.grad_accumulation * t_mb;
    t.bubble_s = bubble_slots * t_micro;
    // Interruptions: a run over many GPUs loses time to failures and restarts. Llama 3 (Dubey et
    // al. 2024, §3.3.4) saw 419 unexpected interruptions in 54 days on 16,384 H100s (2.0e-5 per
    // GPU-hour) with over 90 % effective training time: about 0.28 h lost per interruption.
    // Counted for multi-node runs (the clusters that rate comes from).
    const double interruptions =
        nodes > 1 ? 1 + kInterruptionsPerGpuHour * total * kHoursLostPerInterruption : 1.0;
    t.step_s = (t_pipe + exposed_dp + exposed_offload_step) / loss * interruptions;
    t.exposed_comm_s = l.grad_accumulation * (t_tp + t_p2p + exposed_z3 + t_a2a + exposed_offload_mb) +
                       exposed_dp + exposed_offload_step;
    t.samples_per_s = l.global_batch() / t.step_s;
    const double peak = gpu.tflops.at(p).value_or(0) * 1e12;
    t.utilisation = peak > 0 ? t.samples_per_s * model_flops / (total * peak) : 0;
    return t;
}

// Serving of a decoder LM by the layout's data ranks (replicas), each a tensor x pipeline group
// running `concurrency_per_replica` sequences with continuous batching (docs/methodology.md).
std::optional<ServingEstimate> serving_timing(const Workload& w, const Gpu& gpu, Precision p,
                                              const Parallelism& l, int concurrency_per_replica,
                                              int gpus_per_node, const Links& links, LayoutTiming& t) {
    const ServingEngine& engine = serving_engine(w.serving.engine);
    const double peak = gpu.tflops.at(p).value_or(0) * 1e12;
    const double bw = gpu.memory_bandwidth_gb_per_s.value_or(0) * 1e9 * engine.decode_bandwidth_share;
    if (peak <= 0 || bw <= 0) return std::nullopt;
    ServingEstimate s;
    s.engine = engine.id;
    s.prompt_len = *w.serving.prompt_len;
    s.output_len = *w.serving.output_len;
    s.concurrency = concurrency_per_replica * l.data;
    s.concurrency_per_replica = concurrency_per_replica;
    const double mp = static_cast<double>(l.tensor) * l.pipeline;
    const double eff = matmul_efficiency(w) * engine.prefill_efficiency;
    const double h = w.shape.hidden, L = w.shape.layers;
    const double c = concurrency_per_replica;
    const double context = s.prompt_len + s.output_len / 2.0;  // average during generation
    // A tensor group inside the NVLink domain all-reduces over NVLink; a wider one over PCIe.
    const double allreduce_latency = l.tensor <= links.nvlink_domain ? engine.allreduce_latency_nvlink_s
                                                                     : engine.allreduce_latency_pcie_s;
    // Decode step: every GPU reads its weight shard (of an MoE: the experts the step's tokens are
    // routed to) and the KV cache of every active sequence (memory bound), or computes 2·N FLOPs
    // per sequence (N the parameters a token multiplies by), whichever is longer; per layer two
    // tensor-parallel all-reduces of the step's hidden states; stages run one after another.
    const double n_token = w.params_per_token();
    // With expert parallelism a GPU holds 1/ep of the experts and serves the tokens of all ep ranks.
    const double ep = std::max(1, l.expert);
    const double non_expert = w.weight_bytes(p) - w.expert_weight_bytes(p);
    const double weights_read = non_expert + (w.decode_weight_bytes(p, c * ep) - non_expert) / ep;
    const double read =
        weights_read / mp / bw + c * w.kv_bytes(p, context) / w.kv_shards(l.tensor, l.pipeline) / bw;
    const double compute = 2.0 * n_token * c / mp / (peak * eff);
    double tp_comm = 0;
    if (l.tensor > 1) {
        const double tp = l.tensor;
        const double per =
            2 * (tp - 1) / tp * c * h * activation_element_bytes(p) / (links.intra_gb_per_s * 1e9) +
            allreduce_latency;
        tp_comm = 2 * L / l.pipeline * per;
    }
    // Expert parallelism: per MoE layer the step's c tokens go all-to-all to their k experts and back.
    const Placement pl = data_placement(l, gpus_per_node);
    const double k = std::max(1, w.shape.active_experts);
    const double moe_layers = moe_layers_per_stage(w, l);
    const double ep_comm =
        2 * moe_layers *
        all_to_all_s(c * h * activation_element_bytes(p) * k / l.tensor, l.expert, pl, gpus_per_node, links);
    const double t_decode =
        l.pipeline * (std::max(read, compute) + tp_comm + ep_comm) + engine.step_overhead_s;
    // Prefill of one prompt: compute bound, 2·N + the attention term per token.
    const double prefill_flops = (2.0 * n_token + 2.0 * L * s.prompt_len * h) * s.prompt_len;
    double prefill_comm = 0;
    if (l.tensor > 1) {
        const double tp = l.tensor;
        prefill_comm = 2 * L *
                       (2 * (tp - 1) / tp * s.prompt_len * h * activation_element_bytes(p) /
                            (links.intra_gb_per_s * 1e9) +
                        allreduce_latency);
    }
    prefill_comm += 2 * w.shape.moe_layers() *
                    all_to_all_s(s.prompt_len * h * activation_element_bytes(p) * k / l.tensor, l.expert, pl,
                                 gpus_per_node, links);
    const double t_prefill =
        prefill_flops / (l.tensor * peak * eff) + prefill_comm + engine.step_overhead_s;
    // Continuous batching: a replica finishes `c` requests per (output_len decode steps + c prefills).
    const double cycle = s.output_len * t_decode + c * t_prefill;
    s.tokens_per_s = l.data * c * s.output_len / cycle;
    s.requests_per_s = l.data * c / cycle;
    s.time_to_first_token_s = t_prefill;
    s.time_per_output_token_s = t_decode + c * t_prefill / s.output_len;
    if (w.serving.online) {
        // At full load a request arrives during a decode step (it waits half of one on average) and
        // queues behind the other prompts: prefills are a queue with deterministic service time
        // t_prefill taking the share rho = c·t_prefill / cycle of the replica's time (M/D/1 wait).
        const double rho = c * t_prefill / cycle;
        s.time_to_first_token_s = t_prefill + t_decode / 2 + rho * t_prefill / (2 * (1 - rho));
    }
    t.step_s = cycle;
    t.compute_s =
        s.output_len * l.pipeline * std::max(read, compute) + c * prefill_flops / (l.tensor * peak * eff);
    t.exposed_comm_s = s.output_len * l.pipeline * (tp_comm + ep_comm) + c * prefill_comm;
    t.samples_per_s = l.data * c / cycle;  // requests per second
    const double model_flops = t.samples_per_s * (prefill_flops + 2.0 * n_token * s.output_len);
    t.utilisation = model_flops / (peak * l.gpus());
    static const SharedText serving_model(
        "serving model: prefill compute-bound, decode reads the weights and the KV cache per step");
    t.basis_detail = serving_model;
    return s;
}

// The most sequences whose KV cache fits in the memory a server uses (vLLM's default
// gpu_memory_utilization of 0.9), at most the engine's batch limit per replica.
constexpr double kServingMemoryShare = 0.9;
int max_concurrency(const Workload& w, const Gpu& gpu, Precision p, const Parallelism& l) {
    const double cap = gpu.memory_gb * kServingMemoryShare;
    if (layout_memory(w, gpu, p, l, 1).total_gb() > cap)
        return layout_memory(w, gpu, p, l, 1).total_gb() <= gpu.memory_gb ? 1 : 0;
    int lo = 1, hi = serving_engine(w.serving.engine).max_concurrency;
    if (layout_memory(w, gpu, p, l, hi).total_gb() <= cap) return hi;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (layout_memory(w, gpu, p, l, mid).total_gb() <= cap ? lo : hi) = mid;
    }
    return lo;
}

// An online service's replica: the most sequences, at most `most` (what the memory holds), whose
// TPOT and TTFT at full load meet the targets. Both grow with the concurrency, so the largest that
// meets them is found by bisection. When one sequence already misses, the estimate at one sequence
// says by how much (meets_targets false).
std::optional<ServingEstimate> service_timing(const Workload& w, const Gpu& gpu, Precision p,
                                              const Parallelism& l, int most, int gpus_per_node,
                                              const Links& links, LayoutTiming& t) {
    const LatencyTargets& target = w.serving.targets;
    auto at = [&](int c, LayoutTiming& timing) {
        return serving_timing(w, gpu, p, l, c, gpus_per_node, links, timing);
    };
    auto meets = [&](const ServingEstimate& s) {
        return s.time_per_output_token_s <= target.tpot_s && s.time_to_first_token_s <= target.ttft_s;
    };
    std::optional<ServingEstimate> one = at(1, t);
    if (!one) return std::nullopt;
    const double best_ttft = one->time_to_first_token_s, best_tpot = one->time_per_output_token_s;
    auto finish = [&](ServingEstimate s, std::string limit) {
        s.best_ttft_s = best_ttft;
        s.best_tpot_s = best_tpot;
        s.target_miss = std::max(best_ttft / target.ttft_s, best_tpot / target.tpot_s);
        s.limited_by = std::move(limit);
        return s;
    };
    if (!meets(*one)) {
        one->meets_targets = false;
        return finish(*one, best_tpot > target.tpot_s ? "TPOT target" : "TTFT target");
    }
    LayoutTiming top_timing;
    if (std::optional<ServingEstimate> top = at(most, top_timing); top && meets(*top)) {
        t = top_timing;
        const bool engine_cap = most >= serving_engine(w.serving.engine).max_concurrency;
        return finish(*top, engine_cap ? "engine" : "memory");
    }
    int lo = 1, hi = most;  // meets at lo, misses at hi
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        LayoutTiming probe;
        const std::optional<ServingEstimate> s = at(mid, probe);
        (s && meets(*s) ? lo : hi) = mid;
    }
    LayoutTiming timing;
    std::optional<ServingEstimate> s = at(lo, timing);
    t = timing;
    LayoutTiming next_timing;
    const std::optional<ServingEstimate> next = at(hi, next_timing);
    const bool tpot_binds = next && next->time_per_output_token_s > target.tpot_s;
    return finish(*s, tpot_binds ? "TPOT target" : "TTFT target");
}

struct Choices {
    Ints tensor, zero;
    Choice<bool> checkpointing;
};

Choices layout_choices(const Workload& w, int gpus_per_node, int total, const Links& links) {
    Choices c;
    const bool transformer = has_transformer_shape(w);
    if (w.pins.tensor)
        c.tensor = {*w.pins.tensor};
    else if (!transformer)
        c.tensor = {1};
    else {
        // Tensor parallel only inside a node; for training only over NVLink/NVSwitch (over PCIe
        // the per-layer all-reduces cost more than they save); serving may use PCIe (vLLM does).
        const int domain = w.is_training() ? links.nvlink_domain : 8;
        for (int t : powers_of_two_dividing(gpus_per_node, domain))
            if (w.shape.heads % t == 0) c.tensor.push_back(t);
    }
    if (!w.is_training())
        c.zero = {0};
    else if (w.zero_pinned)
        c.zero = {w.zero_stage};
    else if (total == 1)
        c.zero = {0};
    else
        c.zero = {0, 1, 2, 3};
    if (!w.is_training())
        c.checkpointing = {false};
    else if (w.grad_checkpointing_pinned)
        c.checkpointing = {w.grad_checkpointing};
    else
        c.checkpointing = {false, true};
    return c;
}

// Expert-parallel degrees for `dp` data ranks: powers of two dividing both dp and the experts (the
// pin when given and possible); 1 for a dense model.
Ints expert_choices(const Workload& w, int dp) {
    if (!w.shape.moe()) return {1};
    if (w.pins.expert) {
        if (dp % *w.pins.expert == 0) return {*w.pins.expert};
        return {};
    }
    Ints out;
    for (int e = 1; e <= dp; e *= 2)
        if (dp % e == 0 && w.shape.experts % e == 0) out.push_back(e);
    return out;
}

Ints pipeline_choices(const Workload& w, int rest, bool serving) {
    if (w.pins.pipeline) return {*w.pins.pipeline};
    if (!has_transformer_shape(w)) return {1};
    return serving ? divisors(rest, std::min(64, w.shape.layers))
                   : divisors(rest, std::min(128, w.shape.layers));
}

// The planner's order: fitting first; then layouts leaving memory for the allocator's fragmentation
// (at most policy tight_memory_share used) before tighter ones; then the fastest; ties to less model
// parallelism, larger micro-batches, lower ZeRO stages and no recompute.
bool better(const PlannedLayout& a, const PlannedLayout& b, double comfortable_gb) {
    if (a.fits != b.fits) return a.fits;
    if (!a.fits) return a.memory.total_gb() < b.memory.total_gb();
    // An online service: layouts meeting the latency targets first; among those missing, the nearest.
    if (a.serving && b.serving && a.serving->meets_targets != b.serving->meets_targets)
        return a.serving->meets_targets;
    if (a.serving && b.serving && !a.serving->meets_targets &&
        a.serving->target_miss != b.serving->target_miss)
        return a.serving->target_miss < b.serving->target_miss;
    const bool ca = a.memory.total_gb() <= comfortable_gb;
    const bool cb = b.memory.total_gb() <= comfortable_gb;
    if (ca != cb) return ca;
    const double ta = a.timing.samples_per_s, tb = b.timing.samples_per_s;
    if (std::fabs(ta - tb) > 1e-9 * std::max(ta, tb)) return ta > tb;
    const auto key = [](const Parallelism& l) {
        return std::make_tuple(l.tensor * l.pipeline, l.expert, -l.micro_batch, l.zero_stage,
                               l.checkpointing);
    };
    return key(a.layout) < key(b.layout);
}

// What a layout visit asks of the walk: go on, or skip the smaller micro-batches of the same layout
// otherwise (they are visited largest first).
enum class Walk { next, skip_smaller_micro_batches };

// Training layouts of `total` GPUs over `gpus_per_node` per node; calls `visit` for each (a `visit`
// returning bool stops the walk when it returns false; one returning Walk steers it).
template <typename Visit>
void for_each_training_layout(const Workload& w, int gpus_per_node, int total, const Links& links,
                              Visit&& visit) {
    const Choices c = layout_choices(w, gpus_per_node, total, links);
    const double global = w.pins.global_batch.value_or(static_cast<double>(w.batch_size) * total);
    for (int tp : c.tensor) {
        if (tp > gpus_per_node || gpus_per_node % tp != 0) continue;
        for (int pp : pipeline_choices(w, total / tp, false)) {
            if (total % (tp * pp) != 0) continue;
            if (has_transformer_shape(w) && pp > w.shape.layers) continue;
            const int dp = total / (tp * pp);
            if (dp > global) continue;  // fewer sequences than data ranks: needs more model parallelism
            const int per_rank = static_cast<int>(std::ceil(global / dp - 1e-9));
            // The micro-batches: at most the per-rank batch and the powers of two below it (33 for an
            // int), on the stack (a vector per split was a tenth of the plan's allocations).
            std::array<int, 34> micro_at{};
            std::size_t micro_count = 0;
            if (w.pins.micro_batch)
                micro_at[micro_count++] = std::min(*w.pins.micro_batch, per_rank);
            else {
                // Largest first: the fastest micro-batch usually, whose speed then bounds the rest.
                micro_at[micro_count++] = per_rank;
                int m = 1;
                while (m < per_rank / 2 + per_rank % 2) m *= 2;  // the largest power of two below per_rank
                if (m >= per_rank) m /= 2;
                for (; m >= 1; m /= 2) micro_at[micro_count++] = m;
            }
            const auto micro = std::span<const int>(micro_at.data(), micro_count);
            for (int ep : expert_choices(w, dp))
                for (int zero : c.zero) {
                    if (pp > 1 && zero >= 2) continue;  // DeepSpeed: ZeRO-2/3 do not combine with pipelines
                    for (bool ckpt : c.checkpointing)
                        for (int m : micro) {
                            Parallelism l;
                            l.data = dp;
                            l.expert = ep;
                            l.tensor = tp;
                            l.pipeline = pp;
                            l.zero_stage = zero;
                            l.micro_batch = m;
                            l.grad_accumulation = static_cast<int>(
                                (static_cast<std::int64_t>(per_rank) + m - 1) / m);  // ceil(per_rank / m)
                            l.checkpointing = ckpt;
                            using Result = std::invoke_result_t<Visit&, const Parallelism&>;
                            if constexpr (std::is_same_v<Result, bool>) {
                                if (!visit(l)) return;
                            } else if constexpr (std::is_same_v<Result, Walk>) {
                                if (visit(l) == Walk::skip_smaller_micro_batches) break;
                            } else {
                                visit(l);
                            }
                        }
                }
        }
    }
}

}  // namespace

Links resolve_links(const Gpu& gpu, const LinkSpec& link) {
    Links l;
    // The NVLink domain and the PCIe generation, typed when the catalog was read (catalog/gpu.hpp).
    l.nvlink_domain = std::max(1, gpu.nvlink_domain);
    double intra = link.intra_node_busbw_gb_per_s > 0 ? link.intra_node_busbw_gb_per_s
                                                      : gpu.intra_node_busbw_gb_per_s.value_or(0);
    if (intra <= 0) intra = gpu.pcie_generation == 3 ? kPcieGen3BusbwGBs : kPcieGen4BusbwGBs;
    l.intra_gb_per_s = intra;
    const double gbps = link.inter_node_gbps > 0 ? link.inter_node_gbps : kDefaultNetworkGbps;
    l.inter_node_gb_per_s = gbps / 8.0 * kNetworkEfficiency;
    return l;
}

bool any_layout_fits(const Workload& w, const Gpu& gpu, Precision p, int gpus_per_node, int nodes) {
    const int total = gpus_per_node * nodes;
    LinkSpec link;
    link.nodes = nodes;
    const Links links = resolve_links(gpu, link);
    if (!w.is_training()) {
        const Choices c = layout_choices(w, gpus_per_node, total, links);
        for (int tp : c.tensor)
            for (int pp : pipeline_choices(w, total / tp, true)) {
                Parallelism l;
                l.tensor = tp;
                l.pipeline = pp;
                l.data = total / (tp * pp);
                if (l.gpus() != total) continue;
                for (int ep : expert_choices(w, l.data)) {
                    l.expert = ep;
                    if (layout_memory(w, gpu, p, l, 1).total_gb() <= gpu.memory_gb) return true;
                }
            }
        return false;
    }
    bool found = false;
    const Attention att = resolve_attention(w, gpu);
    for_each_training_layout(w, gpus_per_node, total, links, [&](const Parallelism& l) {
        found = layout_memory(w, att, p, l).total_gb() <= gpu.memory_gb;
        return !found;  // the first that fits answers
    });
    return found;
}

std::optional<int> minimum_gpus(const Workload& w, const Gpu& gpu, Precision p, int gpus_per_node_max,
                                int max_gpus) {
    for (int n = 1; n <= std::min(gpus_per_node_max, max_gpus); ++n)
        if (any_layout_fits(w, gpu, p, n, 1)) return n;
    for (int nodes = 2; nodes * gpus_per_node_max <= max_gpus; nodes *= 2)
        if (any_layout_fits(w, gpu, p, gpus_per_node_max, nodes)) {
            // The smallest node count between nodes/2 and nodes that fits.
            int lo = nodes / 2, hi = nodes;
            while (hi - lo > 1) {
                const int mid = (lo + hi) / 2;
                (any_layout_fits(w, gpu, p, gpus_per_node_max, mid) ? hi : lo) = mid;
            }
            return hi * gpus_per_node_max;
        }
    return std::nullopt;
}

std::optional<int> SpeedTable::minimum_gpus(const Gpu& gpu, Precision p) {
    const auto key = std::make_pair(&gpu, p);
    if (auto it = minimum_gpus_.find(key); it != minimum_gpus_.end()) return it->second;
    return minimum_gpus_.emplace(key, gpuadvise::minimum_gpus(workload_, gpu, p)).first->second;
}

PlannedLayout plan_layout(const Catalog& catalog, const Workload& w, const Gpu& gpu, Precision p,
                          int gpus_per_node, const LinkSpec& link) {
    SpeedTable speeds(catalog, w);
    return plan_layout(speeds, gpu, p, gpus_per_node, link);
}

PlannedLayout plan_layout(SpeedTable& table, const Gpu& gpu, Precision p, int gpus_per_node,
                          const LinkSpec& link) {
    const Catalog& catalog = table.catalog();
    const Workload& w = table.workload();
    const int nodes = std::max(1, link.nodes);
    const int total = gpus_per_node * nodes;
    const Links links = resolve_links(gpu, link);
    PlannedLayout best;
    bool have = false;
    const double comfortable_gb = catalog.policy.get("tight_memory_share") * gpu.memory_gb;
    auto consider = [&](PlannedLayout&& c) {
        if (!have || better(c, best, comfortable_gb)) {
            best = std::move(c);
            have = true;
        }
    };
    if (!w.is_training()) {
        const Choices c = layout_choices(w, gpus_per_node, total, links);
        SpeedCache speeds(table, gpu, p);
        for (int tp : c.tensor) {
            if (tp > gpus_per_node || gpus_per_node % tp != 0) continue;
            for (int pp : pipeline_choices(w, total / tp, true)) {
                if (total % (tp * pp) != 0) continue;
                for (int ep : expert_choices(w, total / (tp * pp))) {
                    PlannedLayout x;
                    x.layout.tensor = tp;
                    x.layout.pipeline = pp;
                    x.layout.data = total / (tp * pp);
                    x.layout.expert = ep;
                    if (decoder_serving(w)) {
                        int conc = 0;
                        if (w.serving.concurrency)
                            conc = std::max(1, *w.serving.concurrency / x.layout.data);
                        else
                            conc = max_concurrency(w, gpu, p, x.layout);
                        x.memory = layout_memory(w, gpu, p, x.layout, std::max(1, conc));
                        x.fits = conc > 0 && x.memory.total_gb() <= gpu.memory_gb;
                        if (x.fits) {
                            x.serving = w.serving.online ? service_timing(w, gpu, p, x.layout, conc,
                                                                          gpus_per_node, links, x.timing)
                                                         : serving_timing(w, gpu, p, x.layout, conc,
                                                                          gpus_per_node, links, x.timing);
                            if (x.serving && w.serving.online) {
                                conc = x.serving->concurrency_per_replica;
                                x.memory = layout_memory(w, gpu, p, x.layout, conc);
                            }
                        }
                        x.layout.micro_batch = std::max(1, conc);
                        if (x.fits) {
                            if (x.serving)
                                x.serving->concurrency_from_memory = !w.serving.concurrency;
                            else
                                x.fits = false;
                        }
                    } else {
                        x.layout.micro_batch = w.batch_size;
                        x.memory = layout_memory(w, gpu, p, x.layout);
                        x.fits = x.memory.total_gb() <= gpu.memory_gb;
                        const SingleGpuSpeed& sp = speeds.get(w.batch_size, false);
                        x.timing.samples_per_s = sp.samples_per_s * x.layout.data *
                                                 (total > 1 ? kOtherMultiGpuLoss : 1.0) /
                                                 std::max(1, tp * pp);
                        x.timing.step_s = x.timing.samples_per_s > 0
                                              ? w.batch_size * x.layout.data / x.timing.samples_per_s
                                              : 0;
                        x.timing.compute_s = x.timing.step_s;
                        x.timing.utilisation = sp.utilisation;
                        set_basis(x.timing, sp);
                    }
                    consider(std::move(x));
                }
            }
        }
        return best;
    }
    SpeedCache speeds(table, gpu, p);
    const Attention att = resolve_attention(w, gpu);
    const double model_flops = flops_per_sample(w);
    const double loss = total > 1 ? kOtherMultiGpuLoss : 1.0;
    const double interruptions =
        nodes > 1 ? 1 + kInterruptionsPerGpuHour * total * kHoursLostPerInterruption : 1.0;
    // The speed bound of a layout (see below): its micro-batch's compute scaled perfectly, plus what
    // model parallelism adds to every micro-batch whatever else it does (the tensor all-reduces, the
    // pipeline sends, the bubble). Without model parallelism: perfect scaling, gpus x speed.
    auto bound_of = [&](const Parallelism& l, const SingleGpuSpeed& sp) {
        if (sp.samples_per_s <= 0) return 0.0;
        const ModelParallelSends s = model_parallel_sends(w, p, l, gpus_per_node, nodes, links);
        const double t_mb = l.micro_batch / sp.samples_per_s / (static_cast<double>(l.tensor) * l.pipeline);
        const double slots = l.grad_accumulation + (l.pipeline - 1) / virtual_stages(w, l);
        return l.global_batch() / (slots * (t_mb + s.tensor_s + s.pipeline_s)) * loss / interruptions;
    };
    // Whether a layout's bound is below the best so far by more than a millionth: perfect scaling first
    // (a multiply), the sends only when that does not settle it.
    auto perfect_below = [&](const Parallelism& l, const SingleGpuSpeed& sp, double beat) {
        return l.gpus() * sp.samples_per_s * loss / interruptions < beat;
    };
    auto below_best = [&](const Parallelism& l, const SingleGpuSpeed& sp) {
        const double beat = best.timing.samples_per_s * (1 - 1e-6);
        return perfect_below(l, sp, beat) || ((l.tensor > 1 || l.pipeline > 1) && bound_of(l, sp) < beat);
    };
    for_each_training_layout(w, gpus_per_node, total, links, [&](const Parallelism& l) {
        // With a fitting best within the tight share, a layout below its speed (bound below) loses
        // whatever its memory: fitting, it is slower in the same class or in a worse one; not
        // fitting, it loses to any fitting layout. So its memory is not even computed (when the
        // plan has its single-GPU speed, or a larger micro-batch's, already: computing one costs more
        // than the memory). Such a best stays one (better() puts fitting, comfortable layouts first)
        // and only gets faster, and a smaller micro-batch is no faster: when perfect scaling at this
        // micro-batch's speed bound is below it, so is every smaller micro-batch's of the layout.
        if (have && best.fits && best.memory.total_gb() <= comfortable_gb)
            if (const SingleGpuSpeed* sp = speeds.at_least(l.micro_batch, l.checkpointing)) {
                if (perfect_below(l, *sp, best.timing.samples_per_s * (1 - 1e-6)))
                    return Walk::skip_smaller_micro_batches;
                if (below_best(l, *sp)) return Walk::next;
            }
        PlannedLayout x;
        x.layout = l;
        x.memory = layout_memory(w, att, p, l);
        x.fits = x.memory.total_gb() <= gpu.memory_gb;
        // Time only what can win: fitting layouts (or any, while nothing fits yet).
        if (!x.fits) {
            consider(std::move(x));
            return Walk::next;
        }
        if (have && best.fits &&
            (best.memory.total_gb() <= comfortable_gb || x.memory.total_gb() > comfortable_gb)) {
            // A fitting layout that cannot beat the best so far is not timed. better() then decides
            // on speed (both fit; the layout is not comfortable where the best is not), and
            // training_timing's step is at least (grad_accumulation + bubble slots) x (t_mb + the
            // tensor and pipeline sends) / loss x interruptions (every other term, exposed ZeRO, the
            // experts' reads and all-to-alls, offload and gradient synchronisation, is >= 0), so its
            // samples/s = data x micro_batch x grad_accumulation / step is at most bound_of(); with
            // no model parallelism that is data x the single-GPU speed x loss / interruptions, the
            // perfect scaling of this micro-batch. Below the best's speed by more than a
            // millionth (far beyond rounding, and beyond better()'s 1e-9 tie) it is slower than
            // the best and not a tie: better() would keep the best, as it does here.
            // A larger micro-batch's speed read already bounds this one's (SpeedCache::at_least): the
            // exact speed is computed only when that does not settle it.
            if (const SingleGpuSpeed* up = speeds.at_least(l.micro_batch, l.checkpointing);
                up && below_best(l, *up))
                return Walk::next;
            if (below_best(l, speeds.get(l.micro_batch, l.checkpointing))) return Walk::next;
        }
        x.timing = training_timing(w, gpu, p, l, gpus_per_node, nodes, links, speeds, model_flops);
        consider(std::move(x));
        return Walk::next;
    });
    if (!have) {  // nothing expressible (e.g. pins that do not divide the count): the plain layout
        best.layout.data = total;
        best.layout.micro_batch = w.batch_size;
        best.layout.zero_stage = w.zero_stage;
        best.layout.checkpointing = w.grad_checkpointing;
        best.memory = layout_memory(w, att, p, best.layout);
        best.fits = false;
    }
    // A job that fits nowhere at this count still gets the time of its least-memory layout (what
    // it would take with more memory), for comparison.
    if (!best.fits)
        best.timing =
            training_timing(w, gpu, p, best.layout, gpus_per_node, nodes, links, speeds, model_flops);
    // The chosen layout was timed (above, or in the loop when it fits); training_timing leaves a
    // layout without a speed untimed, and so without a basis.
    if (const SingleGpuSpeed& sp = speeds.get(best.layout.micro_batch, best.layout.checkpointing);
        sp.samples_per_s > 0)
        set_basis(best.timing, sp);
    return best;
}

std::vector<const InstanceNetwork*> provider_networks(const Catalog& catalog, std::string_view provider) {
    std::vector<const InstanceNetwork*> rows;
    for (const auto& n : catalog.networks)
        if (iequals(provider, n.provider)) rows.push_back(&n);
    return rows;
}

const InstanceNetwork* instance_network(const std::vector<const InstanceNetwork*>& rows,
                                        std::string_view instance_type) {
    const InstanceNetwork* best = nullptr;
    for (const InstanceNetwork* n : rows)
        if (instance_type.size() >= n->instance_type.size() &&
            iequals(instance_type.substr(0, n->instance_type.size()), n->instance_type) &&
            (!best || n->instance_type.size() > best->instance_type.size()))
            best = n;
    return best;
}

const InstanceNetwork* instance_network(const Catalog& catalog, std::string_view provider,
                                        std::string_view instance_type) {
    return instance_network(provider_networks(catalog, provider), instance_type);
}

}  // namespace gpuadvise
