// The rules of the four-step needs analysis and the pitfalls (internal to recommend).
// Each rule has an id (step.name), reads its thresholds from the catalog's policy and emits
// findings; the seed documents' heuristics are reported as "heuristic" findings beside the
// computed answer.
#pragma once

#include "gpuadvise/advice/recommendation.hpp"
#include "recommend_candidates.hpp"

namespace gpuadvise::detail {

struct RuleInput {
    const Catalog& catalog;
    const RecommendRequest& request;
    EstimateCache& estimates;
    const Candidate* winner;  // best ranked option, nullptr when nothing is feasible
    const std::vector<Candidate>& ranked;
    const std::vector<Candidate>& reservable;  // feasible options that have a reserved price, best first
    const std::vector<std::string>& without_commitments;  // providers of the catalog with no commitment price
    const PlanFlip* flip = nullptr;  // where a commitment first beats what the user would otherwise rent
};

StepReport step1_model_size(const RuleInput& in, std::string& heuristic_family);
StepReport step2_frequency(const RuleInput& in, std::optional<CommitmentCrossover>& crossover);
StepReport step3_dataset(const RuleInput& in);
StepReport step4_scaling(const RuleInput& in);
StepReport pitfalls(const RuleInput& in);

}  // namespace gpuadvise::detail
