// estimate_job: the layout planner's best layout for one workload on one GPU model and
// configuration, with memory, time, scaling, serving and the notes a user needs (what would make
// it fit, when a smaller GPU would do).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "gpuadvise/base/format.hpp"
#include "gpuadvise/model/layout_planner.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {
namespace {

bool cc_at_least(const Gpu& gpu, double cc) {
    auto v = gpu.compute_capability_value();
    return !v || *v + 1e-9 >= cc;  // AMP parts: the datasheet figure decides
}

std::string layout_text(const Parallelism& l, bool training) {
    std::ostringstream ss;
    ss << "data " << l.data << " x tensor " << l.tensor << " x pipeline " << l.pipeline;
    if (l.expert > 1) ss << ", experts over " << l.expert << " data ranks";
    if (training) {
        ss << ", ZeRO-" << l.zero_stage << ", micro-batch " << l.micro_batch << " x " << l.grad_accumulation
           << " accumulation" << (l.checkpointing ? ", activation checkpointing" : "");
    }
    return ss.str();
}

// What would make a job fit on `gpu`: the first few changes that do, cheapest first.
// `min_gpus` is minimum_gpus(w, gpu, p) (the estimate's, read once per GPU model).
std::vector<std::string> fit_suggestions(const Workload& w, Precision p, const Gpu& gpu, int gpus_per_node,
                                         int nodes, std::optional<int> min_gpus) {
    std::vector<std::string> out;
    if (w.is_training() &&
        (w.zero_pinned || w.grad_checkpointing_pinned || w.pins.tensor || w.pins.pipeline)) {
        Workload x = w;
        x.zero_pinned = x.grad_checkpointing_pinned = false;
        x.pins.tensor.reset();
        x.pins.pipeline.reset();
        if (any_layout_fits(x, gpu, p, gpus_per_node, nodes))
            out.push_back(
                "fits at this count when the planner may choose ZeRO stage, checkpointing and "
                "tensor/pipeline "
                "parallelism (drop the pins)");
    }
    if (auto n = min_gpus; n && *n > gpus_per_node * nodes)
        out.push_back("fits on " + std::to_string(*n) + " x " + gpu.id +
                      (*n > 8 ? " (" + std::to_string(*n / 8) + " nodes of 8)" : std::string()) +
                      " with a sharded layout");
    if (w.task == Task::train || w.task == Task::finetune) {
        for (Task t : {Task::lora, Task::qlora}) {
            Workload x = w;
            x.task = t;
            x.grad_checkpointing = true;
            x.grad_checkpointing_pinned = true;
            if (any_layout_fits(x, gpu, p, 1, 1)) {
                out.push_back(std::string("fits on one GPU with --task ") + std::string(to_string(t)));
                break;
            }
        }
    }
    return out;
}

}  // namespace

bool precision_supported(const Gpu& gpu, Precision p) {
    if (!gpu.supports(p)) return false;
    if (p == Precision::bf16 || p == Precision::tf32) return cc_at_least(gpu, 8.0);
    if (p == Precision::fp8) return cc_at_least(gpu, 8.9);
    return true;
}

Precision resolve_precision(const Workload& w, const Gpu& gpu) {
    if (w.precision) return *w.precision;
    if (precision_supported(gpu, Precision::bf16)) return Precision::bf16;
    if (precision_supported(gpu, Precision::fp16)) return Precision::fp16;
    return Precision::fp32;
}

std::optional<std::string> layout_pin_problem(const Workload& w, int gpus_per_node, int nodes) {
    if (!w.pins.tensor && !w.pins.pipeline) return std::nullopt;
    const int per_node = std::max(1, gpus_per_node);
    const int total = per_node * std::max(1, nodes);
    const int tp = w.pins.tensor.value_or(1);
    const int pp = w.pins.pipeline.value_or(1);
    if (per_node % tp != 0)
        return "--tp " + std::to_string(tp) + " splits every layer over " + std::to_string(tp) +
               " GPUs of one node, and a node here has " + std::to_string(per_node) + " GPUs";
    if (total % (tp * pp) != 0)
        return "--tp " + std::to_string(tp) + " x --pp " + std::to_string(pp) + " = " +
               std::to_string(tp * pp) + " GPUs a model copy, which does not divide the " +
               std::to_string(total) + " GPUs";
    return std::nullopt;
}

