// The rules of the four-step needs analysis and the pitfalls (internal to recommend).
// Each rule has an id (step.name), reads its thresholds from the catalog's policy and emits
// findings; the seed documents' heuristics are reported as "heuristic" findings beside the
// computed answer.
#pragma once

#include "gpuadvise/advice/recommend.hpp"

namespace gpuadvise::detail {

class EstimateCache;

struct RuleInput {
    const Catalog& catalog;
    const RecommendRequest& request;
    EstimateCache& estimates;
    const Candidate* winner;  // best ranked option, nullptr when nothing is feasible
    const std::vector<Candidate>& ranked;
    const std::vector<Candidate>& reservable;  // feasible options that have a reserved price, best first
    const std::vector<std::string>& without_commitments;  // providers of the catalog with no commitment price
};

StepReport step1_model_size(const RuleInput& in, std::string& heuristic_family);
StepReport step2_frequency(const RuleInput& in, std::optional<CommitmentCrossover>& crossover);
StepReport step3_dataset(const RuleInput& in);
StepReport step4_scaling(const RuleInput& in);
StepReport pitfalls(const RuleInput& in);

// Per-candidate warnings from steps 3 and 4 (data-loading vCPUs, local disk, slow network).
void check_host(const Catalog& catalog, const RecommendRequest& request, Candidate& c);

// Step 3 rule (#13): host RAM one node needs to load the checkpoint: the node's share of the
// weights (split over nodes only by tensor/pipeline parallelism that spans them) in the load
// precision (4 bytes a parameter for fp32/tf32 jobs, 2 otherwise), times the policy factor, plus
// the policy reserve. GB.
double checkpoint_host_ram_gb(const Catalog& catalog, const Workload& w, const Estimate& e);
// Step 3 estimate (#13): vCPUs per node that JPEG decoding and augmentation need to keep an image
// job fed (samples/s per node / policy images per core); nullopt when the job is not image training.
std::optional<double> data_loading_vcpus(const Catalog& catalog, const Workload& w, const Estimate& e);

}  // namespace gpuadvise::detail
