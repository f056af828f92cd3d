// recommend --what-if on the built-in catalog: the incremental grid (options sized and priced once,
// only the months re-costed at each point) gives exactly what the per-point recommendation gave, the
// reference below (the engine before issue 32: the whole candidate pool built at every point).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "builtin_fixture.hpp"
#include "core/advice/recommend_candidates.hpp"
#include "gpuadvise/advice/recommend.hpp"
#include "gpuadvise/model/workload.hpp"

// One namespace per file: the tests compile in unity batches (cmake/FastBuild.cmake).
namespace io_test_what_if {

using namespace gpuadvise;
using gpuadvise::testing::builtin;

namespace {

// ---- The reference: what_if_runs_per_week and what_if_requests_per_day as they were (one full
// build_candidates per plan, term and point).

std::optional<WhatIfBest> reference_best_of_plan(const Catalog& catalog, const RecommendRequest& base,
                                                 detail::EstimateCache& estimates, Plan plan,
                                                 double runs_per_week, int term = -1) {
    RecommendRequest r = base;
    r.runs_per_week = runs_per_week;
    r.plan = PlanFilter{plan, term >= 0 ? term
                              : plan == Plan::reserved && base.plan && base.plan->plan == Plan::reserved
                                  ? base.plan->term_months
                                  : 0};
    if (plan == Plan::spot && !r.interruptible) return std::nullopt;
    const detail::CandidatePool pool = detail::build_candidates(catalog, r, estimates);
    const detail::Option* best = nullptr;
    for (const auto& o : pool.options)
        if (o.in_filter && o.cost.plan == plan && detail::cheaper_complete_first(o, best)) best = &o;
    if (!best) return std::nullopt;
    WhatIfBest w;
    w.provider = best->offer->provider;
    w.gpu = best->gpu->id;
    w.instance_type = best->offer->instance_type;
    w.region = best->offer->region;
    w.gpu_count = best->gpu_count;
    w.cost_per_month = best->cost.cost_per_month;
    if (plan == Plan::reserved) w.term_months = detail::materialize(catalog, r, *best).cost.term_months;
    return w;
}

const std::optional<WhatIfBest>& reference_of(const WhatIfPoint& p, Plan plan) {
    return plan == Plan::on_demand ? p.on_demand : plan == Plan::reserved ? p.reserved : p.spot;
}

std::optional<Plan> reference_cheapest(const WhatIfPoint& p) {
    std::optional<Plan> best;
    for (Plan plan : {Plan::on_demand, Plan::reserved, Plan::spot})
        if (const auto& b = reference_of(p, plan);
            b && (!best || b->cost_per_month < reference_of(p, *best)->cost_per_month - 1e-9))
            best = plan;
    return best;
}

WhatIf reference_runs_per_week(const Catalog& catalog, const RecommendRequest& request, double from,
                               double to, double step, bool by_term) {
    WhatIf out;
    detail::EstimateCache estimates(catalog, request.workload);
    std::vector<int> terms;
    if (by_term && (!request.plan || request.plan->plan == Plan::reserved)) {
        for (const auto& o : catalog.offers)
            for (const auto& k : o.commitments)
                if (k.term_months > 0 && std::find(terms.begin(), terms.end(), k.term_months) == terms.end())
                    terms.push_back(k.term_months);
        if (request.plan && request.plan->term_months) terms = {request.plan->term_months};
        std::sort(terms.begin(), terms.end());
    }
    auto point = [&](double x) {
        WhatIfPoint p;
        p.runs_per_week = x;
        p.on_demand = reference_best_of_plan(catalog, request, estimates, Plan::on_demand, x);
        p.reserved = reference_best_of_plan(catalog, request, estimates, Plan::reserved, x);
        p.spot = reference_best_of_plan(catalog, request, estimates, Plan::spot, x);
        for (int term : terms)
            if (auto b = reference_best_of_plan(catalog, request, estimates, Plan::reserved, x, term);
                b && b->term_months == term)
                p.reserved_by_term.push_back(*b);
        return p;
    };
    const long n = static_cast<long>(std::floor((to - from) / step + 1e-9));
    for (long i = 0; i <= n; ++i) out.points.push_back(point(from + static_cast<double>(i) * step));
    for (std::size_t i = 1; i < out.points.size(); ++i) {
        const auto a = reference_cheapest(out.points[i - 1]), b = reference_cheapest(out.points[i]);
        if (!a || !b || *a == *b) continue;
        double lo = out.points[i - 1].runs_per_week, hi = out.points[i].runs_per_week;
        for (int k = 0; k < 60 && hi - lo > 1e-9 * std::max(1.0, hi); ++k) {
            const double mid = (lo + hi) / 2;
            const auto x = reference_best_of_plan(catalog, request, estimates, *a, mid);
            const auto y = reference_best_of_plan(catalog, request, estimates, *b, mid);
            if (x && (!y || x->cost_per_month <= y->cost_per_month))
                lo = mid;
            else
                hi = mid;
        }
        out.crossovers.push_back({(lo + hi) / 2, *a, *b});
    }
    return out;
}

std::vector<double> reference_traffic_points(double from, double to) {
    std::vector<double> out{from};
    for (double decade = std::pow(10.0, std::floor(std::log10(from))); decade <= to; decade *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (const double x = m * decade; x > from * (1 + 1e-9) && x < to * (1 - 1e-9)) out.push_back(x);
    if (to > from) out.push_back(to);
    return out;
}

ServiceWhatIf reference_requests_per_day(const Catalog& catalog, const RecommendRequest& request, double from,
                                         double to) {
    ServiceWhatIf out;
    detail::EstimateCache estimates(catalog, request.workload);
    for (double x : reference_traffic_points(from, to)) {
        RecommendRequest r = request;
        r.service->requests_per_day = x;
        r.service->tokens_per_month.reset();
        ServiceWhatIfPoint p;
        p.requests_per_day = x;
        const detail::CandidatePool pool = detail::build_candidates(catalog, r, estimates);
        const detail::Option* best = nullptr;
        for (const auto& o : pool.options)
            if (o.in_filter && detail::cheaper_complete_first(o, best)) best = &o;
        if (best) {
            const Candidate c = detail::materialize(catalog, r, *best);
            WhatIfBest b;
            b.provider = best->offer->provider;
            b.gpu = best->gpu->id;
            b.instance_type = best->offer->instance_type;
            b.region = best->offer->region;
            b.gpu_count = best->gpu_count;
            b.term_months = c.cost.plan == Plan::reserved ? c.cost.term_months : 0;
            b.cost_per_month = c.cost.cost_per_month;
            p.best = b;
            p.plan = c.cost.plan;
            if (c.service) {
                p.replicas = c.service->replicas;
                p.utilisation = c.service->utilisation;
                p.cost_per_million_tokens = c.service->cost_per_million_tokens;
            }
        }
        out.points.push_back(std::move(p));
    }
    return out;
}

// ---- Every number as its exact bits (%a), one line per point: equal lines are equal output.

std::string text(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", x);
    return buf;
}

std::string text(const std::optional<WhatIfBest>& b) {
    if (!b) return "-";
    return b->provider + "/" + b->gpu + "/" + b->instance_type + "/" + b->region + " x" +
           std::to_string(b->gpu_count) + " " + std::to_string(b->term_months) + "m " +
           text(b->cost_per_month);
}

std::vector<std::string> lines(const WhatIf& w) {
    std::vector<std::string> out;
    for (const auto& p : w.points) {
        std::string s = text(p.runs_per_week) + " | " + text(p.on_demand) + " | " + text(p.reserved) + " | " +
                        text(p.spot) + " |";
        for (const auto& b : p.reserved_by_term) s += " " + text(std::optional<WhatIfBest>(b));
        out.push_back(s);
    }
    for (const auto& x : w.crossovers)
        out.push_back("crossover " + text(x.runs_per_week) + " " + std::string(to_string(x.from)) + " -> " +
                      std::string(to_string(x.to)));
    return out;
}

std::vector<std::string> lines(const ServiceWhatIf& w) {
    std::vector<std::string> out;
    for (const auto& p : w.points)
        out.push_back(text(p.requests_per_day) + " | " + text(p.best) + " | " +
                      std::string(to_string(p.plan)) + " " + std::to_string(p.replicas) + " " +
                      text(p.utilisation) + " " +
                      (p.cost_per_million_tokens ? text(*p.cost_per_million_tokens) : "-"));
    return out;
}

// The first line where the two differ (both shown), or "" when they are the same.
std::string first_difference(const std::vector<std::string>& got, const std::vector<std::string>& want) {
    for (std::size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
        const std::string g = i < got.size() ? got[i] : "(none)", w = i < want.size() ? want[i] : "(none)";
        if (g != w) return "line " + std::to_string(i) + ":\n  got  " + g + "\n  want " + w;
    }
    return "";
}

RecommendRequest job(const char* model, const char* task = nullptr, double runs_per_week = 4) {
    WorkloadRequest wr;
    wr.model = model;
    if (task) wr.task = task;
    RecommendRequest r;
    r.workload = make_workload(builtin(), wr);
    r.runs_per_week = runs_per_week;
    return r;
}

struct Grid {
    double from, to, step;
};

void check_same(const RecommendRequest& r, const Grid& g, bool by_term) {
    INFO("grid " << g.from << ":" << g.to << ":" << g.step << (by_term ? " by term" : ""));
    const auto got = lines(what_if_runs_per_week(builtin(), r, g.from, g.to, g.step, by_term));
    const auto want = lines(reference_runs_per_week(builtin(), r, g.from, g.to, g.step, by_term));
    CHECK(got.size() == want.size());
    CHECK(first_difference(got, want) == "");
    // As the CLI asks it: over what recommend sized (its basis), not the catalog sized again.
    RecommendBasis basis;
    recommend(builtin(), r, &basis);
    REQUIRE(basis.state);
    CHECK(first_difference(lines(what_if_runs_per_week(builtin(), r, g.from, g.to, g.step, by_term, &basis)),
                           want) == "");
}

}  // namespace

TEST_CASE("what-if: bert's incremental grid is the per-point recommendation, bit for bit", "[io][what-if]") {
    const RecommendRequest r = job("bert");
    check_same(r, {0, 100, 4.7}, false);         // from 0 (a one-off point) to the plan flips
    check_same(r, {0.1, 3000, 197.7}, false);    // far past the 730 h a month of one slot
    check_same(r, {1, 40, 3}, true);             // the HTML report's plan chart's range, every term
    check_same(r, {9000, 10000, 250.5}, false);  // many slots per copy
}

TEST_CASE("what-if: an interruptible job's spot column, a deadline and --objective carbon", "[io][what-if]") {
    RecommendRequest r = job("bert");
    r.interruptible = true;
    r.checkpoint_minutes = 10;
    check_same(r, {0.5, 400, 39.7}, true);
    r.deadline_hours = 1.2;
    r.objective = Objective::carbon;
    check_same(r, {0, 200, 23.3}, false);
}

TEST_CASE("what-if: a multi-GPU LLM fine-tune", "[io][what-if]") {
    RecommendRequest r = job("llama-2-13b", "finetune", 2);
    r.interruptible = true;
    check_same(r, {0.2, 60, 9.9}, true);
    r.gpus_now = 16;  // several nodes
    check_same(r, {0.3, 30, 5.3}, false);
}

TEST_CASE("what-if: providers with commitments, --plan reserved and one term", "[io][what-if]") {
    for (const char* provider : {"gcp", "aws"}) {
        INFO(provider);
        RecommendRequest r = job("bert");
        r.providers = {provider};
        check_same(r, {0.25, 150, 15.7}, true);
        r.plan = PlanFilter{Plan::reserved, 0};
        check_same(r, {1, 500, 59.1}, true);
        r.plan = PlanFilter{Plan::reserved, 12};
        r.idle_minutes = 0;
        check_same(r, {1, 500, 75.9}, true);
    }
}

TEST_CASE("what-if: a budget rejects the dearer months, a one-off job's by the job's cost", "[io][what-if]") {
    RecommendRequest r = job("bert");
    r.budget_monthly = 40;
    r.providers = {"gcp"};
    check_same(r, {0, 300, 24.3}, true);
    r.providers.clear();
    r.budget_monthly = 300;
    r.interruptible = true;
    check_same(r, {0.5, 2000, 166.3}, false);
    r.runs = 3;  // --runs 3: a one-off job at every point, held to the budget by its three runs
    r.budget_monthly = 5;
    r.providers = {"aws"};
    check_same(r, {0, 50, 4.9}, true);
}

TEST_CASE("what-if: a service's traffic grid is the per-point recommendation, bit for bit", "[io][what-if]") {
    WorkloadRequest wr;
    wr.model = "llama-3-8b";
    wr.task = "inference";
    wr.online_traffic = true;
    for (const char* provider : {"", "aws"}) {
        INFO("provider " << provider);
        RecommendRequest r;
        r.workload = make_workload(builtin(), wr);
        ServiceTraffic t;
        t.requests_per_day = 10000;
        r.service = t;
        r.runs_per_week = kDaysPerWeek;
        if (*provider) r.providers = {provider};
        const auto got = lines(what_if_requests_per_day(builtin(), r, 1000, 1e7));
        const auto want = lines(reference_requests_per_day(builtin(), r, 1000, 1e7));
        CHECK(got.size() == want.size());
        CHECK(first_difference(got, want) == "");
        RecommendBasis basis;
        recommend(builtin(), r, &basis);
        CHECK(first_difference(lines(what_if_requests_per_day(builtin(), r, 1000, 1e7, &basis)), want) == "");
    }
}

}  // namespace io_test_what_if
