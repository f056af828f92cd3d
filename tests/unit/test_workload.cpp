// The workload model's formulas on a catalog built in code (no files).
#include <catch2/catch.hpp>

#include "engine_catalog.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/model/workload.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_workload {

using namespace gpuadvise;

namespace {

Gpu make_gpu(std::string id, std::string cc, double mem, double bw, double fp16, std::optional<double> bf16,
             std::optional<double> fp8) {
    Gpu g;
    g.id = std::move(id);
    g.family = g.id;
    g.compute_capability = std::move(cc);
    g.memory_gb = mem;
    g.memory_bandwidth_gb_per_s = bw;
    g.tflops.fp32 = 15;
    g.tflops.fp16 = fp16;
    g.tflops.bf16 = bf16;
    g.tflops.tf32 = bf16 ? std::optional<double>(*bf16 / 2) : std::nullopt;
    g.tflops.fp8 = fp8;
    return g;
}

Catalog test_catalog() {
    Catalog c;
    c.gpus.push_back(make_gpu("t4", "7.5", 16, 320, 65, std::nullopt, std::nullopt));
    c.gpus.push_back(make_gpu("a100", "8.0", 80, 2039, 312, 312, std::nullopt));
    c.gpus.push_back(make_gpu("h100", "9.0", 80, 3350, 989.4, 989.4, 1978.9));
    ModelPreset llama = enginetest::llama2_7b();
    llama.aliases = {"llama2"};
    c.models.push_back(llama);
    ModelPreset bert = enginetest::bert_large();
    bert.default_job.samples = 1000;
    c.models.push_back(bert);
    return c;
}

}  // namespace

TEST_CASE("parse_quantity reads suffixes and refuses junk", "[core]") {
    CHECK(parse_quantity("7B") == Approx(7e9));
    CHECK(parse_quantity("350M") == Approx(350e6));
    CHECK(parse_quantity("1.28M") == Approx(1.28e6));
    CHECK(parse_quantity("60k") == Approx(60e3));
    CHECK_FALSE(parse_quantity("-3B"));
    CHECK_FALSE(parse_quantity("seven"));
    CHECK_FALSE(parse_quantity("nan"));
    CHECK_FALSE(parse_quantity(""));
}

TEST_CASE("aliases are case-insensitive, the alias is reported, unknown names get did-you-mean", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.model = "BERT";
    Workload w = make_workload(c, r);
    CHECK(w.model_id == "bert-large");
    CHECK(w.requested_as == "BERT");
    CHECK(w.assumptions.front().find("bert-large") != std::string::npos);
    r.model = "bret-large";
    try {
        make_workload(c, r);
        FAIL("expected a UsageError");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == "unknown model 'bret-large'");
        CHECK(e.hint().find("did you mean 'bert-large'") != std::string::npos);
    }
}

TEST_CASE("ZeRO stages reproduce the paper's 7.5B example on 64 GPUs", "[core]") {
    // Rajbhandari et al. via [S29]: 120 GB -> 31.4 -> 16.6 -> 1.9 GB of model states per GPU.
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.params = "7.5B";
    r.task = "train";
    const double expected[] = {120, 31.4, 16.6, 1.9};
    for (int stage = 0; stage <= 3; ++stage) {
        r.zero_stage = stage;
        Workload w = make_workload(c, r);
        MemoryBreakdown m = estimate_memory(w, Precision::bf16, 64);
        CHECK(m.weights_gb + m.gradients_gb + m.optimizer_gb == Approx(expected[stage]).epsilon(0.03));
    }
}

TEST_CASE("bytes per parameter follow the optimizer and precision table", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.params = "1B";
    r.task = "train";
    auto states = [&](const char* opt, Precision p) {
        r.optimizer = opt;
        MemoryBreakdown m = estimate_memory(make_workload(c, r), p, 1);
        return (m.weights_gb + m.gradients_gb + m.optimizer_gb);
    };
    CHECK(states("adamw", Precision::bf16) == Approx(16));
    CHECK(states("adamw", Precision::fp32) == Approx(16));
    CHECK(states("sgd", Precision::fp16) == Approx(12));
    CHECK(states("adam8bit", Precision::bf16) == Approx(10));
}

TEST_CASE("KV cache of Llama-2-7B at 2,048 tokens is 1.07 GB per sequence in fp16", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.model = "llama-2-7b";
    r.task = "inference";
    r.prompt_len = 1536;  // + 512 output tokens: a 2,048-token context
    r.output_len = 512;
    r.batch_size = 1;
    MemoryBreakdown m = estimate_memory(make_workload(c, r), Precision::fp16, 1);
    CHECK(m.kv_cache_gb == Approx(1.07).epsilon(0.01));  // [S30]
    CHECK(m.weights_gb == Approx(13.48).epsilon(0.001));
}

