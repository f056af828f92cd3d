// The planner's single-GPU speed table (SpeedTable, time_model.cpp): one table serves every
// plan_layout / estimate_job call of a run, so a cached speed must equal a fresh computation and
// each part of its key (GPU, precision, micro-batch, checkpointing) must keep its own entry.
#include <catch2/catch.hpp>

#include "engine_catalog.hpp"
#include "gpuadvise/model/layout_planner.hpp"
#include "gpuadvise/model/workload.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_speed_table {

using namespace gpuadvise;

namespace {

Gpu make_gpu(std::string id, std::string cc, double mem, double bw, double fp16, double fp32) {
    Gpu g;
    g.id = std::move(id);
    g.family = g.id;
    g.form_factor = "sxm";
    g.interconnect = "NVLink";
    g.nvlink_domain = 8;
    g.compute_capability = std::move(cc);
    g.memory_gb = mem;
    g.memory_bandwidth_gb_per_s = bw;
    g.tflops.fp32 = fp32;
    g.tflops.fp16 = fp16;
    g.tflops.bf16 = fp16;
    g.tflops.tf32 = fp16 / 2;
    return g;
}

// Two GPUs, BERT-Large and Llama 2 7B; one measurement of BERT-Large on the a100 only, so the two
// GPUs differ in basis (measured / estimated) as well as in speed.
Catalog speed_catalog() {
    Catalog c;
    c.gpus.push_back(make_gpu("a100", "8.0", 80, 2039, 312, 19.5));
    c.gpus.push_back(make_gpu("h100", "9.0", 80, 3350, 989.4, 67));
    c.models.push_back(enginetest::bert_large());
    c.models.push_back(enginetest::llama2_7b());
    CalibrationPoint m;
    m.model = "bert-large";
    m.gpu = "A100";  // by another spelling: the lookup folds names
    m.precision = "amp";
    m.throughput = 300;
    m.throughput_high = 340;
    m.unit = "sequences";
    m.batch_size = 24;
    m.seq_len = 384;
    m.source = "test measurement";
    c.calibration.push_back(m);
    return c;
}

Workload workload(const Catalog& c, const char* model) {
    WorkloadRequest r;
    r.model = model;
    return make_workload(c, r);
}

void check_same(const SingleGpuSpeed& a, const SingleGpuSpeed& b) {
    CHECK(a.samples_per_s == b.samples_per_s);
    CHECK(a.utilisation == b.utilisation);
    CHECK(a.basis == b.basis);
    CHECK(a.basis_detail == b.basis_detail);
    CHECK(a.band_low == b.band_low);
    CHECK(a.band_high == b.band_high);
}

void check_same(const Estimate& a, const Estimate& b) {
    CHECK(a.fits == b.fits);
    CHECK(a.config.layout.data == b.config.layout.data);
    CHECK(a.config.layout.tensor == b.config.layout.tensor);
    CHECK(a.config.layout.pipeline == b.config.layout.pipeline);
    CHECK(a.config.layout.zero_stage == b.config.layout.zero_stage);
    CHECK(a.config.layout.micro_batch == b.config.layout.micro_batch);
    CHECK(a.config.layout.checkpointing == b.config.layout.checkpointing);
    CHECK(a.memory_required_gb == b.memory_required_gb);
    CHECK(a.hours_per_run == b.hours_per_run);
    CHECK(a.hours_low == b.hours_low);
    CHECK(a.hours_high == b.hours_high);
    CHECK(a.throughput_per_s == b.throughput_per_s);
    CHECK(a.utilisation == b.utilisation);
    CHECK(a.comm_share == b.comm_share);
    CHECK(a.basis == b.basis);
    CHECK(a.basis_detail == b.basis_detail);
    CHECK(a.notes == b.notes);
}

}  // namespace

