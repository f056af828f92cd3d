// Parameters, KV cache and weight bytes from a transformer's shape (src/core/model_shape.cpp).
#include <catch2/catch.hpp>

#include "gpuadvise/model/workload.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_model_shape {

using namespace gpuadvise;

namespace {

TransformerShape llama31_8b() {
    TransformerShape s;
    s.layers = 32;
    s.hidden = 4096;
    s.heads = 32;
    s.kv_heads = 8;
    s.head_dim = 128;
    s.ffn = 14336;
    s.vocab = 128256;
    s.decoder = true;
    return s;
}

TransformerShape mixtral_8x7b() {
    TransformerShape s = llama31_8b();
    s.vocab = 32000;
    s.experts = 8;
    s.active_experts = 2;
    s.moe_ffn = 14336;
    return s;
}

}  // namespace

TEST_CASE("count_params: Llama 3.1 8B and Mixtral 8x7B as their configs give them", "[core]") {
    const ParamCount l = count_params(llama31_8b());
    CHECK(l.total() == Approx(8030261248.0));  // PROVENANCE.md's count
    CHECK(l.active() == Approx(l.total()));
    CHECK(l.embedding == Approx(128256.0 * 4096));
    const ParamCount m = count_params(mixtral_8x7b());
    CHECK(m.total() == Approx(46702792704.0));
    CHECK(m.active() == Approx(12879925248.0));
    CHECK(m.active_compute() == Approx(m.active() - 32000.0 * 4096));
    // A partial shape (no ffn) has no count: the preset's params are used.
    TransformerShape partial = llama31_8b();
    partial.ffn = 0;
    CHECK(count_params(partial).total() == 0);
}

TEST_CASE("KV cache per token from the shape: GQA, sliding windows, MLA", "[core]") {
    const TransformerShape s = llama31_8b();
    CHECK(kv_cache_elements(s, 1) == 2.0 * 8 * 128 * 32);
    // The full 131,072-token context: 17.2 GB (16 GiB) in 16-bit.
    CHECK(kv_cache_elements(s, 131072) * 2 == Approx(17179869184.0));
    TransformerShape sw = s;
    sw.sliding_window = 4096;
    sw.sliding_layers = 16;
    CHECK(kv_cache_elements(sw, 131072) == Approx(2.0 * 8 * 128 * (16 * 131072.0 + 16 * 4096.0)));
    CHECK(kv_cache_elements(sw, 1000) == Approx(kv_cache_elements(s, 1000)));
    TransformerShape mla = s;
    mla.kv_lora_rank = 512;
    mla.qk_rope_dim = 64;
    CHECK(kv_cache_elements(mla, 10) == 576.0 * 32 * 10);
}

TEST_CASE("weight formats: bytes per parameter with scales; 16-bit parts stay 16-bit", "[core]") {
    CHECK(bytes_per_param(WeightFormat::bf16) == 2);
    CHECK(bytes_per_param(WeightFormat::fp8) == Approx(1.000244).epsilon(1e-5));
    CHECK(bytes_per_param(WeightFormat::int4) == Approx(0.51953125));
    CHECK(bytes_per_param(WeightFormat::nf4) == Approx(0.515875));
    CHECK(bytes_per_param(WeightFormat::mxfp4) == Approx(0.53125));
    CHECK(bytes_per_param(WeightFormat::nvfp4) == Approx(0.5625));
    Workload w;
    w.shape = llama31_8b();
    w.params = count_params(w.shape).total();
    CHECK(w.weight_bytes(Precision::bf16) == Approx(2 * w.params));
    CHECK(w.weight_bytes(Precision::fp8) == Approx(w.params));
    w.weights = WeightFormat::int4;
    const ParamCount c = count_params(w.shape);
    CHECK(w.weight_bytes(Precision::bf16) ==
          Approx(c.quantisable() * bytes_per_param(WeightFormat::int4) + (c.total() - c.quantisable()) * 2));
    // The output layer and embedding (2 x 525M) stay 16-bit: 5.7 GB, not 4.2 (8.03B x 0.52).
    CHECK(w.weight_bytes(Precision::bf16) / 1e9 == Approx(5.73).epsilon(0.02));
    w.kv_cache = Precision::fp8;
    CHECK(w.kv_bytes(Precision::bf16, 100) == Approx(kv_cache_elements(w.shape, 100)));
}

