// In-memory catalogs for the engine tests (test_ranking.cpp, test_recommend_engine.cpp,
// test_needs_rules.cpp): no files, every number chosen here, so each test can say which offer must
// win, on which plan, at which price.
//
// The engine's results still carry a few string kinds (a rejection's constraint, a finding's kind,
// the binding constraint) that issue 11 turns into enums. Every test reads them through the small
// functions at the end of this file, so adapting the tests to the enums means editing only those.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "gpuadvise/advice/recommend.hpp"

// Shared per-table strings print as their text in failed assertions and INFO lines.
namespace gpuadvise {
inline std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.str(); }
}  // namespace gpuadvise

namespace enginetest {

using namespace gpuadvise;

// A GPU with the figures the estimate reads. Families are the real ones (T4, V100, A100, H100) because
// step 1's tier rule names them; the numbers are round but close to the datasheets.
inline Gpu make_gpu(std::string id, std::string family, double memory_gb, double fp16, double bandwidth,
                    std::string cc) {
    Gpu g;
    g.id = std::move(id);
    g.family = std::move(family);
    g.name = g.id;
    g.vendor = "NVIDIA";
    g.compute_capability = std::move(cc);
    g.memory_gb = memory_gb;
    g.memory_bandwidth_gb_per_s = bandwidth;
    g.tflops.fp32 = fp16 / 8;
    g.tflops.fp16 = fp16;
    if (g.compute_capability >= "8.0") {
        g.tflops.bf16 = fp16;
        g.tflops.tf32 = fp16 / 2;
    }
    g.source = "test";
    return g;
}

inline Provider make_provider(std::string id, std::string currency = "USD") {
    Provider p;
    p.id = std::move(id);
    p.name = p.id;
    p.currency = std::move(currency);
    p.kind = ProviderKind::public_prices;
    p.as_of = "2026-11-01";
    p.source = "test";
    return p;
}

struct Prices {
    std::optional<double> on_demand, reserved, spot;
};

inline Offer make_offer(std::string provider, std::string gpu, int count, Prices prices,
                        std::string region = "r1", std::string instance_type = "") {
    Offer o;
    o.provider = std::move(provider);
    o.gpu = std::move(gpu);
    o.gpu_count = count;
    o.region = std::move(region);
    o.instance_type = instance_type.empty() ? o.gpu + "x" + std::to_string(count) : std::move(instance_type);
    o.on_demand_per_hour = prices.on_demand;
    o.reserved_per_month = prices.reserved;
    o.spot_per_hour = prices.spot;
    o.as_of = "2026-11-01";
    o.source = "test";
    return o;
}

// A CNN preset: `params` parameters, 4 GFLOPs forward per 224 px image, 20 MB of activations per image,
// a default job of `samples` images, one epoch, batch 64.
inline ModelPreset make_cnn(std::string id, double params, double samples, double flops_per_sample = 4e9) {
    ModelPreset m;
    m.id = std::move(id);
    m.name = m.id;
    m.kind = ModelKind::cnn;
    m.unit = "images";
    m.params = params;
    m.flops_per_sample = flops_per_sample;
    m.reference_image_size = 224;
    m.activation_mb_per_image = 20;
    m.default_job = {"train", samples, 1, 64, 0, 224, false, "test job"};
    m.source = "test";
    return m;
}

// BERT-Large (336 M parameters, 24 layers; a default fine-tune of 100,000 sequences x 2 epochs, batch 24
// at 384 tokens) and Llama 2 7B (6.74 B, 32 layers, 4096 tokens; 1,000 sequences, batch 1 at 2048 tokens,
// checkpointing), as in data/models.yaml. Tests change the default job where they need another.
inline ModelPreset bert_large() {
    ModelPreset m;
    m.id = "bert-large";
    m.aliases = {"bert"};
    m.name = "BERT-Large";
    m.unit = "sequences";
    m.params = 336e6;
    m.flops_per_token = 0.604e9;
    m.shape = {24, 1024, 16, 16, 30522, 0, false};
    m.default_job = {"finetune", 100000, 2, 24, 384, 0, false, "test"};
    return m;
}

inline ModelPreset llama2_7b() {
    ModelPreset m;
    m.id = "llama-2-7b";
    m.name = "Llama 2 7B";
    m.kind = ModelKind::transformer;
    m.unit = "tokens";
    m.params = 6.74e9;
    m.flops_per_token = 13.5e9;
    m.max_seq_len = 4096;
    m.shape = {32, 4096, 32, 32, 32000, 0, true};
    m.default_job = {"finetune", 1000, 1, 1, 2048, 0, true, "test"};
    m.source = "test";
    return m;
}

// Four GPUs (t4 < v100 < a100 < h100 in speed), three models of the three size tiers (small 1 M,
// medium 25 M, large 300 M parameters), no offers and no providers yet. The set-up time each run is
// billed for is 0 unless a test sets it, so hours and costs are exactly the estimate's.
inline Catalog base_catalog() {
    Catalog c;
    c.gpus.push_back(make_gpu("t4", "T4", 16, 65, 320, "7.5"));
    c.gpus.push_back(make_gpu("v100", "V100", 16, 112, 900, "7.0"));
    c.gpus.push_back(make_gpu("a100", "A100", 80, 312, 2039, "8.0"));
    c.gpus.push_back(make_gpu("h100", "H100", 80, 989, 3350, "9.0"));
    c.models.push_back(make_cnn("tinynet", 1e6, 60000, 0.5e9));
    c.models.push_back(make_cnn("midnet", 25e6, 1.2e6));
    c.models.push_back(make_cnn("bignet", 300e6, 1.2e6));
    c.rates = {{"CNY", 0.14, "2024-06-28", "test"}};
    c.policy.set("run_setup_minutes", 0);
    // Exact hours x price for the engine's checks: no idle tail, no rounding (test_billing_energy covers them).
    c.policy.set("idle_minutes_after_run", 0);
    c.policy.set("default_billing_increment_seconds", 1);
    c.policy.set("default_minimum_charge_seconds", 0);
    return c;
}

inline void add(Catalog& c, Provider p, std::vector<Offer> offers) {
    for (auto& o : offers) {
        o.currency = p.currency;
        c.offers.push_back(std::move(o));
    }
    c.providers.push_back(std::move(p));
}

// A request for a preset; `measured_hours` on `measured_on` fixes the run time on that GPU exactly.
inline RecommendRequest request(const Catalog& c, const std::string& model, double runs_per_week = 1,
                                std::optional<double> measured_hours = std::nullopt,
                                std::string measured_on = "") {
    WorkloadRequest w;
    w.model = model;
    if (measured_hours) {
        w.hours_per_run = measured_hours;
        w.measured_on = std::move(measured_on);
    }
    RecommendRequest r;
    r.workload = make_workload(c, w);
    r.runs_per_week = runs_per_week;
    r.top = 50;
    return r;
}

// --- Reading results. The enums are turned into their names here only, so that tests read like the output. ---

inline std::string constraint_of(const Rejection& r) { return to_string(r.constraint); }
inline std::string binding_constraint(const Recommendation& r) { return to_string(r.binding_constraint); }
inline std::string kind_of(const Finding& f) { return to_string(f.kind); }
inline bool is_measured(const Estimate& e) { return e.basis == TimeBasis::measured; }

// "provider/gpu xN@region" of each ranked candidate, best first.
inline std::vector<std::string> ranked_names(const Recommendation& r) {
    std::vector<std::string> out;
    for (const auto& c : r.ranked)
        out.push_back(c.offer->provider + "/" + c.offer->gpu + " x" + std::to_string(c.gpu_count) + "@" +
                      c.offer->region);
    return out;
}

inline const Finding* finding(const Recommendation& r, const std::string& rule) {
    for (const auto& s : r.steps)
        for (const auto& f : s.findings)
            if (f.rule == rule) return &f;
    return nullptr;
}

inline std::vector<const Finding*> findings(const Recommendation& r, const std::string& rule) {
    std::vector<const Finding*> out;
    for (const auto& s : r.steps)
        for (const auto& f : s.findings)
            if (f.rule == rule) out.push_back(&f);
    return out;
}

inline bool contains(const std::string& text, const std::string& part) {
    const bool found = text.find(part) != std::string::npos;
    if (!found && std::getenv("ENGINE_DEBUG"))
        std::fprintf(stderr, "TEXT[%s]\n  LACKS[%s]\n", text.c_str(), part.c_str());
    return found;
}

inline bool has_warning(const Candidate& c, const std::string& part) {
    return std::any_of(c.warnings.begin(), c.warnings.end(),
                       [&](const OptionWarning& w) { return contains(w.message, part); });
}

inline bool has_reason(const Candidate& c, const std::string& part) {
    return std::any_of(c.reasons.begin(), c.reasons.end(),
                       [&](const std::string& w) { return contains(w, part); });
}

inline std::vector<const Rejection*> rejections(const Recommendation& r, const std::string& constraint) {
    std::vector<const Rejection*> out;
    for (const auto& x : r.rejected)
        if (constraint_of(x) == constraint) out.push_back(&x);
    return out;
}

}  // namespace enginetest
