// Issue 12: estimated GPU-hours of published pre-training runs (7B-405B, 64-16,384 GPUs), given
// the run's GPU, count, network and global batch, against the published figures; and published
// serving measurements. The model is the planner's mechanism (compute per GPU, exposed
// communication, bubble), not a fit: the "tuning" rows are the ones looked at while choosing the
// framework constants (overlap, NIC efficiency), the "held-out" rows were not. docs/methodology.md
// lists the same table with the residuals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "builtin_fixture.hpp"
#include "gpuadvise/model/workload.hpp"
#include "io/catalog_loader.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_published_runs {

using namespace gpuadvise;

namespace {

using gpuadvise::testing::builtin;

struct PublishedRun {
    const char* name;
    double params;
    int layers, hidden, heads, kv_heads, vocab, seq_len;
    double tokens;
    double global_batch_sequences;
    const char* gpu;
    int gpus, gpus_per_node;
    double network_gbps;  // per node
    double published_gpu_hours;
    bool held_out;  // no model change was made after seeing this row
    const char* source;
    int tp = 0, pp = 0;             // the published layout where the source gives it (0 = the planner's)
    int checkpointing = -1;         // 1/0 where the source says, -1 = the planner's
    bool network_published = true;  // false: the interconnect is assumed, the ±30 % check does not apply
};

// Published figures (see docs/methodology.md, "Calibration: training runs").
const PublishedRun kRuns[] = {
    {"LLaMA-65B", 65.2e9, 80, 8192, 64, 64, 32000, 2048, 1.4e12, 2048, "a100-80gb-sxm", 2048, 8, 1600,
     1022362, false,
     "Touvron et al. 2023 (LLaMA) table 15: 1,022,362 GPU-h; 2,048 A100-80GB, 380 tokens/s/GPU; 4M-token "
     "batch; RSC 8x200 Gb/s InfiniBand"},
    {"Llama-2-70B", 69e9, 80, 8192, 64, 8, 32000, 4096, 2e12, 1024, "a100-80gb-sxm", 2048, 8, 1600, 1720320,
     false,
     "Touvron et al. 2023 (Llama 2) table 2: 1,720,320 GPU-h; 2T tokens, 4M-token batch; 200 Gb/s per GPU "
     "(RoCE/IB), ~2,000 GPUs"},
    {"BLOOM-176B",
     176.2e9,
     70,
     14336,
     112,
     112,
     250880,
     2048,
     366e9,
     2048,
     "a100-80gb-sxm",
     384,
     8,
     400,
     1082990,
     false,
     "BigScience 2022 (BLOOM paper, GENCI): 1,082,990 compute hours on 48 nodes x 8 A100-80GB; 4 x 100 Gb/s "
     "Omni-Path per node; 366B tokens, batch 2,048; TP 4 x PP 12 x DP 8 with activation checkpointing",
     4,
     12,
     1},
    {"MPT-7B",
     6.7e9,
     32,
     4096,
     32,
     32,
     50432,
     2048,
     1e12,
     2048,
     "a100-40gb-sxm",
     440,
     8,
     1600,
     440 * 9.5 * 24,
     true,
     "MosaicML 2023 (MPT-7B blog/model card): 440 A100-40GB for 9.5 days = 100,320 GPU-h, 1T tokens; network "
     "and batch assumed (8x200 Gb/s RDMA, 4M tokens)",
     0,
     0,
     -1,
     false},
    {"OPT-175B", 175e9, 96, 12288, 96, 96, 50272, 2048, 180e9, 1024, "a100-80gb-sxm", 992, 8, 1600,
     6.0 * 175e9 * 180e9 / 147e12 / 3600, true,
     "Zhang et al. 2022 (OPT): 992 A100-80GB at 147 TFLOP/s per GPU, 180B tokens, 2M-token batch (GPU-h = "
     "6ND / 147 TFLOP/s; restarts excluded); Azure 8 x 200 Gb/s InfiniBand"},
    {"Llama-3.1-405B",
     405e9,
     126,
     16384,
     128,
     8,
     128256,
     8192,
     15.6e12,
     2048,
     "h100-sxm",
     16384,
     8,
     3200,
     30.84e6,
     false,
     "Meta 2024 (Llama 3.1 model card: 30.84M H100-80GB GPU-h; Llama 3 paper: 16K H100, 400 Gb/s RoCE per "
     "GPU, 16M-token batch, 15.6T tokens, TP 8 x PP 16 x DP 128)",
     8,
     16,
     -1},
};

struct RunResult {
    double hours = 0, ratio = 0, mfu = 0;
    Estimate e;
};

RunResult estimate_run(const PublishedRun& run) {
    WorkloadRequest r;
    r.params = std::to_string(run.params);
    r.task = "train";
    r.seq_len = run.seq_len;
    char tokens[64];
    std::snprintf(tokens, sizeof tokens, "%.6g", run.tokens);
    r.tokens = tokens;
    r.global_batch = std::to_string(static_cast<long long>(run.global_batch_sequences));
    if (run.tp) r.tensor_parallel = run.tp;
    if (run.pp) r.pipeline_parallel = run.pp;
    if (run.checkpointing >= 0) r.grad_checkpointing = run.checkpointing == 1;
    Workload w = make_workload(builtin(), r);
    w.shape.layers = run.layers;
    w.shape.hidden = run.hidden;
    w.shape.heads = run.heads;
    w.shape.kv_heads = run.kv_heads;
    w.shape.vocab = run.vocab;
    LinkSpec link;
    link.nodes = run.gpus / run.gpus_per_node;
    link.inter_node_gbps = run.network_gbps;
    const Gpu* g = builtin().find_gpu(run.gpu);
    REQUIRE(g != nullptr);
    RunResult out;
    out.e = estimate_job(builtin(), w, *g, run.gpus_per_node, link);
    out.hours = out.e.hours_per_run * run.gpus;
    out.ratio = out.hours / run.published_gpu_hours;
    out.mfu = out.e.utilisation;
    return out;
}

}  // namespace

