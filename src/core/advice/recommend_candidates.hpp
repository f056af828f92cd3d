// Internal to the recommend engine: building, costing and ranking candidates.
//
// Every offer that can run the job becomes a light `Option` (pointers, the chosen plan's cost);
// options are ordered and merged through index lists, and only the few that are shown (the top
// ranks, the reservable examples, the nearest miss) become full `Candidate`s with a copy of their
// estimate, reasons and warnings. That keeps recommend linear and small at a million offers.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <memory_resource>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gpuadvise/advice/recommendation.hpp"
#include "gpuadvise/base/format.hpp"  // format_amount and format_duration in the messages

namespace gpuadvise::detail {

// Estimates are costly enough to cache per (GPU, GPUs per node, nodes, network). Entries never move.
class EstimateCache {
public:
    EstimateCache(const Catalog& catalog, const Workload& workload) : speeds_(catalog, workload) {}
    // Options point into it, and it points into itself (the last estimate asked): never copied.
    EstimateCache(const EstimateCache&) = delete;
    EstimateCache& operator=(const EstimateCache&) = delete;
    const Estimate& get(const Gpu& gpu, int gpu_count, const LinkSpec& link);
    // GPUs of this model the job needs at least (memory, best layout); 0 when it does not fit at any count.
    int min_gpus(const Gpu& gpu);

private:
    SpeedTable speeds_;  // single-GPU speeds, shared by every count and network of a GPU model
    std::pmr::monotonic_buffer_resource nodes_;  // the maps' nodes, freed with the cache at once
    std::pmr::map<std::tuple<const Gpu*, int, int, double>, Estimate> cache_{&nodes_};
    const std::pair<const std::tuple<const Gpu*, int, int, double>, Estimate>* last_ =
        nullptr;  // the last asked
    // min_gpus per GPU model, asked once per offer (its precision and the table's lookup were 2 % of a
    // recommend on the built-in catalog).
    std::pmr::unordered_map<const Gpu*, int> min_gpus_{&nodes_};
    const std::pair<const Gpu* const, int>* last_min_gpus_ = nullptr;  // the last asked
};

// What ranking reads of a plan's cost (the full PlanCost is recomputed for the options shown).
struct CostSummary {
    Plan plan = Plan::on_demand;
    double hours_per_run = 0, cost_per_run = 0, cost_per_month = 0;
    double rank_cost =
        0;  // what the cost ranking reads: the month's cost, or a one-off job's cost (runs x cost per run)
    CostSummary() = default;
    explicit CostSummary(const PlanCost& c, double one_off_runs = 0)
        : plan(c.plan),
          hours_per_run(c.hours_per_run),
          cost_per_run(c.cost_per_run),
          cost_per_month(c.cost_per_month),
          rank_cost(one_off_runs > 0 ? c.cost_per_run * one_off_runs : c.cost_per_month) {}
};

// Runs a one-off job makes (--runs N; 1 for --runs-per-week 0), 0 for a recurring one.
inline double one_off_runs(const RecommendRequest& r) {
    return r.one_off() ? static_cast<double>(r.runs.value_or(1)) : 0.0;
}

// One way to run the job on one offer, costed on its best plan (about 100 bytes: there is one per offer).
struct Option {
    const Offer* offer = nullptr;
    const Gpu* gpu = nullptr;
    const Provider* provider = nullptr;
    const Estimate* estimate = nullptr;  // owned by the EstimateCache
    const std::string* requirement =
        nullptr;            // PyTorch build requirement (in CandidatePool::fits), when --pytorch is given
    CostSummary cost;       // the chosen plan
    std::size_t group = 0;  // same provider, GPU, count, plan and instance type: "the same option"
    int instances = 1;
    int gpu_count = 1;
    double inter_node_gbps = 0;
    bool in_filter = true;         // passes the user's --gpu/--provider/--region filters
    bool slow_network = false;     // several nodes without the RDMA the source asks for (a warning)
    bool unknown_network = false;  // several nodes over a network nothing states (policy default assumed)
    bool stated_network = false;   // several nodes over the user's --network-gbps (the catalog gives none)
    bool has_reserved = false;     // a reserved plan exists for it (chosen or alternative)
    bool price_complete =
        true;               // the offer's price is not known to be partial (ranked before those that are)
    double high_ratio = 1;  // the time band's high end / the point estimate, billed hours (set-up included)
    double co2e_kg_per_run = -1;  // --objective carbon only; < 0: unknown
};

struct CandidatePool {
    std::map<std::string, PytorchFit> fits;  // per GPU and driver; Option::requirement points into it
    std::vector<Option> options;  // pass every constraint; in_filter says which also pass the filters
    std::vector<Rejection> rejected;
    std::vector<Option> over_budget;  // nearest-miss material (in the filters)
    std::vector<Option> over_deadline;
    // An online service: the rejection nearest to meeting the latency targets (its miss ratio).
    double latency_miss = 0;
    std::string latency_miss_text;
};

struct BuildContext {
    double setup_hours = 0;
    double idle_minutes = 0;  // per run (0 for serving: a deployment is not released between batches)
    double min_network_gbps = 0;
    double min_scaling_efficiency = 0;
    SpotAssumptions spot;
    // An online service: its load (the request's traffic at the workload's output length).
    std::optional<ServiceLoad> service;
};
// The hours one "run" of an option bills: the estimate plus set-up, or a service's day up.
double billed_run_hours(const BuildContext& b, const RecommendRequest& r, const Estimate& e);
// An online service on one configuration: the copies of it that carry the peak.
ServiceSizing service_sizing(const BuildContext& b, const RecommendRequest& r, const Estimate& e);

BuildContext build_context(const Catalog& catalog, const RecommendRequest& request);
struct SizedPool;
// `keep`: also what size_candidates would give for the request (recommend's basis for --what-if).
CandidatePool build_candidates(const Catalog& catalog, const RecommendRequest& request,
                               EstimateCache& estimates, SizedPool* keep = nullptr);
// An offer that can run the job, sized (its layout, nodes and network) but not yet priced: what
// build_candidates finds before the steps that read the runs a week or a service's traffic.
// recommend --what-if sizes once and prices the sized options at every point.
struct SizedOption {
    Option option;  // cost, service replicas and host checks not yet applied
    LinkSpec link;
    const BillingAssumptions* billing = nullptr;  // the provider's, in SizedPool::billings
};
struct SizedPool {
    std::vector<SizedOption> options;  // catalog order, in the filters or not
    std::deque<BillingAssumptions> billings;
    CandidatePool unpriced;  // the PyTorch fits the options point into (and the rejections before pricing)
};
SizedPool size_candidates(const Catalog& catalog, const RecommendRequest& request, EstimateCache& estimates);

// What recommend sized, kept for --what-if over the same request (RecommendBasis's state).
struct WhatIfBasis {
    WhatIfBasis(const Catalog& catalog, const Workload& workload) : estimates(catalog, workload) {}
    EstimateCache estimates;  // the options' estimates point into it
    SizedPool sized;
};
// build_candidates for `request` from options sized for a request that differs from it at most in the
// runs a week, the plan filter, the budget or a service's traffic: the same options in the same order
// (only those in the filters when `in_filter_only`). Rejections before pricing are not in the pool.
// `from`: each option's index in sized.options.
CandidatePool price_candidates(const Catalog& catalog, const RecommendRequest& request,
                               EstimateCache& estimates, const SizedPool& sized, bool in_filter_only,
                               std::vector<std::size_t>* from = nullptr);
// Why no option is feasible: the binding constraint and the nearest miss.
NothingFeasible explain_nothing(const CandidatePool& pool, const RecommendRequest& request);
// The full candidate for an option: estimate, alternatives, reasons, warnings, $/TFLOPS. `grid`: the
// catalog's GridCarbonIndex when the caller materializes several (one is built otherwise).
Candidate materialize(const Catalog& catalog, const RecommendRequest& request, const Option& option,
                      const GridCarbonIndex* grid = nullptr);

// Options (indices into `options`, those with `in_filter` unless `all`) in the objective's order, the
// same option in several regions merged into its first occurrence.
struct Ranking {
    std::vector<std::size_t> order;                           // merged, best first
    std::vector<double> hours, monthly;                       // per position in `order`
    std::vector<std::pair<std::size_t, std::size_t>> merged;  // (kept option, duplicate option)
};
// carbon: options within max_cost_increase (a share) of the cheapest a month first, by kg CO2e per
// run, unknown carbon after known; the rest after them by cost.
// Multi-node options rank above single-node ones only by a margin (policy multi_node_rank_margin),
// and those over an unknown network after every other unless allowed (--allow-unknown-network).
struct RankRules {
    double max_cost_increase = 0.1;
    double multi_node_margin = 0;
    bool demote_unknown_network = false;
};
RankRules rank_rules(const Catalog& catalog, const RecommendRequest& request);
Ranking rank_options(const std::vector<Option>& options, Objective objective, bool all,
                     const RankRules& rules = {});
// Pareto-optimal (time vs cost) marks for the ranked options, by position in `order`.
std::vector<bool> pareto_marks(const Ranking& ranking);
// Each option's position in `order`, or kNotRanked (merged away, or not in the ranking).
inline constexpr std::size_t kNotRanked = static_cast<std::size_t>(-1);
std::vector<std::size_t> positions(const std::vector<std::size_t>& order, std::size_t options);
// "also in REGION at the same price" for a kept option, as the ranking merged it.
void add_region_notes(Candidate& c, std::size_t kept, const Ranking& ranking,
                      const std::vector<Option>& options);

// Warns where a cheaper GPU reaches the policy's share of the speed (seed 4.1). The alternatives
// are every option that passes the constraints (filters or not), with `by_cost_position` their
// position in the cost ranking (kNotRanked: merged into another region's option).
void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Option>& options,
                      const std::vector<std::size_t>& by_cost_position, double speed_fraction,
                      const std::string& currency);