TEST_CASE("speed table: a hit returns the fresh computation; each key part has its own entry", "[core]") {
    const Catalog c = speed_catalog();
    const Workload w = workload(c, "bert");
    const Gpu& a100 = c.gpus[0];
    const Gpu& h100 = c.gpus[1];
    auto fresh = [&](const Gpu& g, Precision p, int micro, bool ckpt) {
        SpeedTable t(c, w);
        return t.get(g, p, micro, ckpt);
    };
    // Keys that differ in one part each, with speeds that differ (else a too coarse key would pass).
    struct Key {
        const Gpu* gpu;
        Precision p;
        int micro;
        bool ckpt;
    };
    const std::vector<Key> keys = {{&a100, Precision::bf16, 24, false},
                                   {&h100, Precision::bf16, 24, false},
                                   {&a100, Precision::fp32, 24, false},
                                   {&a100, Precision::bf16, 8, false},
                                   {&a100, Precision::bf16, 24, true}};
    for (std::size_t i = 1; i < keys.size(); ++i) {
        INFO("key " << i);
        REQUIRE(fresh(*keys[i].gpu, keys[i].p, keys[i].micro, keys[i].ckpt).samples_per_s !=
                fresh(a100, Precision::bf16, 24, false).samples_per_s);
    }
    // The measurement applies to the a100 at its own batch, and scales to other micro-batches.
    CHECK(fresh(a100, Precision::bf16, 24, false).basis == TimeBasis::measured);
    CHECK(fresh(a100, Precision::bf16, 8, false).basis == TimeBasis::measured);
    CHECK(fresh(h100, Precision::bf16, 24, false).basis == TimeBasis::estimated);

    // At the job's own batch an entry is single_gpu_speed itself.
    for (bool ckpt : {false, true})
        for (const Gpu* g : {&a100, &h100}) {
            Workload x = w;
            x.grad_checkpointing = ckpt;
            check_same(fresh(*g, Precision::bf16, w.batch_size, ckpt),
                       single_gpu_speed(c, x, *g, Precision::bf16));
        }

    SpeedTable shared(c, w);
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < keys.size(); ++i) {
            INFO("pass " << pass << ", key " << i);
            const Key& k = keys[i];
            const SingleGpuSpeed& got = shared.get(*k.gpu, k.p, k.micro, k.ckpt);
            check_same(got, fresh(*k.gpu, k.p, k.micro, k.ckpt));
            CHECK(&got == &shared.get(*k.gpu, k.p, k.micro, k.ckpt));  // a hit: the same entry
            CHECK(shared.size() == (pass == 0 ? i + 1 : keys.size()));
        }
}

TEST_CASE("plans and estimates through one shared speed table equal fresh ones", "[core]") {
    const Catalog c = speed_catalog();
    for (const char* model : {"bert", "llama-2-7b"}) {
        const Workload w = workload(c, model);
        SpeedTable shared(c, w);
        LinkSpec two_nodes;
        two_nodes.nodes = 2;
        two_nodes.inter_node_gbps = 400;
        // Several counts and networks per GPU, GPUs interleaved: what recommend asks of one table.
        for (int round = 0; round < 2; ++round)
            for (const Gpu& g : c.gpus)
                for (int count : {1, 2, 8}) {
                    for (const LinkSpec& link : {LinkSpec{}, two_nodes}) {
                        INFO(model << " on " << count << " x " << g.id << ", nodes " << link.nodes
                                   << ", round " << round);
                        const Estimate cached = estimate_job(shared, g, count, link);
                        const Estimate plain = estimate_job(c, w, g, count, link);
                        check_same(cached, plain);
                        const Precision p = resolve_precision(w, g);
                        const PlannedLayout a = plan_layout(shared, g, p, count, link);
                        const PlannedLayout b = plan_layout(c, w, g, p, count, link);
                        CHECK(a.timing.samples_per_s == b.timing.samples_per_s);
                        CHECK(a.timing.basis_detail == b.timing.basis_detail);
                        CHECK(a.memory.total_gb() == b.memory.total_gb());
                    }
                }
    }
    // The chosen layout carries its speed's basis (set once, for the layout chosen).
    const Workload bert = workload(c, "bert");
    SpeedTable shared(c, bert);
    const Estimate on_a100 = estimate_job(shared, c.gpus[0], 1);
    CHECK(on_a100.basis == TimeBasis::measured);
    CHECK(on_a100.basis_detail.str().find("measured on a100 (test measurement)") == 0);
    const Estimate on_h100 = estimate_job(shared, c.gpus[1], 2);
    CHECK(on_h100.basis == TimeBasis::estimated);
    CHECK(on_h100.basis_detail.str().find("roofline model") == 0);
}

// The layout planner bounds a micro-batch's speed by a larger one's it has read (SpeedCache::at_least):
// the single-GPU speed may not fall as the micro-batch grows, with or without recompute, measured
// (bert on the a100) or modelled, for a transformer and a model of another kind.
TEST_CASE("the single-GPU speed does not fall as the micro-batch grows", "[planner]") {
    Catalog c = speed_catalog();
    c.models.push_back(enginetest::make_cnn("cnn", 25e6, 1.2e6));
    for (const char* model : {"bert", "llama-2-7b", "cnn"}) {
        const Workload w = workload(c, model);
        SpeedTable table(c, w);
        for (const Gpu& g : c.gpus)
            for (bool checkpointing : {false, true}) {
                const Precision p = resolve_precision(w, g);
                double last = 0;
                for (int micro : {1, 2, 3, 4, 8, 16, 24, 32, 64, 256, 1024}) {
                    INFO(model << " on " << g.id << ", micro-batch " << micro << ", recompute "
                               << checkpointing);
                    const double speed = table.get(g, p, micro, checkpointing).samples_per_s;
                    CHECK(speed > 0);
                    CHECK(speed >= last);
                    last = speed;
                }
            }
    }
}

}  // namespace unit_test_speed_table
