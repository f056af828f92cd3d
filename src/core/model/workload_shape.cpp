// The workload's parameters, weight bytes and KV cache from its shape and formats (workload.hpp),
// over the shape formulas of model_shape.hpp.
#include <algorithm>
#include <cmath>

#include "gpuadvise/model/physics.hpp"
#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

ParamCount Workload::param_count() const {
    ParamCount c = count_params(shape);
    const double total = c.total();
    if (total <= 0 || params <= 0 || std::fabs(params / total - 1) < 1e-12) return c;
    const double k = params / total;  // --params override: every part scales alike
    for (double* part : {&c.embedding, &c.head, &c.attention, &c.attention_extra, &c.dense_mlp, &c.experts,
                         &c.experts_active, &c.shared, &c.router, &c.norms})
        *part *= k;
    return c;
}

double Workload::params_per_token() const {
    const ParamCount c = param_count();
    return c.total() > 0 ? c.active_compute() : params;
}

double Workload::params_active() const {
    const ParamCount c = param_count();
    return c.total() > 0 ? c.active() : params;
}

namespace {

// Parameters a weight format applies to and the routed experts among them.
struct QuantSplit {
    double quantised = 0, experts = 0;
};

QuantSplit quant_split(const Workload& w) {
    const ParamCount c = w.param_count();
    if (c.total() <= 0) return {w.params - w.embedding_params(), 0};  // embeddings and head kept 16-bit
    if (w.weights_scope == QuantScope::experts) return {c.experts, c.experts};
    return {c.quantisable(), c.experts};
}

}  // namespace

double Workload::weight_bytes_as(WeightFormat f) const {
    if (is_16bit(f)) return params * 2.0;
    const QuantSplit q = quant_split(*this);
    return q.quantised * bytes_per_param(f) + (params - q.quantised) * 2.0;
}

double Workload::weight_bytes(Precision p) const {
    if (weights) return weight_bytes_as(*weights);
    return params * gpuadvise::weight_bytes(p);
}

double Workload::expert_weight_bytes(Precision p) const {
    const QuantSplit q = quant_split(*this);
    if (q.experts <= 0) return 0;
    const double per =
        weights ? (is_16bit(*weights) ? 2.0 : bytes_per_param(*weights)) : gpuadvise::weight_bytes(p);
    return q.experts * per;
}

double Workload::decode_weight_bytes(Precision p, double sequences) const {
    const double all = weight_bytes(p);
    const double experts = expert_weight_bytes(p);
    if (experts <= 0 || shape.experts <= 0) return all;
    const double e = shape.experts, k = std::max(1, shape.active_experts);
    const double touched = 1 - std::pow(1 - k / e, std::max(1.0, sequences));
    return all - experts + experts * touched;
}

double Workload::kv_element_bytes(Precision p) const {
    if (kv_cache) return gpuadvise::weight_bytes(*kv_cache);
    return (p == Precision::fp32 || p == Precision::tf32) ? 4 : 2;  // fp8 compute keeps a 16-bit cache
}

double Workload::kv_bytes(Precision p, double tokens) const {
    return kv_cache_elements(shape, tokens) * kv_element_bytes(p);
}

double Workload::kv_shards(int tensor, int pipeline) const {
    const int t = std::max(1, tensor), pp = std::max(1, pipeline);
    if (shape.mla()) return pp;
    return static_cast<double>(pp) * std::min(t, std::max(1, shape.kv_heads));
}

}  // namespace gpuadvise
