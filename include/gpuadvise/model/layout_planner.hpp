// The layout planner: for a GPU model, a count (nodes x GPUs per node) and a network, the parallel
// layouts that fit memory and the fastest of them (docs/methodology.md, "Layout planner").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/model/workload.hpp"

namespace gpuadvise {

// Time of one layout, per optimizer step (training) or per request cycle (serving).
struct LayoutTiming {
    double step_s = 0;          // wall time of one optimizer step
    double compute_s = 0;       // of which compute (all micro-batches, no bubble)
    double exposed_comm_s = 0;  // communication not hidden behind compute
    double bubble_s = 0;        // pipeline fill and drain
    double samples_per_s = 0;   // whole configuration
    double utilisation = 0;     // model FLOP/s / dense peak, per GPU
    TimeBasis basis = TimeBasis::estimated;
    SharedText basis_detail;
    double band_low = 0.7, band_high = 1.5;
};

struct PlannedLayout {
    Parallelism layout;
    MemoryBreakdown memory;
    bool fits = false;
    LayoutTiming timing;
    std::optional<ServingEstimate> serving;
};

// The fastest layout that fits on `gpus_per_node` x `link.nodes` GPUs within the workload's pins;
// when none fits, the one needing the least memory per GPU (fits = false).
PlannedLayout plan_layout(const Catalog& catalog, const Workload& w, const Gpu& gpu, Precision p,
                          int gpus_per_node, const LinkSpec& link);
// The same, reading single-GPU speeds through `speeds` (its catalog and workload): the result is
// the same as planning with a fresh table.
PlannedLayout plan_layout(SpeedTable& speeds, const Gpu& gpu, Precision p, int gpus_per_node,
                          const LinkSpec& link);

// Whether any layout fits in memory (no timing: cheap), for the minimum-count search.
bool any_layout_fits(const Workload& w, const Gpu& gpu, Precision p, int gpus_per_node, int nodes);

// The smallest GPU count that fits with the best layout: 1..8 on one node, then whole nodes of
// `gpus_per_node_max`; nullopt when nothing up to `max_gpus` fits.
std::optional<int> minimum_gpus(const Workload& w, const Gpu& gpu, Precision p, int gpus_per_node_max = 8,
                                int max_gpus = 4096);

// The network of a cloud instance family (EFA, InfiniBand, RoCE, Ethernet), per node, with its
// source, from the catalog's `instance_networks` (longest matching instance-type prefix of the
// provider, case-insensitive); nullptr when the family is not known.
const InstanceNetwork* instance_network(const Catalog& catalog, std::string_view provider,
                                        std::string_view instance_type);
// The same among `rows`, a provider's rows of catalog.networks in their order (a caller looking up
// every offer of a provider's run keeps them: scanning every row per offer was 6 % of a recommend).
const InstanceNetwork* instance_network(const std::vector<const InstanceNetwork*>& rows,
                                        std::string_view instance_type);
std::vector<const InstanceNetwork*> provider_networks(const Catalog& catalog, std::string_view provider);

}  // namespace gpuadvise
