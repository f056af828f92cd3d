// The layout planner's shortcuts (layout_planner.cpp): a fitting layout whose perfect-scaling speed
// is below the best so far is not timed; any_layout_fits stops at the first fitting layout; the
// minimum GPU count is computed once per GPU model (SpeedTable::minimum_gpus). None may change a
// result: each is checked against a full search, here every layout planned on its own (all of its
// parts pinned, so the planner has one layout to time and nothing to skip), on cases near each
// rule's edge (memory just around the planner's "tight" share, one GPU where the best layout meets
// the bound exactly, several nodes where the interruption factor enters the bound).
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

#include "core/advice/recommend_candidates.hpp"
#include "engine_catalog.hpp"
#include "gpuadvise/model/layout_planner.hpp"
#include "gpuadvise/model/workload.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace unit_test_planner_pruning {

using namespace gpuadvise;

namespace {

Gpu make_gpu(std::string id, std::string cc, double mem, double bw, double fp16) {
    Gpu g;
    g.id = std::move(id);
    g.family = g.id;
    g.form_factor = "sxm";
    g.interconnect = "NVLink";
    g.nvlink_domain = 8;
    g.compute_capability = std::move(cc);
    g.memory_gb = mem;
    g.memory_bandwidth_gb_per_s = bw;
    g.tflops.fp32 = fp16 / 16;
    g.tflops.fp16 = fp16;
    g.tflops.bf16 = fp16;
    g.tflops.tf32 = fp16 / 2;
    return g;
}

Catalog pruning_catalog() {
    Catalog c;
    c.models.push_back(enginetest::bert_large());
    ModelPreset llama = enginetest::llama2_7b();
    llama.default_job.batch_size = 8;
    c.models.push_back(llama);
    return c;
}

Workload workload(const Catalog& c, const char* model) {
    WorkloadRequest r;
    r.model = model;
    return make_workload(c, r);
}

// The planner's order (layout_planner.cpp, better()), restated.
bool beats(const PlannedLayout& a, const PlannedLayout& b, double comfortable_gb) {
    if (a.fits != b.fits) return a.fits;
    if (!a.fits) return a.memory.total_gb() < b.memory.total_gb();
    const bool ca = a.memory.total_gb() <= comfortable_gb, cb = b.memory.total_gb() <= comfortable_gb;
    if (ca != cb) return ca;
    const double ta = a.timing.samples_per_s, tb = b.timing.samples_per_s;
    if (std::fabs(ta - tb) > 1e-9 * std::max(ta, tb)) return ta > tb;
    auto key = [](const Parallelism& l) {
        return std::make_tuple(l.tensor * l.pipeline, -l.micro_batch, l.zero_stage, l.checkpointing);
    };
    return key(a.layout) < key(b.layout);
}

// Every training layout the free planner may choose on gpus_per_node x nodes GPUs (tensor: powers
// of two inside the NVLink node dividing the heads; pipeline: divisors of the rest up to the layers;
// ZeRO 0-3 on several GPUs; checkpointing on or off; micro-batches 1, 2, 4 ... clipped to the
// per-rank batch), each planned alone with every part pinned.
PlannedLayout full_search(const Catalog& c, const Workload& base, const Gpu& gpu, int gpus_per_node,
                          const LinkSpec& link, int* layouts = nullptr) {
    const Precision p = resolve_precision(base, gpu);
    const int total = gpus_per_node * link.nodes;
    const double comfortable = c.policy.get("tight_memory_share") * gpu.memory_gb;
    PlannedLayout best;
    bool have = false;
    int n = 0;
    for (int tp = 1; tp <= gpus_per_node; tp *= 2) {
        if (gpus_per_node % tp != 0 || base.shape.heads % tp != 0) continue;
        for (int pp = 1; pp <= std::min(total / tp, base.shape.layers); ++pp) {
            if ((total / tp) % pp != 0) continue;
            for (int zero = 0; zero <= (total > 1 ? 3 : 0); ++zero)
                for (bool ckpt : {false, true})
                    for (int m = 1; m <= 1024; m *= 2) {
                        Workload w = base;
                        w.pins.tensor = tp;
                        w.pins.pipeline = pp;
                        w.pins.micro_batch = m;
                        w.zero_pinned = true;
                        w.zero_stage = zero;
                        w.grad_checkpointing_pinned = true;
                        w.grad_checkpointing = ckpt;
                        const PlannedLayout x = plan_layout(c, w, gpu, p, gpus_per_node, link);
                        if (x.layout.gpus() != total || x.layout.tensor != tp || x.layout.pipeline != pp)
                            continue;
                        ++n;
                        if (!have || beats(x, best, comfortable)) {
                            best = x;
                            have = true;
                        }
                    }
        }
    }
    if (layouts) *layouts = n;
    return best;
}

void check_same_choice(const Catalog& c, const Workload& w, const Gpu& gpu, int gpus_per_node, int nodes) {
    LinkSpec link;
    link.nodes = nodes;
    link.inter_node_gbps = 400;
    const Precision p = resolve_precision(w, gpu);
    int layouts = 0;
    const PlannedLayout full = full_search(c, w, gpu, gpus_per_node, link, &layouts);
    const PlannedLayout fast = plan_layout(c, w, gpu, p, gpus_per_node, link);
    INFO(gpu.id << " " << gpu.memory_gb << " GB, " << gpus_per_node << " x " << nodes << ", " << layouts
                << " layouts; full: dp" << full.layout.data << " tp" << full.layout.tensor << " pp"
                << full.layout.pipeline << " z" << full.layout.zero_stage << " mb" << full.layout.micro_batch
                << " ckpt" << full.layout.checkpointing << " " << full.timing.samples_per_s
                << "/s; planner: dp" << fast.layout.data << " tp" << fast.layout.tensor << " pp"
                << fast.layout.pipeline << " z" << fast.layout.zero_stage << " mb" << fast.layout.micro_batch
                << " ckpt" << fast.layout.checkpointing << " " << fast.timing.samples_per_s << "/s");
    REQUIRE(layouts > 1);
    const double comfortable = c.policy.get("tight_memory_share") * gpu.memory_gb;
    // The planner's choice is as good as the best of all layouts (equal up to a tie of equal key).
    CHECK_FALSE(beats(full, fast, comfortable));
    CHECK(fast.fits == full.fits);
    CHECK(fast.timing.samples_per_s == Approx(full.timing.samples_per_s).epsilon(1e-9));
    CHECK(fast.memory.total_gb() == Approx(full.memory.total_gb()).epsilon(1e-9));
}

}  // namespace