Estimate estimate_job(const Catalog& catalog, const Workload& w, const Gpu& gpu, int gpus_per_node,
                      const LinkSpec& link) {
    SpeedTable speeds(catalog, w);
    return estimate_job(speeds, gpu, gpus_per_node, link);
}

Estimate estimate_job(SpeedTable& speeds, const Gpu& gpu, int gpus_per_node, const LinkSpec& link) {
    const Catalog& catalog = speeds.catalog();
    const Workload& w = speeds.workload();
    Estimate e;
    e.gpu = &gpu;
    e.config.nodes = std::max(1, link.nodes);
    e.config.gpus_per_node = std::max(1, gpus_per_node);
    e.config.network = link;
    e.config.network.nodes = e.config.nodes;
    if (e.config.nodes > 1 && link.inter_node_gbps <= 0) {
        // Nothing states the network: the same conservative default recommend assumes (policy).
        e.config.network.inter_node_gbps = catalog.policy.get("unknown_network_gbps");
        e.config.network.network_kind = NetworkKind::ethernet;
        e.config.network.assumed = true;
    }
    e.gpu_count = e.config.total_gpus();
    e.precision = resolve_precision(w, gpu);
    e.memory_available_gb = gpu.memory_gb;
    e.throughput_unit = w.unit + "/s";
    e.precision_supported = precision_supported(gpu, e.precision);
    if (!e.precision_supported) {
        e.notes.push_back(gpu.id + " cannot run " + std::string(to_string(e.precision)) + ": " +
                          precision_unsupported_reason(e.precision));
        e.basis = TimeBasis::estimated;
        return e;
    }
    const int n = e.gpu_count;
    const PlannedLayout plan =
        plan_layout(speeds, gpu, e.precision, e.config.gpus_per_node, e.config.network);
    e.config.layout = plan.layout;
    e.memory = plan.memory;
    e.memory_required_gb = e.memory.total_gb();
    e.fits = plan.fits;
    e.min_gpu_count = speeds.minimum_gpus(gpu, e.precision);
    if (!e.fits) {
        e.notes.push_back("needs " + format_fixed(e.memory_required_gb, 1) + " GB per GPU" +
                          (n > 1 ? " with the best layout (" + layout_text(plan.layout, w.is_training()) + ")"
                                 : std::string()) +
                          ", " + gpu.id + " has " + format_fixed(gpu.memory_gb, 0) + " GB");
        for (auto& s :
             fit_suggestions(w, e.precision, gpu, e.config.gpus_per_node, e.config.nodes, e.min_gpu_count))
            e.notes.push_back(std::move(s));
    } else if (const double tight = catalog.policy.get("tight_memory_share");
               e.memory_required_gb > tight * e.memory_available_gb && !plan.serving)
        e.notes.push_back("tight: less than " + format_fixed(100 * (1 - tight), 0) + " % of memory to spare");
    // Weights stored apart from compute: what the GPU's tensor cores do with them.
    if (w.weights && !is_16bit(*w.weights)) {
        const std::string fmt(to_string(*w.weights));
        const std::string prec(to_string(e.precision));
        const auto cc = gpu.compute_capability_value();
        if (*w.weights == WeightFormat::fp8 && e.precision != Precision::fp8)
            e.notes.push_back("fp8 weights, " + prec + " compute: " +
                              (precision_supported(gpu, Precision::fp8)
                                   ? std::string("--precision fp8 would use the FP8 tensor cores (W8A8)")
                                   : gpu.id +
                                         " has no FP8 tensor cores (compute capability 8.9+): weight-only, "
                                         "dequantised to " +
                                         prec + " in the matmul kernels (vLLM's FP8 Marlin)"));
        else if (*w.weights == WeightFormat::mxfp4 || *w.weights == WeightFormat::nvfp4)
            e.notes.push_back(fmt + " weights: " +
                              (cc && *cc + 1e-9 >= 10.0
                                   ? std::string("FP4 tensor cores on Blackwell; timed at the ") + prec +
                                         " rate (the catalog has no FP4 figure), an upper bound on time"
                                   : "FP4 tensor cores need Blackwell (compute capability 10.0+); on " +
                                         gpu.id + " weight-only, dequantised to " + prec +
                                         " in the kernels"));
        else if (*w.weights != WeightFormat::fp8)
            e.notes.push_back("weight-only " + fmt + ": dequantised to " + prec +
                              " inside the matmul kernels (Marlin/ExLlama-style); decode reads the " + fmt +
                              " bytes, compute runs at the " + prec +
                              " rate (dequantisation assumed hidden behind memory-bound decode; not modelled "
                              "for prefill)");
    }
    if (w.offload != Offload::none)
        e.notes.push_back("offload (" +
                          std::string(w.offload == Offload::params ? "parameters, gradients and " : "") +
                          "optimizer states in host RAM): " + format_fixed(e.memory.host_gb, 1) +
                          " GB per GPU, " + format_fixed(e.memory.host_gb * e.config.gpus_per_node, 0) +
                          " GB of host RAM per node of " + std::to_string(e.config.gpus_per_node) +
                          "; the PCIe traffic (~25 GB/s per GPU) is in the step time, the CPU optimizer step "
                          "is not");
    if (e.fits && plan.serving && w.shape.decoder && w.seq_len > 0) {
        // What the KV cache may still grow into on each GPU after weights and workspace.
        const double room_gb = gpu.memory_gb - (e.memory.total_gb() - e.memory.kv_cache_gb);
        const double per_seq_gb =
            w.kv_bytes(e.precision, w.seq_len) / w.kv_shards(plan.layout.tensor, plan.layout.pipeline) / 1e9;
        if (room_gb > 0 && per_seq_gb > 0)
            e.notes.push_back(
                "KV cache room: " + format_fixed(room_gb, 1) + " GB per GPU after weights and workspace = " +
                format_count(std::floor(room_gb / per_seq_gb)) + " sequences of " + format_count(w.seq_len) +
                " tokens (" +
                (per_seq_gb >= 1 ? format_fixed(per_seq_gb, 1) +
                                       " GB = " + format_fixed(per_seq_gb * 1e9 / (1 << 30), 1) + " GiB"
                                 : format_fixed(per_seq_gb * 1e3, 1) + " MB") +
                " each per GPU; " + format_fixed(e.memory.kv_cache_gb, 1) + " GB in use at concurrency " +
                std::to_string(plan.serving->concurrency / std::max(1, plan.layout.data)) + ")");
    }
    if (e.config.network.assumed)
        e.notes.push_back("network between nodes unknown: assumed " +
                          format_fixed(e.config.network.inter_node_gbps, 0) +
                          " Gbit/s Ethernet per node without RDMA (policy unknown_network_gbps, the default "
                          "recommend assumes too; give --network-gbps)");
    const LayoutTiming& t = plan.timing;
    if (t.samples_per_s <= 0) return e;
    e.serving = plan.serving;
    e.utilisation = t.utilisation;
    e.scaling_efficiency = t.step_s > 0 && n > 1 ? std::min(1.0, t.compute_s / t.step_s) : 1.0;
    e.comm_share = t.step_s > 0 ? t.exposed_comm_s / t.step_s : 0;
    e.bubble_share = t.step_s > 0 ? t.bubble_s / t.step_s : 0;
    e.total_flops = flops_per_sample(w) * w.total_samples();
    if (e.serving) {
        // Throughput in output tokens; a run is the dataset's requests.
        e.throughput_per_s = e.serving->tokens_per_s;
        e.throughput_unit = "tokens/s";
        e.hours_per_run = w.total_samples() * e.serving->output_len / e.serving->tokens_per_s / 3600.0;
    } else {
        // A training stack slower than the time model's (stack.hpp) stretches every step alike; a time
        // measured on a benchmark keeps its own.
        const double stack = w.is_training() && t.basis == TimeBasis::estimated
                                 ? stack_profile(w.stack).efficiency
                                 : 1.0;
        e.throughput_per_s = t.samples_per_s * stack * w.units_per_sample();
        e.hours_per_run = w.total_samples() / (t.samples_per_s * stack) / 3600.0;
        e.utilisation = t.utilisation * stack;
    }
    e.basis = t.basis;
    e.basis_detail = t.basis_detail;
    double low = t.band_low, high = t.band_high;
    if (w.measured_hours && w.measured_on) {
        // The user's own timing: scale it by the model's ratio between this GPU/count and the measured one.
        const bool same = w.measured_on->id == gpu.id && w.measured_gpu_count == n;
        Workload plain = w;
        plain.measured_hours.reset();
        plain.measured_on = nullptr;
        const int per_node = std::min(8, w.measured_gpu_count);
        LinkSpec ref_link;
        ref_link.nodes = std::max(1, w.measured_gpu_count / per_node);
        const Estimate ref = same ? e : estimate_job(catalog, plain, *w.measured_on, per_node, ref_link);
        if (ref.hours_per_run > 0) {
            e.hours_per_run =
                same ? *w.measured_hours : *w.measured_hours * e.hours_per_run / ref.hours_per_run;
            e.basis = same ? TimeBasis::measured : TimeBasis::estimated;
            e.basis_detail = same ? "your measurement"
                                  : "scaled from your " + format_fixed(*w.measured_hours, 1) + " h on " +
                                        std::to_string(w.measured_gpu_count) + " x " + w.measured_on->id;
            low = same ? 0.9 : 0.8;
            high = same ? 1.1 : 1.25;
            const double rate = w.total_samples() / (e.hours_per_run * 3600.0);
            e.throughput_per_s = rate * w.units_per_sample();
            e.utilisation = rate * flops_per_sample(w) / (gpu.tflops.at(e.precision).value_or(1) * 1e12 * n);
        }
    }
    e.hours_low = e.hours_per_run * low;
    e.hours_high = e.hours_per_run * high;
    if (n > 1 && e.comm_share > catalog.policy.get("comm_share_warn"))
        e.notes.push_back("communication takes " + format_fixed(100 * e.comm_share, 0) +
                          " % of step time: prefer NVLink (SXM) GPUs, a faster network, fewer larger GPUs, "
                          "or a larger global batch");
    else if (e.config.nodes > 1 && e.scaling_efficiency < catalog.policy.get("multi_node_min_scaling_efficiency"))
        e.notes.push_back("scaling efficiency only " + format_fixed(100 * e.scaling_efficiency, 0) + " % on " +
                          std::to_string(e.config.nodes) +
                          " nodes (pipeline bubbles and waits on the network): fewer nodes, a faster network "
                          "(--network-gbps) or a larger global batch would use the GPUs better (recommend ranks "
                          "such a layout only when policy multi_node_min_scaling_efficiency allows)");
    const bool small_job = cpu_would_do(w, e, catalog.policy);
    if (e.utilisation < catalog.policy.get("tiny_utilisation") && w.is_training())
        e.notes.push_back("estimated utilisation is only " +
                          format_fixed(100 * e.utilisation, e.utilisation < 0.001 ? 3 : 1) + " % of the " +
                          gpu.id + "'s peak: the model is too small to keep it busy; a small GPU (T4-class)" +
                          (small_job ? " or a CPU would do" : " would do"));
    return e;
}

std::string precision_unsupported_reason(Precision p) {
    const std::string why = p == Precision::fp8    ? "FP8 needs compute capability 8.9 or newer"
                            : p == Precision::bf16 ? "BF16 needs compute capability 8.0 or newer"
                            : p == Precision::tf32 ? "TF32 needs compute capability 8.0 or newer"
                                                   : "the datasheet has no figure for it";
    return why + "; use --precision fp16 (or leave it out for mixed precision)";
}

// "A CPU would do" only for jobs small in compute, memory and parameters (policy cpu_max_*), never LLMs.
bool cpu_would_do(const Workload& w, const Estimate& e, const Policy& policy) {
    return e.total_flops < policy.get("cpu_max_flops") &&
           e.memory_required_gb < policy.get("cpu_max_memory_gb") &&
           w.params < policy.get("cpu_max_params") && !w.shape.decoder;
}

}  // namespace gpuadvise