TEST_CASE("MoE: memory holds every expert, decode reads the routed ones", "[core]") {
    Workload w;
    w.shape = mixtral_8x7b();
    w.params = count_params(w.shape).total();
    const double all = w.weight_bytes(Precision::bf16);
    const double experts = w.expert_weight_bytes(Precision::bf16);
    CHECK(experts == Approx(count_params(w.shape).experts * 2));
    // One sequence reads 2 of 8 experts per layer; many read nearly all of them.
    CHECK(w.decode_weight_bytes(Precision::bf16, 1) == Approx(all - experts * 0.75));
    CHECK(w.decode_weight_bytes(Precision::bf16, 256) == Approx(all).epsilon(1e-6));
    CHECK(w.params_per_token() == Approx(count_params(w.shape).active_compute()));
    // MXFP4 on the experts only.
    w.weights = WeightFormat::mxfp4;
    w.weights_scope = QuantScope::experts;
    CHECK(w.weight_bytes(Precision::bf16) ==
          Approx(count_params(w.shape).experts * 0.53125 + (w.params - count_params(w.shape).experts) * 2));
}

TEST_CASE("expert parallelism splits the experts' memory, not the dense share", "[core]") {
    Workload w;
    w.shape = mixtral_8x7b();
    w.params = count_params(w.shape).total();
    w.task = Task::inference;
    w.seq_len = 1024;
    Parallelism one;
    one.data = 8;
    Parallelism ep = one;
    ep.expert = 8;
    const double all = w.weight_bytes(Precision::bf16) / 1e9,
                 experts = w.expert_weight_bytes(Precision::bf16) / 1e9;
    CHECK(layout_memory(w, Attention::flash, Precision::bf16, one, 1).weights_gb == Approx(all));
    CHECK(layout_memory(w, Attention::flash, Precision::bf16, ep, 1).weights_gb ==
          Approx(all - experts + experts / 8));
    // Training: ZeRO-1 shards the dense optimizer states over 8 ranks, the experts' over 8 / 8 = 1.
    w.task = Task::train;
    w.optimizer = Optimizer::adamw;
    ep.zero_stage = 1;
    const double share = count_params(w.shape).experts / w.params;
    CHECK(layout_memory(w, Attention::flash, Precision::bf16, ep).optimizer_gb ==
          Approx(w.params * 12 * ((1 - share) / 8 + share / 8) / 1e9));
}

TEST_CASE("offload moves the optimizer states (or the model states) to host RAM", "[core]") {
    Workload w;
    w.shape = llama31_8b();
    w.params = count_params(w.shape).total();
    w.task = Task::finetune;
    w.seq_len = 2048;
    Parallelism l;
    l.data = 8;
    l.zero_stage = 3;
    const MemoryBreakdown none = layout_memory(w, Attention::flash, Precision::bf16, l);
    w.offload = Offload::optimizer;
    const MemoryBreakdown opt = layout_memory(w, Attention::flash, Precision::bf16, l);
    CHECK(opt.optimizer_gb == 0);
    CHECK(opt.host_gb == Approx(none.optimizer_gb));
    CHECK(opt.weights_gb == Approx(none.weights_gb));
    w.offload = Offload::params;
    const MemoryBreakdown all = layout_memory(w, Attention::flash, Precision::bf16, l);
    CHECK(all.host_gb == Approx(none.optimizer_gb + none.weights_gb * 30 / 32 + none.gradients_gb));
    CHECK(all.weights_gb == Approx(none.weights_gb * 2 / 32));
    CHECK(all.total_gb() < opt.total_gb());
}

}  // namespace unit_test_model_shape
