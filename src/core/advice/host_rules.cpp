// The host rules of steps 3 and 4 (host_rules.hpp).
#include "host_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuadvise::detail {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, format, a, b, c);
    return buf;
}

}  // namespace

double checkpoint_host_ram_gb(const Catalog& catalog, const Workload& w, const Estimate& e) {
    const Configuration& cfg = e.config;
    const int model_parallel = std::max(1, cfg.layout.tensor * cfg.layout.pipeline);
    const int per_node = std::max(1, cfg.gpus_per_node);
    const int shard_nodes = std::clamp((model_parallel + per_node - 1) / per_node, 1, std::max(1, cfg.nodes));
    const double bytes = e.precision == Precision::fp32 || e.precision == Precision::tf32 ? 4.0 : 2.0;
    return w.params * bytes / 1e9 / shard_nodes * catalog.policy.get("checkpoint_load_ram_factor") +
           catalog.policy.get("host_ram_reserve_gb");
}

std::optional<double> data_loading_vcpus(const Catalog& catalog, const Workload& w, const Estimate& e) {
    if (!w.is_training() || e.throughput_unit != "images/s" || e.throughput_per_s <= 0) return std::nullopt;
    // Small images (MNIST, CIFAR) come as arrays in memory, not JPEG files: nothing to decode.
    if (w.image_size < catalog.policy.get("jpeg_min_image_px")) return std::nullopt;
    const double per_core = catalog.policy.get("jpeg_images_per_core");
    if (per_core <= 0) return std::nullopt;
    return e.throughput_per_s / std::max(1, e.config.nodes) / per_core;
}

void check_host(const Catalog& catalog, const RecommendRequest& request, Candidate& c) {
    const Offer& o = *c.offer;
    if (o.vcpus)
        if (auto need = data_loading_vcpus(catalog, request.workload, c.estimate); need && *o.vcpus < *need)
            c.warnings.push_back({WarningKind::data_loading_cpu,
                                  fmt("data loading: %.0f vCPUs, about %.0f needed to decode and augment ",
                                      static_cast<double>(*o.vcpus), std::ceil(*need)) +
                                      fmt("%.0f images/s per node (estimate, %g per core): the GPUs may "
                                          "wait; decode on the GPU (DALI) or pre-process",
                                          c.estimate.throughput_per_s / std::max(1, c.estimate.config.nodes),
                                          catalog.policy.get("jpeg_images_per_core"))});
    if (request.dataset_gb && o.local_disk_gb && *o.local_disk_gb < *request.dataset_gb)
        c.warnings.push_back(
            {WarningKind::local_disk,
             fmt("local disk %.0f GB is smaller than the %.0f GB dataset: stream it or attach storage",
                 *o.local_disk_gb, *request.dataset_gb)});
}

}  // namespace gpuadvise::detail
