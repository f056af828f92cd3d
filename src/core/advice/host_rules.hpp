// The host rules of steps 3 and 4, per candidate (internal to recommend): host RAM to load the
// checkpoint, vCPUs to feed an image job, local disk for the dataset.
#pragma once

#include <optional>

#include "gpuadvise/advice/recommendation.hpp"

namespace gpuadvise::detail {

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
