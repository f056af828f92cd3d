// Time on one GPU (gpu-facts §3b/§3c): a roofline of tensor-core compute and activation memory
// traffic plus a per-step overhead, fitted to the measured throughputs of §3c, and replaced by a
// measurement (scaled to this job's input) where one exists for the model, GPU and precision.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>
#include <utility>

#include "gpuadvise/base/text.hpp"
#include "gpuadvise/model/physics.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {
namespace {

// kMatmulEfficiency, kHiddenHalf and kStepOverheadS are in physics.hpp.
constexpr double kTrafficPerActivationByte = 16;  // HBM bytes moved per stored activation byte, fwd+bwd
// Per layer and step ~a dozen kernel launches (§3b "small ops are overhead-bound" [S34]). An
// assumption, not fitted.
constexpr double kLayerOverheadS = 0.1e-3;
// Bands on time: the residuals of the fit lie within 0.69-1.31 of measurements (throughput).
constexpr double kEstimatedBandLow = 0.7, kEstimatedBandHigh = 1.5;
constexpr double kMeasuredBand = 1.15;  // implementation spread beyond the sources' own range

// A calibration point may name the GPU by id or alias (data/providers.yaml is edited separately).
bool names_gpu(const std::string& name, const Gpu& gpu) {
    if (same_folded_name(name, gpu.id)) return true;
    return std::any_of(gpu.aliases.begin(), gpu.aliases.end(),
                       [&](const std::string& a) { return same_folded_name(a, name); });
}

// Model FLOPs per sample: training 3 x forward (2 x for adapters: no weight gradients of the
// frozen base), inference forward x passes (diffusion: steps x CFG).
double model_flops(const Workload& w) {
    if (!w.is_training()) return w.forward_flops_per_sample() * (w.preset ? w.preset->inference_passes : 1);
    return w.forward_flops_per_sample() * (w.is_adapter() ? 2.0 : 3.0);
}

}  // namespace

double flops_per_sample(const Workload& w) { return model_flops(w); }

// Pure model, samples/s on one GPU.
static SingleGpuSpeed modelled_speed(const Workload& w, const Gpu& gpu, Precision p) {
    SingleGpuSpeed s;
    const double peak = peak_flops(gpu, p);
    const double bw = gpu.memory_bandwidth_gb_per_s.value_or(0) * 1e9;
    if (peak <= 0) return s;
    const double eff = matmul_efficiency(w);
    const double act_scale = (p == Precision::fp32 || p == Precision::tf32) ? 2.0 : 1.0;
    // Hardware FLOPs: full recompute runs the forward twice (8ND instead of 6ND, §3b).
    double hw_flops = model_flops(w);
    if (w.is_training() && w.grad_checkpointing) hw_flops += w.forward_flops_per_sample();
    double per_sample = hw_flops / (peak * eff);
    // The traffic term was fitted with the 34·s·h activations of FlashAttention-style kernels on
    // every GPU (the measurements include each GPU's own attention kernels), so it keeps them.
    double traffic =
        w.activation_bytes_per_sample(false, Attention::flash) * act_scale * kTrafficPerActivationByte;
    if (!w.is_training()) traffic /= 3.0;  // forward only
    if (bw > 0) per_sample += traffic / bw;
    const int layers = (w.kind == ModelKind::transformer || w.kind == ModelKind::speech) ? w.shape.layers : 0;
    double step = per_sample * w.batch_size + kStepOverheadS + kLayerOverheadS * std::max(1, layers);
    s.samples_per_s = w.batch_size / step;
    s.utilisation = s.samples_per_s * model_flops(w) / peak;
    static const SharedText roofline("roofline model fitted to the measured throughputs of gpu-facts §3c");
    s.basis_detail = roofline;
    s.band_low = kEstimatedBandLow;
    s.band_high = kEstimatedBandHigh;
    return s;
}