TEST_CASE("planner: skipping layouts that cannot win keeps the full search's choice", "[core]") {
    const Catalog c = pruning_catalog();
    SECTION("BERT-Large, one GPU (the best layout meets its bound) and one node") {
        const Workload w = workload(c, "bert");
        for (double mem : {8.0, 16.0, 80.0}) {
            const Gpu g = make_gpu("g", "8.0", mem, 2000, 312);
            for (int n : {1, 2, 8}) check_same_choice(c, w, g, n, 1);
        }
    }
    SECTION("BERT-Large, memory in small steps: the fastest layout tight, a slower one within the share") {
        const Workload w = workload(c, "bert");
        for (double mem = 6.0; mem <= 12.0; mem += 0.25) {
            const Gpu g = make_gpu("g", "8.0", mem, 2000, 312);
            for (int n : {1, 2}) check_same_choice(c, w, g, n, 1);
        }
    }
    SECTION("Llama 2 7B fine-tuning: memory around the tight share, one and two nodes") {
        const Workload w = workload(c, "llama-2-7b");
        for (double mem : {24.0, 32.0, 40.0, 48.0, 64.0, 80.0}) {
            const Gpu g = make_gpu("g", "9.0", mem, 3350, 989);
            check_same_choice(c, w, g, 8, 1);
            check_same_choice(c, w, g, 4, 2);
        }
    }
}

TEST_CASE("planner: any_layout_fits and the cached minimum count agree with a full search", "[core]") {
    const Catalog c = pruning_catalog();
    for (const char* model : {"bert", "llama-2-7b"}) {
        const Workload w = workload(c, model);
        SpeedTable table(c, w);
        std::vector<Gpu> gpus;  // the table keys on the GPU's address: one object per GPU model
        for (double mem : {4.0, 12.0, 24.0, 40.0, 80.0})
            gpus.push_back(make_gpu("g" + std::to_string(static_cast<int>(mem)), "8.0", mem, 2000, 312));
        for (const Gpu& g : gpus) {
            const double mem = g.memory_gb;
            const Precision p = resolve_precision(w, g);
            INFO(model << " on " << mem << " GB");
            for (int n : {1, 2, 4, 8}) {
                LinkSpec link;
                const bool fits = full_search(c, w, g, n, link).fits;
                CHECK(any_layout_fits(w, g, p, n, 1) == fits);
            }
            const std::optional<int> fresh = minimum_gpus(w, g, p);
            CHECK(table.minimum_gpus(g, p) == fresh);
            CHECK(table.minimum_gpus(g, p) == fresh);  // the cached answer
            if (fresh && *fresh <= 8) {
                CHECK(full_search(c, w, g, *fresh, LinkSpec{}).fits);
                if (*fresh > 1) CHECK_FALSE(full_search(c, w, g, *fresh - 1, LinkSpec{}).fits);
            }
        }
    }
}

TEST_CASE("recommend: the minimum count of a GPU model without planning one GPU is the 1-GPU estimate's",
          "[core]") {
    const Catalog c = pruning_catalog();
    std::vector<Gpu> gpus;
    for (double mem : {4.0, 16.0, 40.0, 80.0})
        gpus.push_back(make_gpu("g" + std::to_string(static_cast<int>(mem)), "8.0", mem, 2000, 312));
    gpus.push_back(make_gpu("old", "7.0", 32, 900, 125));  // no bf16 or fp8: a precision it cannot run
    for (const char* model : {"bert", "llama-2-7b"})
        for (std::optional<Precision> precision :
             {std::optional<Precision>{}, std::optional<Precision>{Precision::bf16},
              std::optional<Precision>{Precision::fp8}}) {
            Workload w = workload(c, model);
            w.precision = precision;
            detail::EstimateCache fast(c, w), planned(c, w);
            for (const Gpu& g : gpus) {
                INFO(model << " on " << g.id << ", precision "
                           << (precision ? to_string(*precision) : "mixed"));
                CHECK(fast.min_gpus(g) == planned.get(g, 1, LinkSpec{}).min_gpu_count.value_or(0));
            }
        }
}

}  // namespace unit_test_planner_pruning
