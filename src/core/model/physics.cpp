#include "gpuadvise/model/physics.hpp"

namespace gpuadvise {

bool has_transformer_shape(const Workload& w) {
    return (w.kind == ModelKind::transformer || w.kind == ModelKind::speech) && w.shape.layers > 0 &&
           w.shape.hidden > 0;
}

double matmul_efficiency(const Workload& w) {
    double eff = kMatmulEfficiency;
    if (has_transformer_shape(w)) eff *= w.shape.hidden / (w.shape.hidden + kHiddenHalf);
    return eff;
}

double peak_flops(const Gpu& gpu, Precision p) { return gpu.tflops.at(p).value_or(0) * 1e12; }

double weight_bytes(Precision p) {
    switch (p) {
        case Precision::fp32:
        case Precision::tf32: return 4;
        case Precision::fp8: return 1;
        default: return 2;
    }
}

double activation_element_bytes(Precision p) {
    return p == Precision::fp32 || p == Precision::tf32 ? 4.0 : 2.0;
}

}  // namespace gpuadvise