// The GPU of the catalog a calibration point was measured on (nullptr: none).
static const Gpu* measured_gpu(const Catalog& catalog, const CalibrationPoint& c) {
    for (const auto& g : catalog.gpus)
        if (names_gpu(c.gpu, g)) return &g;
    return nullptr;
}

// The single-GPU calibration points of the workload's model, in catalog order, each with the GPU of the
// catalog it was measured on (points on a GPU the catalog does not list are left out).
static MeasuredPoints model_points(const Catalog& catalog, const Workload& w) {
    MeasuredPoints out;
    for (const auto& c : catalog.calibration)
        if (c.model == w.model_id && c.gpu_count == 1)
            if (const Gpu* g = measured_gpu(catalog, c)) out.emplace_back(&c, g);
    return out;
}

// The calibration points that measure the workload's model at precision p on one `gpu`, in catalog
// order; without any, those on its variants: the same family and memory first, else the same
// family (the measurement on a V100 SXM2 prices the V100 PCIe through their datasheets' ratio).
// A variant measured and its sibling modelled would otherwise be ordered by the model's error on
// one of them, not by their hardware: the PCIe part came out faster than the SXM2 one (#29).
// `all`: model_points of the workload.
static MeasuredPoints calibration_points(const MeasuredPoints& all, const Gpu& gpu, Precision p) {
    auto points_on = [&](auto&& on_gpu) {
        MeasuredPoints out;
        for (const auto& [c, g] : all)
            if (c->matches(p) && on_gpu(*g)) out.emplace_back(c, g);
        return out;
    };
    auto out = points_on([&](const Gpu& g) { return &g == &gpu; });
    if (!out.empty() || gpu.family.empty()) return out;
    out = points_on([&](const Gpu& g) { return g.family == gpu.family && g.memory_gb == gpu.memory_gb; });
    if (!out.empty()) return out;
    return points_on([&](const Gpu& g) { return g.family == gpu.family; });
}

// The modelled speed, replaced by what `points` (calibration_points of this model, GPU and
// precision) measured, for a training job of a preset. A point measured on another variant of the
// GPU is carried over by the model's ratio between the two GPUs at the point's input.
static SingleGpuSpeed measured_or_modelled(const Workload& w, const Gpu& gpu, Precision p,
                                           const MeasuredPoints& points) {
    SingleGpuSpeed s = modelled_speed(w, gpu, p);
    if (!w.is_training() || !w.preset || s.samples_per_s <= 0) return s;
    // Geometric mean of the matching measurements, each scaled by the model's ratio between this
    // job's input and the measured one (sequence length, image size, batch).
    double log_sum = 0, lo = 0, hi = 0;
    int count = 0;
    std::vector<std::string> sources;
    const Gpu* on = nullptr;                        // the GPU measured on, when not `gpu` itself
    for (const auto& [point, measured] : points) {  // each with the GPU it was measured on
        const CalibrationPoint& c = *point;
        if (measured != &gpu) on = measured;
        Workload at = w;
        at.task = Task::train;
        if (c.seq_len > 0 && at.shape.patch_size == 0) at.seq_len = c.seq_len;
        if (c.image_size > 0) at.set_image_size(c.image_size);
        if (c.batch_size > 0) at.batch_size = c.batch_size;
        at.grad_checkpointing = false;
        const double modelled_at = modelled_speed(at, *measured, p).samples_per_s;
        if (modelled_at <= 0) continue;
        const double ratio = s.samples_per_s / modelled_at;
        const double unit_scale = (c.unit == "tokens" && at.seq_len > 0) ? 1.0 / at.seq_len : 1.0;
        const double low = c.throughput * unit_scale * ratio;
        const double high = (c.throughput_high > 0 ? c.throughput_high : c.throughput) * unit_scale * ratio;
        log_sum += std::log(std::sqrt(low * high));
        lo = count == 0 ? low : std::min(lo, low);
        hi = count == 0 ? high : std::max(hi, high);
        ++count;
        if (std::find(sources.begin(), sources.end(), c.source) == sources.end()) sources.push_back(c.source);
    }
    if (count == 0) return s;
    const double measured = std::exp(log_sum / count);
    s.samples_per_s = measured;
    s.utilisation = measured * model_flops(w) / peak_flops(gpu, p);
    std::ostringstream detail;
    if (on) {
        // Measured on a variant (points come from one GPU, or from several of one family): an
        // estimate, in the roofline's band, ordered among the variants by their datasheets.
        std::vector<std::string> ids;
        for (const auto& [point, g] : points)
            if (std::find(ids.begin(), ids.end(), g->id) == ids.end()) ids.push_back(g->id);
        detail << "scaled from the measurements on " << join(ids, ", ") << " (";
        for (std::size_t i = 0; i < sources.size(); ++i) detail << (i ? "; " : "") << sources[i];
        detail << ") by the model's ratio between the variants, and to this job's input";
        s.basis_detail = detail.str();
        return s;
    }
    s.basis = TimeBasis::measured;
    detail << "measured on " << gpu.id << " (";
    for (std::size_t i = 0; i < sources.size(); ++i) detail << (i ? "; " : "") << sources[i];
    detail << "), scaled to this job's input";
    s.basis_detail = detail.str();
    // Time band: the spread of the measurements, widened for implementation differences.
    s.band_low = measured / hi / kMeasuredBand;
    s.band_high = measured / lo * kMeasuredBand;
    return s;
}

