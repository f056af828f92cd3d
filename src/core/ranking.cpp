// Ranking: objective order, region duplicates merged, Pareto front (time vs cost), over-buying.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>

#include "recommend_candidates.hpp"

namespace gpuadvise::detail {
namespace {

auto tie_key(const Option& c) {
    return std::make_tuple(c.gpu_count, c.cost.plan == Plan::spot, std::string_view(c.offer->provider),
                           std::string_view(c.offer->gpu), std::string_view(c.offer->region),
                           std::string_view(c.offer->instance_type));
}

// Within one group (same provider, GPU, count, plan, instance type): the same price.
bool same_price(double kept, double c) { return std::fabs(kept - c) <= 1e-3 * std::max(1.0, kept); }

}  // namespace

Ranking rank_options(const std::vector<Option>& options, Objective objective, bool all) {
    Ranking out;
    std::vector<std::size_t> idx;
    idx.reserve(options.size());
    double min_cost = std::numeric_limits<double>::max(), min_hours = std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (!all && !options[i].in_filter) continue;
        idx.push_back(i);
        min_cost = std::min(min_cost, options[i].cost.cost_per_month);
        min_hours = std::min(min_hours, options[i].cost.hours_per_run);
    }
    // Scores computed once and sorted with the index, so that comparing two options reads two
    // adjacent doubles; strings are compared only on a tie.
    struct Scored {
        double first, second;
        std::size_t index;
    };
    std::vector<Scored> scored;
    scored.reserve(idx.size());
    for (std::size_t i : idx) {
        const PlanCost& c = options[i].cost;
        switch (objective) {
            case Objective::cost: scored.push_back({c.cost_per_month, c.hours_per_run, i}); break;
            case Objective::time: scored.push_back({c.hours_per_run, c.cost_per_month, i}); break;
            case Objective::balanced:
                // Geometric balance: each option's cost and time relative to the best of each.
                scored.push_back({(c.cost_per_month / std::max(min_cost, 1e-12)) * (c.hours_per_run / std::max(min_hours, 1e-12)),
                                  c.cost_per_month, i});
                break;
        }
    }
    std::stable_sort(scored.begin(), scored.end(), [&](const Scored& a, const Scored& b) {
        if (std::fabs(a.first - b.first) > 1e-9 * std::max(1.0, std::fabs(a.first))) return a.first < b.first;
        if (std::fabs(a.second - b.second) > 1e-9 * std::max(1.0, std::fabs(a.second))) return a.second < b.second;
        return tie_key(options[a.index]) < tie_key(options[b.index]);
    });
    for (std::size_t k = 0; k < scored.size(); ++k) idx[k] = scored[k].index;
    scored = {};

    // The same instance at the same price in several regions is one option to the user. Each
    // group (Option::group) keeps its kept options' prices side by side, so a new option is
    // compared with a few contiguous doubles: linear in the offers, times the regions an instance
    // type has different prices in (tens; zone duplicates were merged on reading).
    std::size_t groups = 0;
    for (std::size_t i : idx) groups = std::max(groups, options[i].group + 1);
    std::vector<std::vector<std::pair<double, std::size_t>>> kept(groups);  // (monthly cost, option)
    out.order.reserve(idx.size());
    for (std::size_t i : idx) {
        const Option& c = options[i];
        auto& members = kept[c.group];
        auto same = std::find_if(members.begin(), members.end(),
                                 [&](const auto& m) { return same_price(m.first, c.cost.cost_per_month); });
        if (same != members.end()) {
            out.merged.emplace_back(same->second, i);
            continue;
        }
        members.emplace_back(c.cost.cost_per_month, i);
        out.order.push_back(i);
    }
    return out;
}

std::vector<bool> pareto_marks(const std::vector<Option>& cs, const std::vector<std::size_t>& ranked) {
    // Pareto-optimal: no other option is at least as fast and as cheap, and better in one. A sweep
    // in order of run time keeps the cheapest cost seen among strictly faster options.
    struct Point {
        double hours, cost;
        std::size_t position;
    };
    std::vector<Point> points(ranked.size());
    for (std::size_t k = 0; k < ranked.size(); ++k)
        points[k] = {cs[ranked[k]].cost.hours_per_run, cs[ranked[k]].cost.cost_per_month, k};
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return std::tie(a.hours, a.cost) < std::tie(b.hours, b.cost); });
    std::vector<bool> marks(ranked.size(), false);
    double cheapest_faster = std::numeric_limits<double>::infinity();
    for (std::size_t g = 0; g < points.size();) {
        // A group of options with the same run time: only its cheapest can be optimal.
        std::size_t end = g;
        const double hours = points[g].hours;
        while (end < points.size() && points[end].hours <= hours + 1e-12) ++end;
        const double group_min = points[g].cost;
        for (std::size_t k = g; k < end; ++k)
            marks[points[k].position] = points[k].cost <= group_min + 1e-9 && points[k].cost < cheapest_faster - 1e-9;
        cheapest_faster = std::min(cheapest_faster, group_min);
        g = end;
    }
    return marks;
}

void add_region_notes(Candidate& c, std::size_t kept, const Ranking& ranking, const std::vector<Option>& options) {
    for (const auto& [k, dup] : ranking.merged) {
        if (k != kept) continue;
        std::string note = "also in " + options[dup].offer->region + " at the same price";
        if (c.reasons.size() < 12 && std::find(c.reasons.begin(), c.reasons.end(), note) == c.reasons.end())
            c.reasons.push_back(std::move(note));
    }
}

void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Option>& options,
                      const std::vector<std::size_t>& by_cost, double speed_fraction, const std::string& currency) {
    for (auto& c : ranked) {
        const Option* best = nullptr;
        const double c_tflops = c.gpu->tflops.at(c.estimate.precision).value_or(0);
        for (std::size_t i : by_cost) {
            const Option& o = options[i];
            if (o.gpu->family == c.gpu->family || o.gpu_count > c.gpu_count) continue;
            if (o.cost.cost_per_run >= c.cost.cost_per_run * 0.95) continue;
            // Over-buying (seed 4.1) is paying for a premium GPU whose speed is not needed: the
            // alternative is a smaller part (less peak compute) that still reaches the share of
            // the speed. A faster and cheaper option is simply ranked above; no warning needed.
            const double speed = c.cost.hours_per_run / o.cost.hours_per_run;
            if (speed < speed_fraction) continue;
            if (o.gpu->tflops.at(o.estimate->precision).value_or(0) >= c_tflops) continue;
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
