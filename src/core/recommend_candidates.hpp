// Internal to the recommend engine: building, costing and ranking candidates.
#pragma once

#include <map>
#include <tuple>

#include "gpuadvise/recommend.hpp"

namespace gpuadvise::detail {

// Estimates are costly enough to cache per (GPU, total GPUs, nodes, network).
class EstimateCache {
public:
    EstimateCache(const Catalog& catalog, const Workload& workload) : catalog_(catalog), workload_(workload) {}
    const Estimate& get(const Gpu& gpu, int gpu_count, const LinkSpec& link);
    // GPUs of this model the job needs at least (memory); 0 when it does not fit at any count.
    int min_gpus(const Gpu& gpu);

private:
    const Catalog& catalog_;
    const Workload& workload_;
    std::map<std::tuple<std::string, int, int, double>, Estimate> cache_;
};

struct CandidatePool {
    std::vector<Candidate> feasible;  // pass every constraint (filters included)
    std::vector<Candidate> unfiltered;  // pass the constraints but maybe not the user's filters (for over-buying)
    std::vector<Rejection> rejected;
    std::vector<Candidate> over_budget;    // nearest-miss material
    std::vector<Candidate> over_deadline;
};

CandidatePool build_candidates(const Catalog& catalog, const RecommendRequest& request, EstimateCache& estimates);

// Sorts by the objective, merges region duplicates, marks Pareto-optimal options and ranks.
void rank_candidates(std::vector<Candidate>& candidates, Objective objective);
// Warns where a cheaper GPU reaches the policy's share of the speed (seed 4.1).
void flag_over_buying(std::vector<Candidate>& ranked, const std::vector<Candidate>& all, double speed_fraction,
                      const std::string& currency);

std::string money(double amount, const std::string& currency);
std::string hours_text(double hours);

}  // namespace gpuadvise::detail