TEST_CASE("published pre-training runs of 7B-405B models on 384-16,384 GPUs: GPU-hours within 30 %",
          "[io][calibration]") {
    int within = 0, held_out = 0;
    for (const auto& run : kRuns) {
        INFO(run.name << " (" << run.source << ")");
        RunResult res = estimate_run(run);
        REQUIRE(res.e.fits);
        INFO("estimated " << res.hours << " GPU-h, published " << run.published_gpu_hours << ", layout d"
                          << res.e.config.layout.data << " t" << res.e.config.layout.tensor << " p"
                          << res.e.config.layout.pipeline << " z" << res.e.config.layout.zero_stage << " mb"
                          << res.e.config.layout.micro_batch << "x" << res.e.config.layout.grad_accumulation
                          << ", MFU " << res.mfu);
        if (run.network_published) {
            CHECK(res.ratio > 0.7);
            CHECK(res.ratio < 1.3);
            within += res.ratio > 0.7 && res.ratio < 1.3;
        } else {
            // Interconnect and batch assumed: a wider check, reported in docs/methodology.md.
            CHECK(res.ratio > 0.5);
            CHECK(res.ratio < 1.5);
        }
        // Model-FLOPs utilisation in the range published runs reach (16-60 %), not the 60-70 % of a
        // single-GPU roofline without communication, bubble and interruptions.
        CHECK(res.mfu > 0.16);
        CHECK(res.mfu < 0.6);
        held_out += run.held_out ? 1 : 0;
    }
    CHECK(within >= 5);
    CHECK(held_out >= 1);
}

TEST_CASE("print published-run residuals", "[.residuals]") {
    for (const auto& run : kRuns) {
        RunResult res = estimate_run(run);
        const auto& l = res.e.config.layout;
        std::printf(
            "%-16s %-9s est %10.0f pub %10.0f ratio %.2f MFU %.1f%% eff %.2f comm %.2f bubble %.2f  d%d t%d "
            "p%d z%d mb%dx%d%s\n",
            run.name, run.held_out ? "held-out" : "tuning", res.hours, run.published_gpu_hours, res.ratio,
            100 * res.mfu, res.e.scaling_efficiency, res.e.comm_share, res.e.bubble_share, l.data, l.tensor,
            l.pipeline, l.zero_stage, l.micro_batch, l.grad_accumulation, l.checkpointing ? " ckpt" : "");
    }
}

}  // namespace io_test_published_runs