// One or two plain reasons why #1 wins (its cost, speed or carbon against #2; the deadline or the
// memory margin), put first in its reasons. `max_cost_increase`: RankRules' (the carbon tolerance).
std::vector<std::string> add_winner_reasons(std::vector<Candidate>& ranked, const RecommendRequest& request,
                                            double max_cost_increase);

// True when `o` is a better pick than `best` (null: none yet) by cost a month, a complete price before
// every price of the GPU alone (Option::price_complete), as the ranking orders them (#29).
inline bool cheaper_complete_first(const Option& o, const Option* best) {
    if (!best) return true;
    if (o.price_complete != best->price_complete) return o.price_complete;
    return o.cost.cost_per_month < best->cost.cost_per_month;
}

// What the user would otherwise rent: the in-filter option whose run costs least on demand (or on spot,
// for an --interruptible job), within the deadline. Its month is linear in the runs a week.
struct OtherwiseRent {
    const Option* option = nullptr;
    Plan plan = Plan::on_demand;
    double cost_per_run = 0;
};
std::optional<OtherwiseRent> otherwise_rent(const Catalog& catalog, const RecommendRequest& request,
                                            const std::vector<Option>& options);
// The runs a week of this job above which the option's best commitment (of the --plan's term) costs less a
// month than `against`; nullopt when it has none or never does (up to 10000 runs a week). With `below`, also
// nullopt as soon as the answer is known to be at least `below` - 1e-12 (a search for the smallest one).
std::optional<double> commitment_beats_at(const Catalog& catalog, const RecommendRequest& request,
                                          const Option& option, const OtherwiseRent& against,
                                          std::optional<double> below = std::nullopt);
// The first commitment to beat what the user would otherwise rent as the runs grow: where
// `--what-if runs-per-week` flips from on-demand (or spot) to reserved.
struct PlanFlip {
    const Option* reserved = nullptr;
    OtherwiseRent against;
    double runs_per_week = 0;
    PlanCost commitment;  // the commitment at the flip (its term, break-even and own crossover)
};
std::optional<PlanFlip> plan_flip(const Catalog& catalog, const RecommendRequest& request,
                                  const std::vector<Option>& options,
                                  const std::optional<OtherwiseRent>& against);

}  // namespace gpuadvise::detail