SingleGpuSpeed single_gpu_speed(const Catalog& catalog, const Workload& w, const Gpu& gpu, Precision p,
                                bool use_measurements) {
    if (!use_measurements || !w.is_training() || !w.preset) return modelled_speed(w, gpu, p);
    return measured_or_modelled(w, gpu, p, calibration_points(model_points(catalog, w), gpu, p));
}

const SingleGpuSpeed& SpeedTable::get(const Gpu& gpu, Precision p, int micro_batch, bool checkpointing) {
    const auto key = std::make_tuple(&gpu, p, micro_batch, checkpointing);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    if (micro_batch != workload_.batch_size) {
        // Another micro-batch: the speed at the job's own batch (an entry of its own, computed once
        // for all micro-batches), scaled by the model's ratio between the two.
        SingleGpuSpeed s = get(gpu, p, workload_.batch_size, checkpointing);
        if (s.samples_per_s > 0) {
            // The modelled speed at the job's batch, once per (GPU, precision, checkpointing).
            Workload& x = scratch(checkpointing);
            const auto job_key = std::make_tuple(&gpu, p, checkpointing);
            auto job = modelled_at_job_.find(job_key);
            if (job == modelled_at_job_.end())
                job = modelled_at_job_
                          .emplace(job_key, single_gpu_speed(catalog_, x, gpu, p, false).samples_per_s)
                          .first;
            const double at_job = job->second;
            x.batch_size = micro_batch;
            const double at_micro = single_gpu_speed(catalog_, x, gpu, p, false).samples_per_s;
            if (at_job > 0 && at_micro > 0) {
                const double factor = at_micro / at_job;
                s.samples_per_s *= factor;
                s.utilisation *= factor;
            }
        }
        return cache_.emplace(key, std::move(s)).first->second;
    }
    auto points = points_.find({&gpu, p});
    if (points == points_.end()) {
        if (!model_points_) model_points_ = model_points(catalog_, workload_);
        points = points_.emplace(std::make_pair(&gpu, p), calibration_points(*model_points_, gpu, p)).first;
    }
    // = single_gpu_speed(catalog_, x, gpu, p), with the points found once per GPU and precision
    return cache_.emplace(key, measured_or_modelled(scratch(checkpointing), gpu, p, points->second))
        .first->second;
}

Workload& SpeedTable::scratch(bool checkpointing) {
    if (!scratch_) scratch_ = workload_;
    scratch_->grad_checkpointing = checkpointing;
    scratch_->batch_size = workload_.batch_size;
    return *scratch_;
}

}  // namespace gpuadvise
