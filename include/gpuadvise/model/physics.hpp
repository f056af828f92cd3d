// The shared constants and small formulas of a job's physics: the one home of each figure that
// the single-GPU time model (time_model.cpp), the memory model (memory_model.cpp) and the layout
// planner (layout_planner.cpp) all use. Sources and fits: docs/methodology.md.
#pragma once

#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

// Fitted by least squares (log residuals) to the 31 ResNet-50 / BERT-base / BERT-large AMP points
// of gpu-facts §3c (docs/methodology.md gives the fit and its residuals).
inline constexpr double kMatmulEfficiency = 0.84;  // best-case share of dense peak in large matmuls
inline constexpr double kHiddenHalf = 512;         // transformers reach half of that at hidden = 512
// Per optimizer step (training) or scheduler step (serving): Python, optimizer, data hand-off,
// sampling (§3b "small ops are overhead-bound" [S34]). An assumption, not fitted.
inline constexpr double kStepOverheadS = 1.0e-3;
// Share of the datasheet HBM bandwidth a kernel streaming weights reaches: the serving decode
// model's figure (docs/methodology.md §3, vLLM's engine profile), used for MoE expert reads in training.
inline constexpr double kStreamBandwidthShare = 0.8;

// A transformer with a known shape (layers and hidden size), encoder-decoder speech models included.
bool has_transformer_shape(const Workload& w);
// Share of dense peak the job's matmuls reach: kMatmulEfficiency, scaled by hidden / (hidden +
// kHiddenHalf) for transformers.
double matmul_efficiency(const Workload& w);
// Dense peak FLOP/s of the GPU at a precision (0 when the datasheet has none).
double peak_flops(const Gpu& gpu, Precision p);
// Bytes per stored weight at a compute precision (fp32/tf32 4, fp8 1, 16-bit 2).
double weight_bytes(Precision p);
// Bytes per activation element: 4 at fp32/tf32, else 2 (fp8 training keeps 16-bit activations).
double activation_element_bytes(Precision p);

}  // namespace gpuadvise