TEST_CASE("gradient checkpointing cuts transformer activations from 34·s·h to 2·s·h per layer", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.model = "llama-2-7b";
    r.batch_size = 1;
    r.seq_len = 2048;
    r.grad_checkpointing = false;
    Workload full = make_workload(c, r);
    CHECK(full.activation_bytes_per_sample(false, Attention::flash) == Approx(34.0 * 2048 * 4096 * 32));
    // Without FlashAttention-style kernels the s x s scores are stored too: + 5·a·s² per layer.
    CHECK(full.activation_bytes_per_sample(false, Attention::eager) ==
          Approx((34.0 * 2048 * 4096 + 5.0 * 32 * 2048 * 2048) * 32));
    r.grad_checkpointing = true;
    Workload ck = make_workload(c, r);
    CHECK(estimate_memory(ck, Precision::bf16, 1).activations_gb <
          estimate_memory(full, Precision::bf16, 1).activations_gb / 5);
}

TEST_CASE("precision rules: no BF16 below CC 8.0, FP8 only from 8.9, mixed picks bf16 or fp16", "[core]") {
    Catalog c = test_catalog();
    const Gpu& t4 = c.gpus[0];
    const Gpu& a100 = c.gpus[1];
    const Gpu& h100 = c.gpus[2];
    CHECK_FALSE(precision_supported(t4, Precision::bf16));
    CHECK(precision_supported(a100, Precision::bf16));
    CHECK_FALSE(precision_supported(a100, Precision::fp8));
    CHECK(precision_supported(h100, Precision::fp8));
    WorkloadRequest r;
    r.model = "bert";
    Workload w = make_workload(c, r);
    CHECK(resolve_precision(w, t4) == Precision::fp16);
    CHECK(resolve_precision(w, a100) == Precision::bf16);
    r.precision = "bf16";
    Estimate e = estimate_job(c, make_workload(c, r), t4, 1);
    CHECK_FALSE(e.precision_supported);
    CHECK_FALSE(e.fits);
    CHECK(e.notes.front().find("--precision fp16") != std::string::npos);
}

TEST_CASE("all-reduce: NVLink scales, a 1 Gbit/s network between nodes does not", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.model = "bert";
    Workload w = make_workload(c, r);
    Gpu nvlink = c.gpus[1];
    nvlink.intra_node_busbw_gb_per_s = 215;
    Estimate one = estimate_job(c, w, nvlink, 1);
    Estimate eight = estimate_job(c, w, nvlink, 8);
    CHECK(eight.scaling_efficiency > 0.85);
    CHECK(eight.throughput_per_s > 6.5 * one.throughput_per_s);
    LinkSpec slow;
    slow.nodes = 2;
    slow.inter_node_gbps = 1;
    Estimate two_nodes = estimate_job(c, w, nvlink, 8, slow);
    CHECK(two_nodes.gpu_count == 16);
    CHECK(two_nodes.config.nodes == 2);
    CHECK(two_nodes.config.gpus_per_node == 8);
    CHECK(two_nodes.config.layout.gpus() == 16);
    CHECK(two_nodes.comm_share > 0.3);
    CHECK(two_nodes.scaling_efficiency < 0.7);
}

TEST_CASE("a user's own timing is used on its GPU and scaled to the others", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    r.model = "bert";
    r.hours_per_run = 10;
    r.measured_on = "t4";
    Workload w = make_workload(c, r);
    Estimate on_t4 = estimate_job(c, w, c.gpus[0], 1);
    CHECK(on_t4.hours_per_run == Approx(10));
    CHECK(on_t4.basis == TimeBasis::measured);
    Estimate on_h100 = estimate_job(c, w, c.gpus[2], 1);
    CHECK(on_h100.hours_per_run < 10);
    CHECK(on_h100.basis_detail.str().find("scaled from your") != std::string::npos);
    r.measured_on.reset();
    CHECK_THROWS_AS(make_workload(c, r), UsageError);
}

TEST_CASE("bad knobs are usage errors", "[core]") {
    Catalog c = test_catalog();
    WorkloadRequest r;
    CHECK_THROWS_AS(make_workload(c, r), UsageError);  // no model
    r.model = "llama-2-7b";
    r.task = "pretrain";
    CHECK_THROWS_AS(make_workload(c, r), UsageError);
    r.task.reset();
    r.seq_len = 8192;  // beyond the 4,096 context
    CHECK_THROWS_AS(make_workload(c, r), UsageError);
    r.seq_len.reset();
    r.zero_stage = 4;
    CHECK_THROWS_AS(make_workload(c, r), UsageError);
}

}  // namespace unit_test_workload
