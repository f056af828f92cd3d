// Ranking: objective order, region duplicates merged, Pareto front (time vs cost), over-buying.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "recommend_candidates.hpp"

namespace gpuadvise::detail {
namespace {

auto tie_key(const Candidate& c) {
    return std::make_tuple(c.gpu_count, c.cost.plan == Plan::spot, c.offer->provider, c.offer->gpu, c.offer->region,
                           c.offer->instance_type);
}

bool same_option(const Candidate& a, const Candidate& b) {
    return a.offer->provider == b.offer->provider && a.offer->gpu == b.offer->gpu && a.gpu_count == b.gpu_count &&
           a.cost.plan == b.cost.plan &&
           std::fabs(a.cost.cost_per_month - b.cost.cost_per_month) <= 1e-3 * std::max(1.0, a.cost.cost_per_month) &&
           a.offer->instance_type == b.offer->instance_type;
}

}  // namespace

void rank_candidates(std::vector<Candidate>& cs, Objective objective) {
    double min_cost = std::numeric_limits<double>::max(), min_hours = std::numeric_limits<double>::max();
    for (const auto& c : cs) {
        min_cost = std::min(min_cost, c.cost.cost_per_month);
        min_hours = std::min(min_hours, c.cost.hours_per_run);
    }
    auto score = [&](const Candidate& c) {
        switch (objective) {
            case Objective::cost: return std::make_pair(c.cost.cost_per_month, c.cost.hours_per_run);
            case Objective::time: return std::make_pair(c.cost.hours_per_run, c.cost.cost_per_month);
            case Objective::balanced:
                // Geometric balance: each option's cost and time relative to the best of each.
                return std::make_pair((c.cost.cost_per_month / std::max(min_cost, 1e-12)) *
                                          (c.cost.hours_per_run / std::max(min_hours, 1e-12)),
                                      c.cost.cost_per_month);
        }
        return std::make_pair(0.0, 0.0);
    };
    std::stable_sort(cs.begin(), cs.end(), [&](const Candidate& a, const Candidate& b) {
        auto sa = score(a), sb = score(b);
        if (std::fabs(sa.first - sb.first) > 1e-9 * std::max(1.0, std::fabs(sa.first))) return sa.first < sb.first;
        if (std::fabs(sa.second - sb.second) > 1e-9 * std::max(1.0, std::fabs(sa.second))) return sa.second < sb.second;
        return tie_key(a) < tie_key(b);
    });

    // The same instance at the same price in several regions is one option to the user.
    std::vector<Candidate> merged;
    for (auto& c : cs) {
        auto it = std::find_if(merged.begin(), merged.end(), [&](const Candidate& m) { return same_option(m, c); });
        if (it == merged.end()) {
            merged.push_back(std::move(c));
        } else {
            std::string note = "also in " + c.offer->region + " at the same price";
            if (std::find(it->reasons.begin(), it->reasons.end(), note) == it->reasons.end() && it->reasons.size() < 12)
                it->reasons.push_back(note);
        }
    }
    cs = std::move(merged);

    // Pareto-optimal: no other option is at least as fast and as cheap, and better in one.
    for (auto& c : cs) {
        c.pareto = std::none_of(cs.begin(), cs.end(), [&](const Candidate& o) {
            return &o != &c && o.cost.hours_per_run <= c.cost.hours_per_run + 1e-12 &&
                   o.cost.cost_per_month <= c.cost.cost_per_month + 1e-9 &&
                   (o.cost.hours_per_run < c.cost.hours_per_run - 1e-12 ||
                    o.cost.cost_per_month < c.cost.cost_per_month - 1e-9);
        });
    }
    for (std::size_t i = 0; i < cs.size(); ++i) cs[i].rank = static_cast<int>(i + 1);
}

void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Candidate>& all, double speed_fraction,
                      const std::string& currency) {
    for (auto& c : ranked) {
        const Candidate* best = nullptr;
        for (const auto& o : all) {
            if (o.gpu->family == c.gpu->family || o.gpu_count > c.gpu_count) continue;
            if (o.cost.cost_per_run >= c.cost.cost_per_run * 0.95) continue;
            // Over-buying (seed 4.1) is paying for a premium GPU whose speed is not needed: the
            // alternative is a smaller part (less peak compute) that still reaches the share of
            // the speed. A faster and cheaper option is simply ranked above; no warning needed.
            const double speed = c.cost.hours_per_run / o.cost.hours_per_run;
            if (speed < speed_fraction) continue;
            if (o.gpu->tflops.at(o.estimate.precision).value_or(0) >= c.gpu->tflops.at(c.estimate.precision).value_or(0))
                continue;
            if (!best || o.cost.cost_per_run < best->cost.cost_per_run) best = &o;
        }
        if (!best) continue;
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "over-buying: %s x%d (%s) delivers %.0f%% of this speed at %.0f%% of the cost per run (%s vs %s)",
                      best->gpu->id.c_str(), best->gpu_count, best->offer->provider.c_str(),
                      100.0 * c.cost.hours_per_run / best->cost.hours_per_run,
                      100.0 * best->cost.cost_per_run / c.cost.cost_per_run,
                      money(best->cost.cost_per_run, currency).c_str(), money(c.cost.cost_per_run, currency).c_str());
        c.warnings.push_back(buf);
    }
}

}  // namespace gpuadvise::detail
