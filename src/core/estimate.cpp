// estimate_job: memory, fit, minimum count, time and scaling of one workload on one GPU model and
// count, with the notes a user needs (what would make it fit, when a smaller GPU would do).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

constexpr double kTinyUtilisation = 0.05;  // "< 5 % for tiny nets" (§3b)

std::string fmt(double v, int decimals) {
    std::ostringstream ss;
    ss.setf(std::ios::fixed);
    ss.precision(decimals);
    ss << v;
    return ss.str();
}

bool cc_at_least(const Gpu& gpu, double cc) {
    auto v = gpu.compute_capability_value();
    return !v || *v + 1e-9 >= cc;  // AMP parts: the datasheet figure decides
}

// What would make a job fit on `gpu`: the first few changes that do, cheapest first.
std::vector<std::string> fit_suggestions(const Workload& w, Precision p, const Gpu& gpu, int gpu_count) {
    std::vector<std::string> out;
    const double mem = gpu.memory_gb;
    auto fits = [&](const Workload& x, int n) { return estimate_memory(x, p, n).total_gb() <= mem; };
    if (w.is_training() && !w.grad_checkpointing) {
        Workload x = w;
        x.grad_checkpointing = true;
        if (fits(x, gpu_count)) out.push_back("fits with --grad-checkpointing (about a third more compute)");
    }
    if (w.batch_size > 1) {
        Workload x = w;
        while (x.batch_size > 1 && !fits(x, gpu_count)) {
            x.batch_size /= 2;
            update_derived(x);
        }
        if (fits(x, gpu_count))
            out.push_back("fits with --batch-size " + std::to_string(x.batch_size) + " (gradient accumulation keeps the global batch)");
    }
    if (w.is_training() && w.zero_stage < 3) {
        Workload x = w;
        x.zero_stage = 3;
        if (int n = minimum_gpu_count(x, p, mem); n > 0)
            out.push_back("fits with --zero 3 (FSDP full shard) on " + std::to_string(n) + " x " + gpu.id);
    }
    if (w.task == Task::train || w.task == Task::finetune) {
        for (Task t : {Task::lora, Task::qlora}) {
            Workload x = w;
            x.task = t;
            x.lora_trainable_fraction = 0.01;
            x.grad_checkpointing = true;
            if (fits(x, 1)) {
                out.push_back(std::string("fits on one GPU with --task ") + std::string(to_string(t)));
                break;
            }
        }
    }
    if (!w.is_training()) {
        if (int n = minimum_gpu_count(w, p, mem); n > 0)
            out.push_back("fits sharded (tensor parallel) over " + std::to_string(n) + " x " + gpu.id);
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

Estimate estimate_job(const Catalog& catalog, const Workload& w, const Gpu& gpu, int gpu_count, const LinkSpec& link) {
    Estimate e;
    e.gpu = &gpu;
    e.gpu_count = std::max(1, gpu_count) * std::max(1, link.nodes);
    e.precision = resolve_precision(w, gpu);
    e.memory_available_gb = gpu.memory_gb;
    e.throughput_unit = w.unit + "/s";
    e.precision_supported = precision_supported(gpu, e.precision);
    if (!e.precision_supported) {
        std::string why = e.precision == Precision::fp8    ? "FP8 needs compute capability 8.9 or newer"
                          : e.precision == Precision::bf16 ? "BF16 needs compute capability 8.0 or newer"
                          : e.precision == Precision::tf32 ? "TF32 needs compute capability 8.0 or newer"
                                                           : "the datasheet has no figure for it";
        e.notes.push_back(gpu.id + " cannot run " + std::string(to_string(e.precision)) + ": " + why +
                          "; use --precision fp16 (or leave it out for mixed precision)");
        e.basis = TimeBasis::estimated;
        return e;
    }
    const int n = e.gpu_count;
    e.memory = estimate_memory(w, e.precision, n);
    e.memory_required_gb = e.memory.total_gb();
    e.fits = e.memory_required_gb <= e.memory_available_gb;
    e.min_gpu_count = minimum_gpu_count(w, e.precision, gpu.memory_gb);
    if (!e.fits) {
        e.notes.push_back("needs " + fmt(e.memory_required_gb, 1) + " GB per GPU, " + gpu.id + " has " +
                          fmt(gpu.memory_gb, 0) + " GB");
        for (auto& s : fit_suggestions(w, e.precision, gpu, n)) e.notes.push_back(std::move(s));
    } else if (e.memory_required_gb > 0.9 * e.memory_available_gb) {
        e.notes.push_back("tight: less than 10 % of memory to spare");
    }
    // Time.
    SingleGpuSpeed speed = single_gpu_speed(catalog, w, gpu, e.precision);
    if (speed.samples_per_s <= 0) return e;
    const double step_s = w.batch_size / speed.samples_per_s;
    Scaling sc = estimate_scaling(w, gpu, n, step_s, link);
    e.scaling_efficiency = sc.efficiency;
    e.comm_share = sc.comm_share;
    e.utilisation = speed.utilisation * (n > 1 ? sc.efficiency : 1.0);
    const double samples_per_s = speed.samples_per_s * n * sc.efficiency;
    e.throughput_per_s = samples_per_s * w.units_per_sample();
    e.total_flops = flops_per_sample(w) * w.total_samples();
    e.hours_per_run = w.total_samples() / samples_per_s / 3600.0;
    e.basis = speed.basis;
    e.basis_detail = speed.basis_detail;
    double low = speed.band_low, high = speed.band_high;
    if (w.measured_hours && w.measured_on) {
        // The user's own timing: scale it by the model's ratio between this GPU/count and the measured one.
        const bool same = w.measured_on->id == gpu.id && w.measured_gpu_count == n;
        Workload plain = w;
        plain.measured_hours.reset();
        plain.measured_on = nullptr;
        const Estimate ref = same ? e : estimate_job(catalog, plain, *w.measured_on, w.measured_gpu_count, LinkSpec{});
        if (ref.hours_per_run > 0) {
            e.hours_per_run = same ? *w.measured_hours : *w.measured_hours * e.hours_per_run / ref.hours_per_run;
            e.basis = same ? TimeBasis::measured : TimeBasis::estimated;
            e.basis_detail = same ? "your measurement" : "scaled from your " + fmt(*w.measured_hours, 1) + " h on " +
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
        e.notes.push_back("communication takes " + fmt(100 * e.comm_share, 0) +
                          " % of step time: prefer NVLink (SXM) GPUs, fewer larger GPUs, or gradient accumulation");
    if (e.utilisation < kTinyUtilisation && w.is_training())
        e.notes.push_back("estimated utilisation is only " + fmt(100 * e.utilisation, e.utilisation < 0.001 ? 3 : 1) +
                          " % of the " + gpu.id + "'s peak: the model is too small to keep it busy; a small GPU (T4-class) or a CPU would do");
    return e;
}

}  // namespace gpuadvise
